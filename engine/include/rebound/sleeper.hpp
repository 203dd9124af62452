// Sleeper: how the executor waits between attempts.
//
// A wait must end early when its stop token is triggered, so that cancelling a retrying operation
// takes effect at once rather than after the backoff delay.
#pragma once

#include <stop_token>

#include "rebound/duration.hpp"

namespace rebound {

class Sleeper {
  public:
    virtual ~Sleeper() = default;
    // Waits for `delay` or until `stop` is requested, whichever comes first.
    // Returns true when the full delay passed, false when the wait was cancelled.
    // Must be safe to call from many threads at once.
    virtual bool sleep_for(Duration delay, std::stop_token stop) = 0;
};

// Blocks the calling thread on a condition variable that the stop token wakes.
class ThreadSleeper final : public Sleeper {
  public:
    bool sleep_for(Duration delay, std::stop_token stop) override;
};

// The process-wide thread sleeper (stateless).
Sleeper& default_sleeper() noexcept;

}  // namespace rebound
