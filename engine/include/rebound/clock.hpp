// Clock: the time source of the executor (the decision itself never reads a clock).
#pragma once

#include <chrono>

namespace rebound {

class Clock {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;
    virtual ~Clock() = default;
    // Monotonic time. Must be safe to call from any thread.
    virtual TimePoint now() const noexcept = 0;
};

// std::chrono::steady_clock.
class SteadyClock final : public Clock {
  public:
    TimePoint now() const noexcept override { return std::chrono::steady_clock::now(); }
};

// The process-wide steady clock (stateless).
Clock& default_clock() noexcept;

}  // namespace rebound
