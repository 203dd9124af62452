// LatencyRecorder: the latencies of one handler's attempts over a sliding window, from which a
// learned hedge delay is read (docs/hedging.md, "Learned delay").
//
// One recorder per (service, handler), kept for the life of the process. The caller records the
// latency of an attempt when it ends (a success's latency, `attempt_timeout` for a timeout; fast
// failures and cancelled attempts are not recorded) and reads a quantile of the last `window`.
//
// The window is 10 buckets of window / 10 each, aligned to the recorder's origin, as the circuit
// breaker's: at time t, the buckets of [origin + (b - 9) * w, origin + (b + 1) * w) where b is the
// bucket of t and w = window / 10 (whole microseconds), so a latency is forgotten exactly 10
// bucket widths after the start of the bucket it was recorded in. Each bucket is a log-linear
// histogram (16 bins per power of two, as HdrHistogram's): a quantile is within 3.2% of the exact
// one (at most 5% is the contract) for latencies from 1 us to 1 h; shorter ones count as 1 us,
// longer as 1 h.
//
// Concurrency contract: every member function is safe from many threads at once. record() takes
// no lock and allocates nothing: it finds its bucket by one load and adds to one counter (a
// relaxed atomic increment). The first record of a bucket also does the bucket's housekeeping:
// it empties the bucket after it, ahead of time, which no record or read uses until its time
// comes, and sums the counts of each bucket two or more behind it (which records no longer reach
// but late) per group of 16 bins. A read sums the window's counts with relaxed loads: it sees
// every record that happened before it, and of the records concurrent with it some subset, so
// the count and the quantile are those of a set of latencies that were all recorded in the
// window. A read adds the group sums of the summed buckets and the bins of the two newest ones,
// finds the group of the quantile, then sums that group's 16 bins over the window
// (docs/performance.md, "Latency recorder of learned hedge delays"). One loss is possible: a
// latency recorded into a bucket while another record is emptying or summing that bucket (the
// first record after a bucket in which none was made, two clocks a bucket apart, or a record
// made two bucket widths after its time) may be lost.
// Times are given by the caller (read from its clock), so tests run in virtual time; a latency
// recorded at a time whose bucket has already been reused is dropped.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <optional>

#include "rebound/clock.hpp"
#include "rebound/duration.hpp"
#include "rebound/hedge.hpp"

namespace rebound {

class LatencyRecorder {
  public:
    using TimePoint = Clock::TimePoint;

    static constexpr int kWindowBuckets = 10;
    // The range within which a quantile is within 5%; latencies outside are clamped to it.
    static constexpr Duration kMinLatency{1};
    static constexpr Duration kMaxLatency = std::chrono::hours(1);
    // The shortest window: 10 buckets of 1 us.
    static constexpr Duration kMinWindow{kWindowBuckets};

    // A recorder of the last `window` (>= kMinWindow, else std::invalid_argument), its buckets
    // aligned to `origin` (times before it count as `origin`).
    LatencyRecorder(Duration window, TimePoint origin);

    LatencyRecorder(const LatencyRecorder&) = delete;
    LatencyRecorder& operator=(const LatencyRecorder&) = delete;

    Duration window() const noexcept { return window_; }

    // Records an attempt's latency that ended at `now`. No lock, no allocation.
    void record(Duration latency, TimePoint now) noexcept;

    // How many latencies the window of `now` holds.
    std::uint64_t count(TimePoint now) const noexcept;

    // The smallest latency v such that at least `q` of the window's latencies are <= v (within
    // 5%), for q in (0, 1] (q <= 0 reads as the smallest latency, q > 1 as 1); nullopt when the
    // window holds fewer than `at_least` latencies (and always when it holds none). Allocates
    // nothing and takes no lock.
    std::optional<Duration> quantile(double q, TimePoint now,
                                     std::uint64_t at_least = 1) const noexcept;

    // The bins of a bucket's histogram: 1 us to 1 h, 16 per power of two.
    static constexpr int kBins = 459;
    // The bins are summed in groups of kGroupBins (one power of two each, above 32 us).
    static constexpr int kGroupBins = 16;
    static constexpr int kGroups = (kBins + kGroupBins - 1) / kGroupBins;

  private:
    // One more slot than the window has buckets: the slot after the current one holds a bucket
    // that has left the window, so it is emptied before its time comes.
    static constexpr int kSlots = kWindowBuckets + 1;
    // A slot's counts, bin by bin (the bins past kBins stay 0, so every group has kGroupBins).
    using SlotCounts = std::array<std::atomic<std::uint64_t>, std::size_t{kGroups} * kGroupBins>;
    // A slot's counts summed per group, valid while the slot's state says so.
    using GroupSums = std::array<std::atomic<std::uint64_t>, kGroups>;
    struct Window;  // what a read takes from the slots (latency_recorder.cpp)

    std::int64_t bucket_of(TimePoint now) const noexcept;
    void record_slow(int bin, std::int64_t bucket, int slot) noexcept;
    // Makes `slot` hold `bucket`, emptied, in state `ready` unless it already holds it or a
    // later one. Returns whether this call emptied it.
    bool claim(int slot, std::int64_t bucket, std::int64_t ready) noexcept;
    // The first record of `bucket` empties the slot after it and sums the older buckets.
    void keep_house(int slot, std::int64_t bucket) noexcept;
    void sum_groups(int slot, std::int64_t bucket) noexcept;
    // The group sums of the window at `now` into `window`; returns their total.
    std::uint64_t sum_window(TimePoint now, Window& window) const noexcept;

    const Duration window_;
    const TimePoint origin_;
    const std::int64_t width_us_;
    const double inverse_width_us_;
    // Per slot: the bucket of time it holds and its state (latency_recorder.cpp),
    // `bucket << 3 | state`.
    alignas(64) std::array<std::atomic<std::int64_t>, kSlots> states_{};
    std::array<GroupSums, kSlots> sums_{};
    alignas(64) std::array<SlotCounts, kSlots> counts_{};
};

// The hedge delay of a learned `delay` with `warmup`: nullopt while the recorder's window at
// `now` holds fewer than `warmup` latencies, else the delay's quantile clamped to [min, max].
// Allocates nothing and takes no lock.
std::optional<Duration> learned_hedge_delay(const LatencyRecorder& recorder,
                                            const LearnedHedgeDelay& delay, int warmup,
                                            LatencyRecorder::TimePoint now) noexcept;

}  // namespace rebound
