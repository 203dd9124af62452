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

// A slot's state word: the bucket of time it holds (never negative) and what its counts are.
enum class SlotState : std::int64_t {
    Emptying = 0,  // being emptied by claim(): neither recorded into nor read
    Fresh = 1,     // emptied, no latency recorded yet: a read skips it
    Raw = 2,       // recorded into: a read sums its bins
    Summing = 3,   // its groups being summed by keep_house(): a read still sums its bins
    Summed = 4,    // a read takes its group sums
};
constexpr int kStateBits = 3;

constexpr std::int64_t state_word(std::int64_t bucket, SlotState state) noexcept {
    return (bucket << kStateBits) | static_cast<std::int64_t>(state);
}
constexpr std::int64_t held_bucket(std::int64_t word) noexcept {
    return word >> kStateBits;
}
constexpr SlotState state_of(std::int64_t word) noexcept {
    return static_cast<SlotState>(word & ((1 << kStateBits) - 1));
}

constexpr std::size_t index(int i) noexcept {
    return static_cast<std::size_t>(i);
}

// The sum of kGroupBins counts from `bins`, unrolled: the loads and adds without a loop's own
// instructions.
template <std::size_t... Bin>
[[gnu::always_inline]] inline std::uint64_t group_sum(
    const std::atomic<std::uint64_t>* bins, std::index_sequence<Bin...> /*bins*/) noexcept {
    return (bins[Bin].load(std::memory_order_relaxed) + ...);
}

// Adds kGroups group sums from `sums` to `groups`, unrolled.
template <std::size_t... Group>
[[gnu::always_inline]] inline void add_groups(const std::atomic<std::uint64_t>* sums,
                                              std::uint64_t* groups,
                                              std::index_sequence<Group...> /*groups*/) noexcept {
    ((groups[Group] += sums[Group].load(std::memory_order_relaxed)), ...);
}

// The sum of one bin's counts over the slots `mask` keeps (all ones or zero per slot), unrolled.
template <typename Counts, typename Mask, std::size_t... Slot>
std::uint64_t masked_sum(const Counts& counts, std::size_t bin, const Mask& mask,
                         std::index_sequence<Slot...> /*slots*/) noexcept {
    return ((counts[Slot][bin].load(std::memory_order_relaxed) & mask[Slot]) + ...);
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
    // Slot i starts as bucket i, empty.
    for (int i = 0; i < kSlots; ++i) {
        states_[index(i)].store(state_word(i, SlotState::Fresh), std::memory_order_relaxed);
    }
}

std::int64_t LatencyRecorder::bucket_of(TimePoint now) const noexcept {
    const auto since = std::chrono::duration_cast<Duration>(now - origin_).count();
    return detail::bucket_index(std::max<std::int64_t>(since, 0),
                                detail::BucketWidth{width_us_, inverse_width_us_});
}

bool LatencyRecorder::claim(int slot, std::int64_t bucket, std::int64_t ready) noexcept {
    std::atomic<std::int64_t>& state = states_[index(slot)];
    std::int64_t seen = state.load(std::memory_order_acquire);
    do {
        if (held_bucket(seen) >= bucket) {
            return false;  // holds it already, or a later one
        }
    } while (!state.compare_exchange_weak(seen, state_word(bucket, SlotState::Emptying),
                                          std::memory_order_acq_rel, std::memory_order_acquire));
    // The group sums need no emptying: they are written whole before a read takes them.
    for (std::atomic<std::uint64_t>& count : counts_[index(slot)]) {
        count.store(0, std::memory_order_relaxed);
    }
    state.store(state_word(bucket, static_cast<SlotState>(ready)), std::memory_order_release);
    return true;
}

void LatencyRecorder::record(Duration latency, TimePoint now) noexcept {
    const std::int64_t bucket = bucket_of(now);
    const auto slot = static_cast<int>(bucket % kSlots);
    const int bin = bin_of(latency);
    // The common case: a bucket recorded into already.
    if (states_[index(slot)].load(std::memory_order_acquire) ==
        state_word(bucket, SlotState::Raw)) {
        counts_[index(slot)][index(bin)].fetch_add(1, std::memory_order_relaxed);
        return;
    }
    record_slow(bin, bucket, slot);
}

void LatencyRecorder::record_slow(int bin, std::int64_t bucket, int slot) noexcept {
    std::atomic<std::int64_t>& state = states_[index(slot)];
    std::int64_t seen = state.load(std::memory_order_acquire);
    bool first = false;  // this record is the bucket's first: it keeps house
    for (;;) {
        const std::int64_t held = held_bucket(seen);
        if (held > bucket) {
            return;  // reused for a later bucket: the latency's bucket has left the window
        }
        if (held < bucket) {
            first = claim(slot, bucket, static_cast<std::int64_t>(SlotState::Raw));
            if (first) {
                break;
            }
            seen = state.load(std::memory_order_acquire);
            continue;
        }
        if (state_of(seen) != SlotState::Fresh) {
            break;  // recorded into, summed, or being emptied by another record (the loss)
        }
        if (state.compare_exchange_weak(seen, state_word(bucket, SlotState::Raw),
                                        std::memory_order_acq_rel, std::memory_order_acquire)) {
            first = true;
            break;
        }
    }
    counts_[index(slot)][index(bin)].fetch_add(1, std::memory_order_relaxed);
    if (!first && state_of(seen) == SlotState::Summed) {
        // Recorded two buckets or more after its time: reads take the bucket's group sums.
        sums_[index(slot)][index(bin / kGroupBins)].fetch_add(1, std::memory_order_relaxed);
    }
    if (first) {
        keep_house(slot, bucket);
    }
}

void LatencyRecorder::keep_house(int slot, std::int64_t bucket) noexcept {
    // The next bucket's slot holds one that has left the window: empty it before its time.
    claim((slot + 1) % kSlots, bucket + 1, static_cast<std::int64_t>(SlotState::Fresh));
    // Buckets two or more behind this one are recorded into only late: sum their groups once,
    // for reads. (The bucket just behind may still take records of threads whose clock read
    // was just before this one's.)
    for (int other = 0; other < kSlots; ++other) {
        const std::int64_t word = states_[index(other)].load(std::memory_order_acquire);
        const std::int64_t held = held_bucket(word);
        if (state_of(word) == SlotState::Raw && held <= bucket - 2 &&
            held > bucket - kWindowBuckets) {
            sum_groups(other, held);
        }
    }
}

void LatencyRecorder::sum_groups(int slot, std::int64_t bucket) noexcept {
    std::atomic<std::int64_t>& state = states_[index(slot)];
    std::int64_t expected = state_word(bucket, SlotState::Raw);
    if (!state.compare_exchange_strong(expected, state_word(bucket, SlotState::Summing),
                                       std::memory_order_acquire, std::memory_order_relaxed)) {
        return;  // another record sums it, or it moved on
    }
    const SlotCounts& counts = counts_[index(slot)];
    for (std::size_t group = 0; group < kGroups; ++group) {
        sums_[index(slot)][group].store(
            group_sum(&counts[group * kGroupBins], std::make_index_sequence<kGroupBins>()),
            std::memory_order_relaxed);
    }
    expected = state_word(bucket, SlotState::Summing);
    state.compare_exchange_strong(expected, state_word(bucket, SlotState::Summed),
                                  std::memory_order_release, std::memory_order_relaxed);
}

// What a read takes from the window: each group's count, and the slots in the window.
struct LatencyRecorder::Window {
    std::array<std::uint64_t, kGroups> groups{};
    std::array<std::uint64_t, kSlots> mask{};  // per slot: all ones when in the window, else 0
};

std::uint64_t LatencyRecorder::sum_window(TimePoint now, Window& window) const noexcept {
    const std::int64_t current = bucket_of(now);
    for (std::size_t slot = 0; slot < kSlots; ++slot) {
        const std::int64_t word = states_[slot].load(std::memory_order_acquire);
        const std::int64_t held = held_bucket(word);
        const SlotState state = state_of(word);
        if (state == SlotState::Emptying || state == SlotState::Fresh || held > current ||
            held <= current - kWindowBuckets) {
            continue;
        }
        window.mask[slot] = ~std::uint64_t{0};
        if (state == SlotState::Summed) {
            add_groups(sums_[slot].data(), window.groups.data(),
                       std::make_index_sequence<kGroups>());
            continue;
        }
        const SlotCounts& counts = counts_[slot];
        for (std::size_t group = 0; group < kGroups; ++group) {
            window.groups[group] +=
                group_sum(&counts[group * kGroupBins], std::make_index_sequence<kGroupBins>());
        }
    }
    std::uint64_t total = 0;
    for (const std::uint64_t count : window.groups) {
        total += count;
    }
    return total;
}

std::uint64_t LatencyRecorder::count(TimePoint now) const noexcept {
    Window window;
    return sum_window(now, window);
}

std::optional<Duration> LatencyRecorder::quantile(double q, TimePoint now,
                                                  std::uint64_t at_least) const noexcept {
    Window window;
    const std::uint64_t total = sum_window(now, window);
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
    // The answer's group: the first whose cumulative count reaches `rank`.
    std::uint64_t below = 0;
    std::size_t group = 0;
    while (group + 1 < kGroups && below + window.groups[group] < rank) {
        below += window.groups[group];
        ++group;
    }
    // Its bin: the first whose cumulative count, each bin summed over the window, reaches
    // `rank`. (Counts that change during the read may leave the group short of it: its last
    // bin answers.)
    const std::size_t first = group * kGroupBins;
    const std::size_t last = std::min<std::size_t>(first + kGroupBins, kBins) - 1;
    for (std::size_t bin = first; bin < last; ++bin) {
        below += masked_sum(counts_, bin, window.mask, std::make_index_sequence<kSlots>());
        if (below >= rank) {
            return value_of(static_cast<int>(bin));
        }
    }
    return value_of(static_cast<int>(last));
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
