// ManualClock: a Clock that only moves when the test says so.
#pragma once

#include <atomic>

#include "rebound/clock.hpp"
#include "rebound/duration.hpp"

namespace rebound::testing {

class ManualClock final : public Clock {
  public:
    TimePoint now() const noexcept override {
        reads_.fetch_add(1);
        return TimePoint{offset_.load()};
    }
    // How many times now() was called.
    int reads() const noexcept { return reads_.load(); }
    void advance(Duration d) noexcept {
        // std::atomic<duration> has no fetch_add: add with a compare-and-swap loop.
        const auto step = std::chrono::duration_cast<TimePoint::duration>(d);
        auto current = offset_.load();
        while (!offset_.compare_exchange_weak(current, current + step)) {
        }
    }

  private:
    std::atomic<TimePoint::duration> offset_{TimePoint::duration::zero()};
    mutable std::atomic<int> reads_{0};
};

}  // namespace rebound::testing
