#include "rebound/queue/lateness_histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace rebound::queue {

// Values below kSubBuckets have a bucket each; above, bucket = 8 * (exponent - 2) + the three bits
// after the leading one.
std::size_t LatenessHistogram::bucket_of(std::uint64_t value) noexcept {
    if (value < kSubBuckets) {
        return static_cast<std::size_t>(value);
    }
    const int exponent = static_cast<int>(std::bit_width(value)) - 1;  // >= 3
    const std::uint64_t mantissa = (value >> (exponent - 3)) & (kSubBuckets - 1);
    const std::size_t bucket = kSubBuckets * static_cast<std::size_t>(exponent - 2) + mantissa;
    return std::min(bucket, kBuckets - 1);
}

std::int64_t LatenessHistogram::upper_bound_of(std::size_t bucket) noexcept {
    if (bucket < kSubBuckets) {
        return static_cast<std::int64_t>(bucket);
    }
    const std::size_t exponent = bucket / kSubBuckets + 2;
    const std::uint64_t mantissa = bucket % kSubBuckets;
    const std::uint64_t low = (kSubBuckets + mantissa) << (exponent - 3);
    return static_cast<std::int64_t>(low + (std::uint64_t{1} << (exponent - 3)) - 1);
}

void LatenessHistogram::record(std::int64_t microseconds) noexcept {
    const std::uint64_t value = microseconds < 0 ? 0 : static_cast<std::uint64_t>(microseconds);
    buckets_[bucket_of(value)].fetch_add(1, std::memory_order_relaxed);
    sum_.fetch_add(value, std::memory_order_relaxed);
}

std::uint64_t LatenessHistogram::sum_microseconds() const noexcept {
    return sum_.load(std::memory_order_relaxed);
}

std::uint64_t LatenessHistogram::count() const noexcept {
    std::uint64_t total = 0;
    for (const auto& bucket : buckets_) {
        total += bucket.load(std::memory_order_relaxed);
    }
    return total;
}

std::int64_t LatenessHistogram::percentile(double q) const noexcept {
    const std::uint64_t total = count();
    if (total == 0) {
        return 0;
    }
    const double clamped = std::clamp(q, 0.0, 1.0);
    const auto rank = std::max<std::uint64_t>(
        1, static_cast<std::uint64_t>(std::ceil(clamped * static_cast<double>(total))));
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < kBuckets; ++i) {
        seen += buckets_[i].load(std::memory_order_relaxed);
        if (seen >= rank) {
            return upper_bound_of(i);
        }
    }
    return upper_bound_of(kBuckets - 1);
}

}  // namespace rebound::queue
