// HedgeLatencies: where a hedged run reads a learned hedge delay and records attempt latencies
// (docs/hedging.md; spec hedging.md, "Learned delay"). The latency recorder implements it;
// a run without one has no timed hedge under a learned delay.
//
// Both functions are called from the run's driver, possibly from many runs and threads at once:
// implementations must be thread-safe, must not throw and should neither allocate nor lock.
#pragma once

#include <optional>
#include <string_view>

#include "rebound/duration.hpp"
#include "rebound/hedge.hpp"

namespace rebound {

class HedgeLatencies {
  public:
    virtual ~HedgeLatencies() = default;
    // The delay D of a run of `handler` under `hedge` (a learned delay), read once when its
    // first attempt starts: the quantile of the latencies recorded in the window, clamped to
    // [min, max]; none while the window holds fewer than `warmup` latencies.
    virtual std::optional<Duration> hedge_delay(std::string_view handler,
                                                const HedgeSettings& hedge) const noexcept = 0;
    // Records the latency of an attempt of `handler` that succeeded, or attempt_timeout for one
    // that timed out, when it ended. Failures and cancelled attempts are not recorded.
    virtual void record(std::string_view handler, Duration latency) noexcept = 0;
};

}  // namespace rebound
