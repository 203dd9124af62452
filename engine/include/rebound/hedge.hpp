// HedgeSettings: the `hedge` field of a policy (docs/hedging.md; spec version 3).
//
// A hedge is one more copy of an idempotent call, started while the first is still outstanding;
// the first success wins and the others are cancelled. The delay before hedge k is either fixed
// (k * delay after the first attempt starts) or learned: a quantile of the handler's recent
// attempt latencies, clamped to [min, max], with no timed hedge until `warmup` latencies are in
// the window. Hedges take tokens that runs earn (`max_extra_load` per run, at most `burst`).
//
// Plain data like the rest of PolicySpec: validation (policy_validation.hpp) checks the ranges
// and the conflicts with backoff, jitter, routes and min_attempt_budget.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "rebound/duration.hpp"
#include "rebound/vocabulary.hpp"

namespace rebound {

// What a failure that is not fatal does to the hedge schedule.
enum class HedgeOnFailure : std::uint8_t {
    Next,  // the next hedge is due at once
    Wait,  // failures start nothing; only the schedule does
};

inline constexpr WordRow<HedgeOnFailure> kHedgeOnFailures[] = {
    {HedgeOnFailure::Next, "next", "a failure that is not fatal starts the next hedge at once"},
    {HedgeOnFailure::Wait, "wait", "only the schedule starts hedges"},
};
static_assert(is_vocabulary(kHedgeOnFailures));

constexpr std::span<const WordRow<HedgeOnFailure>> vocabulary(HedgeOnFailure) noexcept {
    return kHedgeOnFailures;
}

// A delay learned from the handler's latencies: the `quantile` of the last `window`, clamped.
struct LearnedHedgeDelay {
    double quantile = 0.0;  // in (0, 1)
    Duration min{0};        // >= 0
    Duration max{0};        // > min; required
    friend bool operator==(const LearnedHedgeDelay&, const LearnedHedgeDelay&) = default;
};

struct HedgeSettings {
    static constexpr double kDefaultMaxExtraLoad = 0.05;
    static constexpr int kDefaultBurst = 10;
    static constexpr Duration kDefaultWindow = std::chrono::seconds(30);
    static constexpr int kDefaultWarmup = 100;

    // Exactly one of the two is set: a fixed delay (> 0) or a learned one.
    std::optional<Duration> fixed_delay{};
    std::optional<LearnedHedgeDelay> learned{};
    double max_extra_load = kDefaultMaxExtraLoad;  // in (0, 1]
    int burst = kDefaultBurst;                     // 1..1000
    HedgeOnFailure on_failure = HedgeOnFailure::Next;
    // Learned delays only (an error with a fixed delay); absent: the defaults above.
    std::optional<Duration> window{};  // 1s..1h
    std::optional<int> warmup{};       // 1..100000

    bool is_learned() const noexcept { return learned.has_value(); }
    Duration window_or_default() const noexcept { return window.value_or(kDefaultWindow); }
    int warmup_or_default() const noexcept { return warmup.value_or(kDefaultWarmup); }

    friend bool operator==(const HedgeSettings&, const HedgeSettings&) = default;
};

}  // namespace rebound
