// HedgeReport: what a hedged run adds to its result (docs/hedging.md; spec hedging.md,
// "Results, events and metrics").
//
// All zero for a run that does not hedge. Counts are small: a hedging policy has at most 10
// attempts, and each hedge that falls due either starts or is suppressed.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "rebound/duration.hpp"

namespace rebound {

// Why a hedge that fell due did not start, in the order the run checks them (the first that
// holds is counted), pushback last: a hedge held back by a server's delay hint while a later
// one fell due.
enum class HedgeSuppression : std::uint8_t {
    Attempts,     // max_attempts attempts already started
    Deadline,     // the policy's deadline has passed
    Budget,       // the retry budget holds max_tokens / 2 tokens or fewer
    HedgeTokens,  // no hedge token left for (service, policy)
    Breaker,      // the circuit breaker refused it (not counted as an attempt)
    Pushback,     // superseded while held back by a server delay hint
};

inline constexpr std::size_t kHedgeSuppressionReasons = 6;

constexpr std::string_view to_string(HedgeSuppression reason) noexcept {
    switch (reason) {
        case HedgeSuppression::Attempts:
            return "attempts";
        case HedgeSuppression::Deadline:
            return "deadline";
        case HedgeSuppression::Budget:
            return "budget";
        case HedgeSuppression::HedgeTokens:
            return "hedge_tokens";
        case HedgeSuppression::Breaker:
            return "breaker";
        case HedgeSuppression::Pushback:
            break;
    }
    return "pushback";
}

struct HedgeReport {
    std::uint16_t hedges = 0;     // hedges started (attempts beyond the first)
    std::uint16_t winner = 0;     // the attempt that succeeded (1 for the first), 0 for none
    std::uint16_t abandoned = 0;  // attempts cancelled and not awaited when the run ended
    std::array<std::uint16_t, kHedgeSuppressionReasons> suppressed{};  // by HedgeSuppression
    // The handler is not idempotent: no timed hedge, one attempt in flight at a time.
    bool one_at_a_time = false;
    // The hedge delay D of the run, read at its start: the fixed delay, or the learned one
    // clamped to [min, max]; none while a learned delay warms up (or no latencies are kept).
    std::optional<Duration> delay{};

    std::uint16_t suppressed_by(HedgeSuppression reason) const noexcept {
        return suppressed[static_cast<std::size_t>(reason)];
    }
    int suppressed_total() const noexcept {
        int total = 0;
        for (const std::uint16_t count : suppressed) {
            total += count;
        }
        return total;
    }
    friend bool operator==(const HedgeReport&, const HedgeReport&) = default;
};

}  // namespace rebound
