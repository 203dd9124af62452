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
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "rebound/duration.hpp"
#include "rebound/retry_metrics.hpp"

namespace rebound::detail {

// The durations of bit width w, [2^(w-1), 2^w): the bucket of those below or at `bound`,
// the one bound of kDurationBuckets among them (else the range's top, so that none is
// above it); those above it are in the next bucket.
struct BitWidthBucket {
    std::size_t bucket = 0;
    std::int64_t bound = 0;
};
inline constexpr std::array<BitWidthBucket, 64> kBitWidthBuckets = [] {
    std::array<BitWidthBucket, 64> table{};
    for (std::size_t width = 0; width < table.size(); ++width) {
        const std::int64_t low = width == 0 ? 0 : std::int64_t{1} << (width - 1);
        const std::int64_t high = low + (low > 0 ? low - 1 : 0);  // 2^w - 1, without overflow
        std::size_t below = 0;                                    // bounds below the range
        while (below < kDurationBuckets.size() && kDurationBuckets[below] < low) {
            ++below;
        }
        table[width].bucket = below;
        table[width].bound = high;
        if (below < kDurationBuckets.size() && kDurationBuckets[below] <= high) {
            table[width].bound = kDurationBuckets[below];
        }
    }
    return table;
}();

struct HistogramCounts {
    std::array<std::atomic<std::uint64_t>, kDurationBuckets.size() + 1> buckets{};  // last: +Inf
    std::atomic<std::int64_t> sum_microseconds{0};

    // The bucket of a duration of `microseconds` (not negative): the first whose bound is at
    // least it, that is the number of bounds below it. Each power of two holds at most one bound
    // (checked below), so the bucket is that of the power of two the duration falls in, or the
    // next when it is above the bound there: a table look-up by bit width and one comparison,
    // without branches.
    static constexpr std::size_t bucket_of(std::int64_t microseconds) noexcept {
        const auto width =
            static_cast<std::size_t>(std::bit_width(static_cast<std::uint64_t>(microseconds)));
        const BitWidthBucket& range = kBitWidthBuckets[width];
        return range.bucket + static_cast<std::size_t>(microseconds > range.bound);
    }

    // Whether bucket_of() agrees with counting the bounds below each duration at and around
    // every bound and power of two (so no power of two holds two bounds).
    static constexpr bool bucket_of_counts_bounds() noexcept {
        const auto counted = [](std::int64_t microseconds) {
            std::size_t below = 0;
            for (const std::int64_t bound : kDurationBuckets) {
                below += static_cast<std::size_t>(bound < microseconds);
            }
            return below;
        };
        const auto agrees = [&](std::int64_t microseconds) {
            return microseconds < 0 || bucket_of(microseconds) == counted(microseconds);
        };
        for (const std::int64_t bound : kDurationBuckets) {
            if (!agrees(bound - 1) || !agrees(bound) || !agrees(bound + 1)) {
                return false;
            }
        }
        for (int width = 0; width < 63; ++width) {
            const std::int64_t power = std::int64_t{1} << width;
            if (!agrees(power - 1) || !agrees(power) || !agrees(power + 1)) {
                return false;
            }
        }
        return true;
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

static_assert(HistogramCounts::bucket_of_counts_bounds());

// The `_bucket`, `_sum` and `_count` lines of `name` with `labels` (`handler="...",outcome=
// "..."`) for the total of `parts`, or nothing when they observed no duration.
void render_histogram(std::string& out, std::string_view name, std::string_view labels,
                      std::span<const HistogramCounts* const> parts);

}  // namespace rebound::detail
