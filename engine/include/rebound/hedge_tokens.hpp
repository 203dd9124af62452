// HedgeTokens: the tokens hedges take, per (service, policy name) like the retry budget
// (docs/hedging.md; spec hedging.md, "The hedged run" step 8).
//
// Tokens start at `burst`; every run that starts gains `max_extra_load` tokens, capped at
// `burst`; a hedge starts only by taking a whole token. Over any stretch of R runs, hedges
// started <= burst + max_extra_load * R. A ResilienceRegistry keeps them across reloads (a
// changed burst scales them as a budget's max_tokens does).
//
// Lock-free: each operation is one compare-and-swap loop on one word of milli-tokens; safe from
// many threads, never allocates or blocks.
#pragma once

#include <atomic>
#include <cstdint>

#include "rebound/hedge.hpp"

namespace rebound {

struct HedgeTokenSettings {
    int burst = HedgeSettings::kDefaultBurst;                     // 1..1000
    double max_extra_load = HedgeSettings::kDefaultMaxExtraLoad;  // (0, 1]
    static HedgeTokenSettings of(const HedgeSettings& hedge) noexcept {
        return {hedge.burst, hedge.max_extra_load};
    }
    friend bool operator==(const HedgeTokenSettings&, const HedgeTokenSettings&) = default;
};

class HedgeTokens {
  public:
    // Full: `burst` tokens.
    explicit HedgeTokens(const HedgeTokenSettings& settings) noexcept;
    // Starting with `initial` tokens, clamped to [0, burst] (a reload's scaled tokens).
    HedgeTokens(const HedgeTokenSettings& settings, double initial) noexcept;
    HedgeTokens(const HedgeTokens&) = delete;
    HedgeTokens& operator=(const HedgeTokens&) = delete;

    // A run started: gains max_extra_load, capped at burst.
    void run_started() noexcept;
    // Takes one token for a hedge; false (taking nothing) with less than one.
    bool try_take() noexcept;
    // Gives back a token taken for a hedge that did not start after all, capped at burst.
    void give_back() noexcept;

    double tokens() const noexcept;
    const HedgeTokenSettings& settings() const noexcept { return settings_; }

  private:
    void add_capped(std::int64_t milli) noexcept;

    HedgeTokenSettings settings_;
    std::int64_t max_milli_;
    std::int64_t gain_milli_;
    std::atomic<std::int64_t> milli_;
};

}  // namespace rebound
