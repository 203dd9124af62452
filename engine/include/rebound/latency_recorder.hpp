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
// relaxed atomic increment); about once per bucket width one record also empties the bucket
// after it, ahead of time, which no record or read uses until its time comes. A read sums the
// window's histograms with relaxed loads: it sees every record that happened before it, and of
// the records concurrent with it some subset, so the count and the quantile are those of a set
// of latencies that were all recorded in the window. A read costs one pass over the bins the
// window uses, each summed over the buckets from one or two cache lines, and a walk from the
// nearer end (docs/performance.md, "Latency recorder of learned hedge delays"). One loss is
// possible: a latency recorded into a bucket while another record is emptying that bucket's slot
// (the first record after a bucket in which none was made, or two clocks a bucket apart) may be
// lost.
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

  private:
    // One more slot than the window has buckets: the slot after the current one holds a bucket
    // that has left the window, so it is emptied before its time comes.
    static constexpr int kSlots = kWindowBuckets + 1;
    // A bin's counts, one per slot, side by side: a read sums each bin over the slots of the
    // window from one or two cache lines.
    using BinCounts = std::array<std::atomic<std::uint64_t>, kSlots>;
    // The lowest and highest bins a slot has used since it was emptied, so that reads skip the
    // empty ends.
    struct BinRange {
        std::atomic<int> low{kBins};
        std::atomic<int> high{0};
    };

    std::int64_t bucket_of(TimePoint now) const noexcept;
    // Makes `slot` hold `bucket` (emptying it) unless it already does or holds a later one.
    // Returns whether a latency of `bucket` may be added to it.
    bool claim(int slot, std::int64_t bucket) noexcept;
    // Each bin's count in the window of `now`, for the bins in [low, high] (set here), into
    // `sums`; returns their total.
    using Sums = std::array<std::uint64_t, kBins>;
    std::uint64_t sum_window(TimePoint now, Sums& sums, int& low, int& high) const noexcept;

    const Duration window_;
    const TimePoint origin_;
    const std::int64_t width_us_;
    const double inverse_width_us_;
    // Per slot: the bucket of time it holds and whether it is ready, `bucket << 1 | ready` (not
    // ready while a record empties it).
    alignas(64) std::array<std::atomic<std::int64_t>, kSlots> states_{};
    std::array<BinRange, kSlots> ranges_{};
    std::array<BinCounts, kBins> counts_{};
};

// The hedge delay of a learned `delay` with `warmup`: nullopt while the recorder's window at
// `now` holds fewer than `warmup` latencies, else the delay's quantile clamped to [min, max].
// Allocates nothing and takes no lock.
std::optional<Duration> learned_hedge_delay(const LatencyRecorder& recorder,
                                            const LearnedHedgeDelay& delay, int warmup,
                                            LatencyRecorder::TimePoint now) noexcept;

}  // namespace rebound
