// HistogramCounts: the counts of one series of a Prometheus histogram of durations, over the
// fixed buckets of kDurationBuckets (retry_metrics.hpp). Private to rebound::engine.
//
// observe() never allocates or locks. Buckets are kept apart, not cumulative, and the count is
// their total, so a rendering always has `_count` equal to the `+Inf` bucket however
// observations interleave with it. A series may be kept in several parts (one per thread stripe,
// thread_stripe.hpp, and one that threads share), which render_histogram() adds up.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "rebound/duration.hpp"
#include "rebound/retry_metrics.hpp"

namespace rebound::detail {

struct HistogramCounts {
    std::array<std::atomic<std::uint64_t>, kDurationBuckets.size() + 1> buckets{};  // last: +Inf
    std::atomic<std::int64_t> sum_microseconds{0};

    // The bucket of a duration of `microseconds` (not negative): the first whose bound is at
    // least it, that is the number of bounds below it. A binary search in four fixed steps and a
    // last comparison, written out so that it compiles to conditional moves, without branches.
    static std::size_t bucket_of(std::int64_t microseconds) noexcept {
        static_assert(kDurationBuckets.size() == 16, "steps of 8, 4, 2 and 1, then the last");
        std::size_t below = 0;
        const auto step = [&](std::size_t width) {
            below += microseconds > kDurationBuckets[below + width - 1] ? width : std::size_t{0};
        };
        step(8);
        step(4);
        step(2);
        step(1);
        return below + static_cast<std::size_t>(microseconds > kDurationBuckets[below]);
    }

    // Counts one duration of `microseconds` (not negative) in `bucket` (bucket_of()).
    // `exclusive`: no other thread writes these counts, so each is updated with a load and a
    // store; otherwise with an atomic addition.
    void observe(std::size_t bucket, std::int64_t microseconds, bool exclusive) noexcept {
        add(buckets[bucket], std::uint64_t{1}, exclusive);
        add(sum_microseconds, microseconds, exclusive);
    }

  private:
    template <typename T>
    static void add(std::atomic<T>& word, T value, bool exclusive) noexcept {
        if (exclusive) {
            word.store(word.load(std::memory_order_relaxed) + value, std::memory_order_relaxed);
        } else {
            word.fetch_add(value, std::memory_order_relaxed);
        }
    }
};

// The `_bucket`, `_sum` and `_count` lines of `name` with `labels` (`handler="...",outcome=
// "..."`) for the total of `parts`, or nothing when they observed no duration.
void render_histogram(std::string& out, std::string_view name, std::string_view labels,
                      std::span<const HistogramCounts* const> parts);

}  // namespace rebound::detail
