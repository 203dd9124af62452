// Durations used throughout Rebound.
//
// Every duration is a whole number of microseconds, as the policy language stores them. The
// helpers here saturate instead of overflowing so that schedule arithmetic on absurd inputs
// (attempt 1000, multiplier 100) still yields a meaningful, non-negative answer.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>

namespace rebound {

using Duration = std::chrono::microseconds;

// The longest duration a policy may state (30 days); longer values are rejected when loading.
inline constexpr Duration kMaxPolicyDuration = std::chrono::hours(24 * 30);

// The largest representable duration; saturating arithmetic stops here.
inline constexpr Duration kDurationInfinity = Duration::max();

// a + b, clamped to [0, kDurationInfinity]. Both operands must be >= 0. The add's own overflow
// flag (a GCC and Clang builtin) decides.
constexpr Duration saturating_add(Duration a, Duration b) noexcept {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(a.count(), b.count(), &sum)) {
        return kDurationInfinity;
    }
    return Duration{sum};
}

// a * factor for factor >= 0, clamped to `cap`; never overflows, never negative, never NaN.
Duration saturating_scale(Duration a, double factor, Duration cap) noexcept;

// Milliseconds as a double, for reports (JSON `_ms` fields).
constexpr double to_milliseconds(Duration d) noexcept {
    return static_cast<double>(d.count()) / 1000.0;
}

}  // namespace rebound
