// HandlerLatencies: one service's latency recorders, one per handler, kept for the life of the
// object (in a service: of the process), from which hedged runs read their learned delay
// (docs/hedging.md, "Learned delay").
//
// It is the HedgeLatencies a hedged run reads (ExecutorOptions::hedge_latencies): a run of
// a handler whose policy hedges with a learned delay reads its delay once when its first attempt
// starts, and records the latency of each attempt that succeeded (attempt_timeout for one that
// timed out) when it ends. Times are read from the clock given at construction.
//
// A handler's recorder is made by the first hedge_delay() for it, with the window of its
// policy's hedge (HedgeSettings::window_or_default()), and made anew, empty, when a reload
// changes that window. record() for a handler without a recorder (no learned delay has been read
// for it) records nothing.
//
// Concurrency contract: every member function is safe from many threads at once. Finding a
// handler's recorder takes no lock and allocates nothing (a lookup in an immutable index, swapped
// whole when a handler is added); making a recorder, once per handler and window, takes the
// object's mutex and allocates (if that allocation fails, hedge_delay() answers none). Recorders
// and indexes are never freed before the object, so a lookup never sees one freed.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "rebound/clock.hpp"
#include "rebound/duration.hpp"
#include "rebound/hedge.hpp"
#include "rebound/hedge_latencies.hpp"
#include "rebound/latency_recorder.hpp"

namespace rebound {

class HandlerLatencies final : public HedgeLatencies {
  public:
    // `clock` must outlive the object.
    explicit HandlerLatencies(const Clock& clock = default_clock());
    ~HandlerLatencies() override;

    HandlerLatencies(const HandlerLatencies&) = delete;
    HandlerLatencies& operator=(const HandlerLatencies&) = delete;

    // The delay of a run of `handler` under `hedge` now: learned_hedge_delay() of the handler's
    // recorder (none while its window holds fewer than warmup latencies); none when `hedge` has
    // no learned delay.
    std::optional<Duration> hedge_delay(std::string_view handler,
                                        const HedgeSettings& hedge) const noexcept override;

    // Records the latency of an attempt of `handler` that ended now.
    void record(std::string_view handler, Duration latency) noexcept override;

    // The handler's recorder, or null when none has been made.
    const LatencyRecorder* recorder(std::string_view handler) const noexcept;

  private:
    struct Index;
    LatencyRecorder* find(std::string_view handler) const noexcept;
    // The handler's recorder with `window`, made (or made anew) under the mutex; null when the
    // allocation fails.
    LatencyRecorder* make(std::string_view handler, Duration window) const noexcept;

    const Clock& clock_;
    mutable std::atomic<const Index*> index_;
    mutable std::mutex mutex_;  // guards the two lists below and the making of recorders
    mutable std::vector<std::unique_ptr<LatencyRecorder>> recorders_;
    mutable std::vector<std::unique_ptr<const Index>> indexes_;
};

}  // namespace rebound
