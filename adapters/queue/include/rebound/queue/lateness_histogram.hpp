// LatenessHistogram: how late due retries start (attempt start - due_at), for p50/p99 reports.
//
// Log-linear buckets: eight per power of two of microseconds, so a percentile is the upper bound
// of its bucket, at most 12.5% above the true value. Lock-free; record() never allocates or
// throws. Values from 0 to 2^40 microseconds (about 12 days); larger ones count in the last
// bucket.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace rebound::queue {

class LatenessHistogram {
  public:
    void record(std::int64_t microseconds) noexcept;
    std::uint64_t count() const noexcept;
    // The sum of the recorded values (negative ones count as 0), in microseconds.
    std::uint64_t sum_microseconds() const noexcept;
    // The smallest bucket bound at or below which a fraction `q` (0..1) of the values lie; 0
    // when nothing was recorded.
    std::int64_t percentile(double q) const noexcept;

  private:
    static constexpr std::size_t kSubBuckets = 8;
    static constexpr std::size_t kBuckets = 41 * kSubBuckets;
    static std::size_t bucket_of(std::uint64_t value) noexcept;
    static std::int64_t upper_bound_of(std::size_t bucket) noexcept;

    std::array<std::atomic<std::uint64_t>, kBuckets> buckets_{};
    std::atomic<std::uint64_t> sum_{0};
};

}  // namespace rebound::queue
