// Backoff: the base delay before each retry, before jitter (docs/policy-format.md, Backoff);
// kBackoffTypes below gives each type's formula.
//
// k = 1 for the first retry. Every computation saturates: for any k >= 1 the result lies in
// [0, max] (or is `delay` for fixed), with no overflow, NaN or negative value.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "rebound/duration.hpp"
#include "rebound/vocabulary.hpp"

namespace rebound {

enum class BackoffType : std::uint8_t { None, Fixed, Linear, Exponential };

// Each type's word and base delay before retry k, in the order messages list them.
inline constexpr WordRow<BackoffType> kBackoffTypes[] = {
    {BackoffType::Fixed, "fixed", "the same delay before every retry"},
    {BackoffType::Linear, "linear", "min(initial + (k-1) * increment, max)"},
    {BackoffType::Exponential, "exponential", "min(initial * multiplier^(k-1), max)"},
    {BackoffType::None, "none", "retry at once (delay 0)"},
};
static_assert(is_vocabulary(kBackoffTypes));

constexpr std::span<const WordRow<BackoffType>> vocabulary(BackoffType) noexcept {
    return kBackoffTypes;
}

// A plain description; `validate()` in policy_validation.hpp says whether it is acceptable.
// Only the fields of `type` are meaningful.
struct Backoff {
    static constexpr Duration kDefaultInitial = std::chrono::milliseconds(100);
    static constexpr double kDefaultMultiplier = 2.0;
    static constexpr Duration kDefaultMax = std::chrono::seconds(30);

    BackoffType type = BackoffType::Exponential;
    Duration delay{0};                       // fixed
    Duration initial = kDefaultInitial;      // linear, exponential
    Duration increment{0};                   // linear
    double multiplier = kDefaultMultiplier;  // exponential
    Duration max = kDefaultMax;              // linear, exponential

    static constexpr Backoff none() noexcept {
        Backoff b;
        b.type = BackoffType::None;
        return b;
    }
    static constexpr Backoff fixed(Duration delay) noexcept {
        Backoff b;
        b.type = BackoffType::Fixed;
        b.delay = delay;
        return b;
    }
    static constexpr Backoff linear(Duration initial, Duration increment,
                                    Duration max = kDefaultMax) noexcept {
        Backoff b;
        b.type = BackoffType::Linear;
        b.initial = initial;
        b.increment = increment;
        b.max = max;
        return b;
    }
    static constexpr Backoff exponential(Duration initial, double multiplier = kDefaultMultiplier,
                                         Duration max = kDefaultMax) noexcept {
        Backoff b;
        b.type = BackoffType::Exponential;
        b.initial = initial;
        b.multiplier = multiplier;
        b.max = max;
        return b;
    }

    // Base delay before retry `k` (k >= 1; k < 1 is treated as 1).
    Duration base_delay(int k) const noexcept;

    // The delay that jittered delays are clamped to: `max` for linear and exponential.
    std::optional<Duration> cap() const noexcept {
        if (type == BackoffType::Linear || type == BackoffType::Exponential) {
            return max;
        }
        return std::nullopt;
    }

    // Whether the type has an `initial` (decorrelated jitter needs one).
    bool has_initial() const noexcept {
        return type == BackoffType::Linear || type == BackoffType::Exponential;
    }

    friend bool operator==(const Backoff&, const Backoff&) = default;
};

}  // namespace rebound
