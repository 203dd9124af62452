#include "rebound/duration.hpp"

#include <cmath>

namespace rebound {

Duration saturating_scale(Duration a, double factor, Duration cap) noexcept {
    const double product = static_cast<double>(a.count()) * factor;
    // NaN fails both comparisons and ends up at 0, never propagating.
    if (!(product > 0.0)) {
        return Duration{0};
    }
    if (!(product < static_cast<double>(cap.count()))) {
        return cap;
    }
    return Duration{std::llround(product)};
}

}  // namespace rebound
