// The bucket of a sliding window that a time falls in, for the engine's windows of 10 buckets
// (the circuit breaker's outcome counts, the latency recorder's histograms). Private to
// rebound::engine.
#pragma once

#include <algorithm>
#include <cstdint>

namespace rebound::detail {

// A bucket width in microseconds with its inverse, so that the hot path finds a bucket without
// dividing.
struct BucketWidth {
    std::int64_t us = 1;      // >= 1
    double inverse_us = 1.0;  // 1 / us

    static BucketWidth of(std::int64_t width_us) noexcept {
        const std::int64_t us = std::max<std::int64_t>(width_us, 1);
        return {us, 1.0 / static_cast<double>(us)};
    }
};

// since / width for since >= 0, without the division that would be the hot path's costliest
// step: below 2^52 the product is within one of the quotient, and the two comparisons make it
// exact.
inline std::int64_t bucket_index(std::int64_t since, BucketWidth width) noexcept {
    if (since >= (std::int64_t{1} << 52)) {
        return since / width.us;
    }
    auto bucket = static_cast<std::int64_t>(static_cast<double>(since) * width.inverse_us);
    if (bucket * width.us > since) {
        --bucket;
    } else if ((bucket + 1) * width.us <= since) {
        ++bucket;
    }
    return bucket;
}

}  // namespace rebound::detail
