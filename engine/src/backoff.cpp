#include "rebound/backoff.hpp"

#include <cmath>

namespace rebound {
namespace {

Duration linear_delay(Duration initial, Duration increment, Duration max, int k) noexcept {
    if (initial >= max) {
        return max;
    }
    if (increment <= Duration::zero()) {
        return initial;
    }
    const auto steps = static_cast<std::int64_t>(k - 1);
    const std::int64_t room = (max - initial).count();
    // steps * increment would pass max: answer max without computing the product.
    if (steps > room / increment.count()) {
        return max;
    }
    return initial + Duration{steps * increment.count()};
}

Duration exponential_delay(Duration initial, double multiplier, Duration max, int k) noexcept {
    if (initial >= max) {
        return max;
    }
    if (initial <= Duration::zero()) {
        return Duration{0};
    }
    // pow overflows to +inf for large k; saturating_scale maps inf to max.
    return saturating_scale(initial, std::pow(multiplier, k - 1), max);
}

}  // namespace

Duration Backoff::base_delay(int k) const noexcept {
    if (k < 1) {
        k = 1;
    }
    switch (type) {
        case BackoffType::Fixed:
            return delay < Duration::zero() ? Duration{0} : delay;
        case BackoffType::Linear:
            return linear_delay(initial, increment, max, k);
        case BackoffType::Exponential:
            return exponential_delay(initial, multiplier, max, k);
        case BackoffType::None:
            break;
    }
    return Duration{0};
}

}  // namespace rebound
