// PeriodicTurn: a step that one pool does once per period, whichever of its threads is free first
// (docs/queue.md, "Lease expiry"). The pool settles expired leases this way: once per quarter
// lease for the whole pool, not once per thread, so that its threads do not settle the same
// leases at the same moments and leave claims waiting behind them.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace rebound::queue::detail {

class PeriodicTurn {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;
    using Duration = std::chrono::steady_clock::duration;

    // Precondition: every > 0.
    explicit PeriodicTurn(Duration every) noexcept : every_(every.count()) {}

    // Whether the caller takes the turn at `now`: true for exactly one caller once the turn is
    // due (the first call, then `every` after the last turn taken), false for the others. A turn
    // taken and then not done (its thread failed) is not given again before the next period.
    // Lock-free; thread-safe.
    bool take(TimePoint now) noexcept {
        const std::int64_t at = now.time_since_epoch().count();
        std::int64_t due = next_.load(std::memory_order_relaxed);
        while (at >= due) {
            if (next_.compare_exchange_weak(due, at + every_, std::memory_order_relaxed)) {
                return true;
            }
        }
        return false;
    }

  private:
    std::int64_t every_;
    std::atomic<std::int64_t> next_{INT64_MIN};  // the first call takes the turn
};

}  // namespace rebound::queue::detail
