#include "rebound/jitter.hpp"

#include <algorithm>
#include <cmath>

namespace rebound {
namespace {

// The clamp to the backoff's `max` where it has one (Backoff::cap(), read without the optional:
// simulations call this per draw).
DelayRange clamp_to_cap(DelayRange range, const Backoff& backoff) noexcept {
    if (backoff.has_initial()) {
        range.min = std::min(range.min, backoff.max);
        range.max = std::min(range.max, backoff.max);
    }
    return range;
}

// Decorrelated jitter needs an `initial`; validation guarantees one, the base delay is a safe
// stand-in should an unvalidated backoff reach here.
Duration decorrelated_floor(const Backoff& backoff, Duration base) noexcept {
    return backoff.has_initial() ? backoff.initial : base;
}

// Clamps one delay to the backoff's `max`, where it has one.
Duration clamp_to_cap(Duration delay, const Backoff& backoff) noexcept {
    return backoff.has_initial() ? std::min(delay, backoff.max) : delay;
}

}  // namespace

DelayRange jitter_draw_range(const Jitter& jitter, const Backoff& backoff, Duration base,
                             Duration previous) noexcept {
    base = std::max(base, Duration{0});
    DelayRange range{base, base};
    switch (jitter.type) {
        case JitterType::None:
            break;
        case JitterType::Full:
            range.min = Duration{0};
            break;
        case JitterType::Equal:
            range.min = Duration{(base.count() + 1) / 2};
            break;
        case JitterType::Decorrelated: {
            const Duration floor = decorrelated_floor(backoff, base);
            range.min = floor;
            range.max = decorrelated_ceiling(std::max(previous, floor));
            range.max = std::max(range.max, floor);
            break;
        }
        case JitterType::Bounded: {
            const Duration amount = std::max(jitter.amount, Duration{0});
            range.min = base > amount ? base - amount : Duration{0};
            range.max = saturating_add(base, amount);
            break;
        }
        case JitterType::Proportional:
            range.min = saturating_scale(base, 1.0 - jitter.factor, kDurationInfinity);
            range.max = saturating_scale(base, 1.0 + jitter.factor, kDurationInfinity);
            break;
    }
    return range;
}

DelayRange jitter_range(const Jitter& jitter, const Backoff& backoff, Duration base,
                        Duration previous) noexcept {
    return clamp_to_cap(jitter_draw_range(jitter, backoff, base, previous), backoff);
}

// The spec draws first and clamps the result ("after jitter the delay is clamped to the
// backoff's max"): drawing from the clamped interval instead would give a different
// distribution whenever the interval reaches past `max` (for decorrelated jitter, a mean near
// max/2 instead of near 5/6 of max).
Duration jittered_delay(const Jitter& jitter, const Backoff& backoff, Duration base,
                        Duration previous, RandomSource& random) noexcept {
    const DelayRange range = jitter_draw_range(jitter, backoff, base, previous);
    if (range.max <= range.min) {
        return clamp_to_cap(range.min, backoff);
    }
    return clamp_to_cap(Duration{uniform_between(random, range.min.count(), range.max.count())},
                        backoff);
}

DelayRange schedule_range(const Jitter& jitter, const Backoff& backoff, int k) noexcept {
    if (jitter.type != JitterType::Decorrelated) {
        return jitter_range(jitter, backoff, backoff.base_delay(k), Duration{0});
    }
    const Duration floor = decorrelated_floor(backoff, backoff.base_delay(k));
    const Duration widest =
        saturating_scale(floor, std::pow(kDecorrelatedGrowth, std::max(k, 1)), kDurationInfinity);
    return clamp_to_cap(DelayRange{floor, std::max(widest, floor)}, backoff);
}

}  // namespace rebound
