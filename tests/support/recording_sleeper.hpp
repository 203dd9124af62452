// RecordingSleeper: a Sleeper that does not sleep. It records every requested delay and advances
// a ManualClock by it, so executor tests run instantly with exact timings.
#pragma once

#include <mutex>
#include <vector>

#include "manual_clock.hpp"
#include "rebound/sleeper.hpp"

namespace rebound::testing {

class RecordingSleeper final : public Sleeper {
  public:
    explicit RecordingSleeper(ManualClock* clock = nullptr) : clock_(clock) {}

    bool sleep_for(Duration delay, std::stop_token stop) override {
        std::lock_guard lock(mutex_);
        delays_.push_back(delay);
        if (stop.stop_requested()) {
            return false;
        }
        if (clock_ != nullptr) {
            clock_->advance(delay);
        }
        return true;
    }

    std::vector<Duration> delays() const {
        std::lock_guard lock(mutex_);
        return delays_;
    }

  private:
    ManualClock* clock_;
    mutable std::mutex mutex_;
    std::vector<Duration> delays_;
};

}  // namespace rebound::testing
