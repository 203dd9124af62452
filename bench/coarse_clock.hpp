// The time for benchmarks of the engine's windows: the steady clock, read every 64th call. The
// threads read one clock, as in a service, so they are in the same bucket of a window (a time
// counted per thread drifted apart by whole buckets within a run, which no service does), and
// the clock's own cost (a vDSO call) stays out of the comparison.
#pragma once

#include <chrono>
#include <cstdint>

#include "rebound/clock.hpp"

namespace rebound::bench {

class CoarseClock {
  public:
    Clock::TimePoint now() noexcept {
        if ((calls_++ & 63) == 0) {
            now_ = std::chrono::steady_clock::now();
        }
        return now_;
    }

  private:
    std::uint64_t calls_ = 0;
    Clock::TimePoint now_{};
};

}  // namespace rebound::bench
