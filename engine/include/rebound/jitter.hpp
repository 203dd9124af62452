// Jitter: randomisation of the base delay d (docs/policy-format.md, Jitter). kJitterKinds below
// lists each kind, what it draws, and what it needs besides its word.
//
// The result is then clamped to the backoff's `max` where it has one. All draws come from the
// given RandomSource, so a fixed seed reproduces the schedule.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "rebound/backoff.hpp"
#include "rebound/duration.hpp"
#include "rebound/random_source.hpp"
#include "rebound/vocabulary.hpp"

namespace rebound {

enum class JitterType : std::uint8_t { None, Full, Equal, Decorrelated, Bounded, Proportional };

// A jitter kind's word, what it draws, and the value it needs besides its word ("amount",
// "factor"; empty for a kind written as a bare word).
struct JitterKindRow : WordRow<JitterType> {
    std::string_view parameter;
};

inline constexpr JitterKindRow kJitterKinds[] = {
    {{JitterType::None, "none", "d"}, ""},
    {{JitterType::Full, "full", "uniform in [0, d]"}, ""},
    {{JitterType::Equal, "equal", "uniform in [d/2, d]"}, ""},
    {{JitterType::Decorrelated, "decorrelated",
      "uniform in [initial, 3 * previous delay], capped at max"},
     ""},
    {{JitterType::Bounded, "bounded", "uniform in [max(0, d - amount), d + amount]"}, "amount"},
    {{JitterType::Proportional, "proportional", "uniform in [d * (1 - factor), d * (1 + factor)]"},
     "factor"},
};
static_assert(is_vocabulary(kJitterKinds));

constexpr std::span<const JitterKindRow> vocabulary(JitterType) noexcept {
    return kJitterKinds;
}

// Whether the kind is written as a bare word (`jitter: full`), needing no amount or factor.
constexpr bool is_bare_word(JitterType type) noexcept {
    const JitterKindRow* row = find_row(type);
    return row == nullptr || row->parameter.empty();
}

struct Jitter {
    JitterType type = JitterType::Full;
    Duration amount{0};   // bounded
    double factor = 0.0;  // proportional, 0 < factor <= 1

    static constexpr Jitter none() noexcept { return Jitter{JitterType::None}; }
    static constexpr Jitter full() noexcept { return Jitter{JitterType::Full}; }
    static constexpr Jitter equal() noexcept { return Jitter{JitterType::Equal}; }
    static constexpr Jitter decorrelated() noexcept { return Jitter{JitterType::Decorrelated}; }
    static constexpr Jitter bounded(Duration amount) noexcept {
        return Jitter{JitterType::Bounded, amount};
    }
    static constexpr Jitter proportional(double factor) noexcept {
        return Jitter{JitterType::Proportional, Duration{0}, factor};
    }

    friend bool operator==(const Jitter&, const Jitter&) = default;
};

// Inclusive bounds of a delay.
struct DelayRange {
    Duration min{0};
    Duration max{0};
    friend bool operator==(const DelayRange&, const DelayRange&) = default;
};

// The number of delays a draw from `range` can give, max - min + 1, and 1 when max <= min (no
// draw: the delay is min). Precondition: both ends are non-negative, so the count fits.
constexpr std::uint64_t delay_count(const DelayRange& range) noexcept {
    return range.max <= range.min
               ? 1
               : static_cast<std::uint64_t>(range.max.count() - range.min.count()) + 1;
}

// Decorrelated jitter draws from [initial, kDecorrelatedGrowth * previous].
inline constexpr double kDecorrelatedGrowth = 3.0;

// The upper end of decorrelated jitter's interval for `previous` (already raised to `initial`):
// 3 * previous in exact integers below 2^51, where the double product is exact too, so both
// agree; saturating above. Inline: Policy::retry_delay runs it on every decorrelated decision.
inline Duration decorrelated_ceiling(Duration previous) noexcept {
    constexpr std::int64_t kExactLimit = std::int64_t{1} << 51;
    if (previous.count() < kExactLimit) {
        return Duration{previous.count() * 3};
    }
    return saturating_scale(previous, kDecorrelatedGrowth, kDurationInfinity);
}

// The interval one draw is taken from, before the result is clamped to the backoff's `max`.
// Depends on `previous` only for decorrelated jitter.
DelayRange jitter_draw_range(const Jitter& jitter, const Backoff& backoff, Duration base,
                             Duration previous) noexcept;

// The range one draw can fall in, after clamping, for base delay `base` and (decorrelated only)
// the previous delay `previous`. The draw in `jittered_delay` is uniform over this range.
DelayRange jitter_range(const Jitter& jitter, const Backoff& backoff, Duration base,
                        Duration previous) noexcept;

// One jittered delay: a uniform draw from `jitter_range(...)`. Takes one value from `random`
// unless the range is a single point.
Duration jittered_delay(const Jitter& jitter, const Backoff& backoff, Duration base,
                        Duration previous, RandomSource& random) noexcept;

// The widest range the delay before retry `k` can reach over every possible sequence of earlier
// draws. Equals `jitter_range` except for decorrelated jitter, whose bound grows as
// [initial, min(max, initial * 3^k)].
DelayRange schedule_range(const Jitter& jitter, const Backoff& backoff, int k) noexcept;

}  // namespace rebound
