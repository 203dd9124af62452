#include "rebound/latency_recorder.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "window_bucket.hpp"

namespace rebound {

// The histogram's bins, log-linear as HdrHistogram's: a latency v (whole microseconds) below 32
// has a bin of its own; above, with s = bit_width(v) - 5, v falls in bin 16 * s + (v >> s), one
// of the 16 bins of width 2^s that split [16 * 2^s, 32 * 2^s). A bin answers its middle, within
// 2^(s-1) / (16 * 2^s) = 1/32 of any latency in it.
namespace {

constexpr int kSubBinBits = 4;
constexpr int kSubBins = 1 << kSubBinBits;

constexpr int bin_of(Duration latency) noexcept {
    const auto v =
        static_cast<std::uint64_t>(std::clamp(latency.count(), LatencyRecorder::kMinLatency.count(),
                                              LatencyRecorder::kMaxLatency.count()));
    const int shift = std::max(static_cast<int>(std::bit_width(v)) - (kSubBinBits + 1), 0);
    return shift * kSubBins + static_cast<int>(v >> shift);
}

static_assert(bin_of(LatencyRecorder::kMaxLatency) == LatencyRecorder::kBins - 1);
static_assert(bin_of(Duration{31}) == 31 && bin_of(Duration{32}) == 32);

constexpr Duration value_of(int bin) noexcept {
    const int shift = std::max(bin / kSubBins - 1, 0);
    const std::int64_t lower = static_cast<std::int64_t>(bin - shift * kSubBins) << shift;
    const std::int64_t middle = lower + ((std::int64_t{1} << shift) >> 1);
    return std::min(Duration{middle}, LatencyRecorder::kMaxLatency);
}

static_assert(value_of(bin_of(Duration{1})) == Duration{1});
static_assert(value_of(bin_of(Duration{31})) == Duration{31});
static_assert(value_of(bin_of(Duration{32})) == Duration{33});  // the middle of [32, 33]

// A slot's state word: the bucket of time it holds, and whether it is ready (emptied).
constexpr std::int64_t ready_word(std::int64_t bucket) noexcept {
    return (bucket << 1) | 1;
}
constexpr std::int64_t held_bucket(std::int64_t word) noexcept {
    return word >> 1;
}

void raise_to(std::atomic<int>& word, int bin) noexcept {
    int seen = word.load(std::memory_order_relaxed);
    while (bin > seen && !word.compare_exchange_weak(seen, bin, std::memory_order_relaxed)) {
    }
}

void lower_to(std::atomic<int>& word, int bin) noexcept {
    int seen = word.load(std::memory_order_relaxed);
    while (bin < seen && !word.compare_exchange_weak(seen, bin, std::memory_order_relaxed)) {
    }
}

}  // namespace

LatencyRecorder::LatencyRecorder(Duration window, TimePoint origin)
    : window_(window),
      origin_(origin),
      width_us_(window.count() / kWindowBuckets),
      inverse_width_us_(width_us_ > 0 ? 1.0 / static_cast<double>(width_us_) : 0.0) {
    if (window < kMinWindow) {
        throw std::invalid_argument("a latency window must be at least 10us");
    }
    // Slot i starts as bucket i, empty and ready.
    for (int i = 0; i < kSlots; ++i) {
        states_[static_cast<std::size_t>(i)].store(ready_word(i), std::memory_order_relaxed);
    }
}

std::int64_t LatencyRecorder::bucket_of(TimePoint now) const noexcept {
    const auto since = std::chrono::duration_cast<Duration>(now - origin_).count();
    return detail::bucket_index(std::max<std::int64_t>(since, 0),
                                detail::BucketWidth{width_us_, inverse_width_us_});
}

bool LatencyRecorder::claim(int slot, std::int64_t bucket) noexcept {
    std::atomic<std::int64_t>& state = states_[static_cast<std::size_t>(slot)];
    std::int64_t seen = state.load(std::memory_order_acquire);
    for (;;) {
        const std::int64_t held = held_bucket(seen);
        if (held > bucket) {
            return false;  // reused for a later bucket: the latency's bucket has left the window
        }
        if (held == bucket) {
            return true;  // ready, or being emptied by another record (the documented loss)
        }
        if (state.compare_exchange_weak(seen, bucket << 1, std::memory_order_acq_rel,
                                        std::memory_order_acquire)) {
            break;
        }
    }
    const auto column = static_cast<std::size_t>(slot);
    for (BinCounts& bin : counts_) {
        bin[column].store(0, std::memory_order_relaxed);
    }
    ranges_[column].low.store(kBins, std::memory_order_relaxed);
    ranges_[column].high.store(0, std::memory_order_relaxed);
    state.store(ready_word(bucket), std::memory_order_release);
    return true;
}

void LatencyRecorder::record(Duration latency, TimePoint now) noexcept {
    const std::int64_t bucket = bucket_of(now);
    const auto slot = static_cast<int>(bucket % kSlots);
    if (states_[static_cast<std::size_t>(slot)].load(std::memory_order_acquire) !=
            ready_word(bucket) &&
        !claim(slot, bucket)) {
        return;
    }
    const int bin = bin_of(latency);
    const auto column = static_cast<std::size_t>(slot);
    raise_to(ranges_[column].high, bin);
    lower_to(ranges_[column].low, bin);
    counts_[static_cast<std::size_t>(bin)][column].fetch_add(1, std::memory_order_relaxed);
    // The next bucket's slot holds one that has left the window: empty it before its time.
    const int next = (slot + 1) % kSlots;
    if (held_bucket(states_[static_cast<std::size_t>(next)].load(std::memory_order_relaxed)) <
        bucket + 1) {
        claim(next, bucket + 1);
    }
}

namespace {

// What a read takes from the window: a mask of the slots in it (all ones or zero, per slot) and
// the range of bins they have used.
struct WindowView {
    std::array<std::uint64_t, LatencyRecorder::kWindowBuckets + 1> mask{};
    int low = LatencyRecorder::kBins;
    int high = -1;
};

// The sum of a bin's counts over the slots `mask` keeps, unrolled: the slots' loads and adds
// without a loop's own instructions.
template <typename Counts, typename Mask, std::size_t... Slot>
std::uint64_t masked_sum(const Counts& counts, const Mask& mask,
                         std::index_sequence<Slot...> /*slots*/) noexcept {
    return ((counts[Slot].load(std::memory_order_relaxed) & mask[Slot]) + ...);
}

}  // namespace

// The window's counts at `now`: each bin summed over the slots of the window into `sums`
// (written for the bins in [low, high] only), and their total.
std::uint64_t LatencyRecorder::sum_window(TimePoint now, Sums& sums, int& low,
                                          int& high) const noexcept {
    const std::int64_t current = bucket_of(now);
    WindowView view;
    for (std::size_t slot = 0; slot < kSlots; ++slot) {
        const std::int64_t word = states_[slot].load(std::memory_order_acquire);
        const std::int64_t held = held_bucket(word);
        if ((word & 1) == 0 || held > current || held <= current - kWindowBuckets) {
            continue;
        }
        view.mask[slot] = ~std::uint64_t{0};
        view.low = std::min(view.low, ranges_[slot].low.load(std::memory_order_relaxed));
        view.high = std::max(view.high, ranges_[slot].high.load(std::memory_order_relaxed));
    }
    low = view.low;
    high = std::min(view.high, kBins - 1);
    const int last = high;
    std::uint64_t total = 0;
    for (int bin = low; bin <= last; ++bin) {
        const BinCounts& counts = counts_[static_cast<std::size_t>(bin)];
        const std::uint64_t sum = masked_sum(counts, view.mask, std::make_index_sequence<kSlots>());
        sums[static_cast<std::size_t>(bin)] = sum;
        total += sum;
    }
    return total;
}

std::uint64_t LatencyRecorder::count(TimePoint now) const noexcept {
    Sums sums;
    int low = 0;
    int high = 0;
    return sum_window(now, sums, low, high);
}

std::optional<Duration> LatencyRecorder::quantile(double q, TimePoint now,
                                                  std::uint64_t at_least) const noexcept {
    Sums sums;  // only [low, high] is written and read
    int low = 0;
    int high = 0;
    const std::uint64_t total = sum_window(now, sums, low, high);
    if (total == 0 || total < at_least) {
        return std::nullopt;
    }
    // The rank of the answer: the smallest k with k >= q * total, in [1, total].
    std::uint64_t rank = 1;
    if (q >= 1.0) {
        rank = total;
    } else if (q > 0.0) {
        const double wanted = std::ceil(q * static_cast<double>(total));
        rank = std::clamp(static_cast<std::uint64_t>(wanted), std::uint64_t{1}, total);
    }
    // Walk from the nearer end: the answer is the first bin from below whose cumulative count
    // reaches `rank`, which is the bin from above where the count above it falls below
    // total - rank + 1.
    if (rank <= total / 2) {
        std::uint64_t below = 0;
        for (int bin = low; bin < high; ++bin) {
            below += sums[static_cast<std::size_t>(bin)];
            if (below >= rank) {
                return value_of(bin);
            }
        }
        return value_of(high);
    }
    const std::uint64_t above_wanted = total - rank;  // latencies strictly above the answer's bin
    std::uint64_t above = 0;
    for (int bin = high; bin > low; --bin) {
        above += sums[static_cast<std::size_t>(bin)];
        if (above > above_wanted) {
            return value_of(bin);
        }
    }
    return value_of(low);
}

std::optional<Duration> learned_hedge_delay(const LatencyRecorder& recorder,
                                            const LearnedHedgeDelay& delay, int warmup,
                                            LatencyRecorder::TimePoint now) noexcept {
    const auto at_least = static_cast<std::uint64_t>(std::max(warmup, 1));
    const std::optional<Duration> learned = recorder.quantile(delay.quantile, now, at_least);
    if (!learned) {
        return std::nullopt;
    }
    return std::min(std::max(*learned, delay.min), delay.max);
}

}  // namespace rebound
