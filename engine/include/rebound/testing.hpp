// Test doubles for code that retries through Rebound: tests of your own handlers and policies run
// instantly and see exact delays. Header-only; nothing here is used by the library itself.
//
//   rebound::testing::ManualClock clock;                  // moves only when told
//   rebound::testing::RecordingSleeper sleeper(&clock);   // records each wait, advances the clock
//   rebound::SeededRandomSource random(42);               // the same jitter on every run
//   rebound::RetryExecutor executor({.clock = &clock, .sleeper = &sleeper, .random = &random});
//   ... executor.run(...) ...
//   sleeper.delays();                                     // every wait the policy asked for
//
// ScriptedRandomSource gives chosen jitter instead: each draw the next fraction of its script.
// docs/embedding.md shows a complete test.
#pragma once

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <stop_token>
#include <vector>

#include "rebound/clock.hpp"
#include "rebound/duration.hpp"
#include "rebound/random_source.hpp"
#include "rebound/sleeper.hpp"

namespace rebound::testing {

// A Clock that starts at zero and only moves when advance() is called. Thread-safe.
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

// A Sleeper that does not sleep: it records every requested delay and, when given a clock,
// advances it by the delay, so deadlines behave as in real time. A wait whose stop token is
// already set is recorded and reports a stop (returns false) without advancing. Thread-safe.
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

    // Every delay asked for so far, in order.
    std::vector<Duration> delays() const {
        std::lock_guard lock(mutex_);
        return delays_;
    }

  private:
    ManualClock* clock_;
    mutable std::mutex mutex_;
    std::vector<Duration> delays_;
};

// A RandomSource that returns a script of fractions in [0, 1), cycling, so a test can state exact
// jittered delays: uniform_between(low, high) maps fraction u to low + floor(u * (high - low + 1)).
// An empty script always draws 0. Not thread-safe (one per thread). For reproducible but
// unscripted draws, use rebound::SeededRandomSource (random_source.hpp).
class ScriptedRandomSource final : public RandomSource {
  public:
    ScriptedRandomSource(std::initializer_list<double> fractions) : fractions_(fractions) {}

    std::uint64_t next() noexcept override {
        const double u = fractions_.empty() ? 0.0 : fractions_[draws_ % fractions_.size()];
        ++draws_;
        // u * 2^64, kept below 2^64.
        const double scaled = std::ldexp(u, 64);
        return scaled >= 18446744073709549568.0 ? UINT64_MAX : static_cast<std::uint64_t>(scaled);
    }

    // How many numbers were drawn.
    std::size_t draws() const noexcept { return draws_; }

  private:
    std::vector<double> fractions_;
    std::size_t draws_ = 0;
};

}  // namespace rebound::testing
