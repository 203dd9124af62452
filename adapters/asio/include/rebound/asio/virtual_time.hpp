// VirtualTime: waits of the asynchronous executor that take no real time, for tests
// (docs/async.md, Testing in virtual time).
//
//   rebound::testing::ManualClock clock;
//   rebound::asio::VirtualTime time(clock);
//   rebound::asio::RetryExecutor executor({.clock = &clock}, &time);
//
// Each wait of a run under that executor is recorded, advances the clock by its delay (so that
// deadlines and breakers see the time pass) and resumes the run through a post on its executor:
// the run stays asynchronous, yet no timer is armed. Attempt timeouts still use real timers.
// Thread-safe.
#pragma once

#include <mutex>
#include <vector>

#include "rebound/duration.hpp"
#include "rebound/testing.hpp"

namespace rebound::asio {

class VirtualTime {
  public:
    explicit VirtualTime(testing::ManualClock& clock) noexcept : clock_(&clock) {}

    // Records a wait of `delay` and advances the clock by it.
    void pass(Duration delay) {
        std::lock_guard lock(mutex_);
        delays_.push_back(delay);
        clock_->advance(delay);
    }

    // Every wait so far, in order.
    std::vector<Duration> delays() const {
        std::lock_guard lock(mutex_);
        return delays_;
    }

  private:
    testing::ManualClock* clock_;
    mutable std::mutex mutex_;
    std::vector<Duration> delays_;
};

}  // namespace rebound::asio
