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
//
// A hedged run (docs/hedging.md) has several attempts in flight, so its waits cannot pass at
// once: it sets timers in virtual time (at()), and the test moves time on from one timer to the
// next (advance()) whenever the io_context has nothing left to do:
//
//   while (!done) {
//       io.restart();
//       io.poll();
//       if (!done && !time.advance()) break;  // nothing pending: the run is stuck
//   }
//
// Work can wait in virtual time the same way (a timer whose wake resumes it). Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "rebound/clock.hpp"
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

    Clock::TimePoint now() const noexcept { return clock_->now(); }

    // Sets a timer: advance() calls `wake` once the clock reaches `due` (it should post to the
    // waiter's executor and return). Returns the timer's id, for cancel().
    using Wake = std::function<void()>;
    std::uint64_t at(Clock::TimePoint due, Wake wake) {
        std::lock_guard lock(mutex_);
        const std::uint64_t id = ++last_id_;
        timers_.emplace(std::pair(due, id), std::move(wake));
        return id;
    }
    // Removes a timer that has not fired; nothing for one that has.
    void cancel(std::uint64_t id) {
        std::lock_guard lock(mutex_);
        std::erase_if(timers_, [id](const auto& timer) { return timer.first.second == id; });
    }
    // Moves the clock to the earliest timer (never back) and calls the wakes of every timer due
    // then, in the order they were set. False when no timer is pending.
    bool advance() {
        std::vector<Wake> due;
        {
            std::lock_guard lock(mutex_);
            if (timers_.empty()) {
                return false;
            }
            const Clock::TimePoint next = timers_.begin()->first.first;
            if (next > clock_->now()) {
                clock_->advance(std::chrono::duration_cast<Duration>(next - clock_->now()));
            }
            while (!timers_.empty() && timers_.begin()->first.first <= clock_->now()) {
                due.push_back(std::move(timers_.begin()->second));
                timers_.erase(timers_.begin());
            }
        }
        for (Wake& wake : due) {
            wake();
        }
        return true;
    }
    // Timers set and not yet fired.
    std::size_t pending() const {
        std::lock_guard lock(mutex_);
        return timers_.size();
    }

  private:
    testing::ManualClock* clock_;
    mutable std::mutex mutex_;
    std::vector<Duration> delays_;
    std::map<std::pair<Clock::TimePoint, std::uint64_t>, Wake> timers_;  // by (due, id)
    std::uint64_t last_id_ = 0;
};

}  // namespace rebound::asio
