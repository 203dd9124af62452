// The circuit breaker's closed-state cost: admit plus record of one call, on one thread and on two
// threads sharing one breaker, against a model of the usual design (Resilience4j's sliding
// window): a mutex-guarded ring of the last N outcomes with running counts.
//
// Both sides record the same outcomes (every 16th call fails, far below the trip ratio, so both
// stay closed) and read the time the same way, so the comparison is the bookkeeping alone. Each
// benchmark counts operator new calls and reports them per call.
#include <benchmark/benchmark.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

#include "allocation_counter.hpp"
#include "coarse_clock.hpp"
#include "rebound/circuit_breaker.hpp"

namespace {

using namespace std::chrono_literals;

rebound::BreakerSettings closed_settings() {
    rebound::BreakerSettings s;
    s.name = "bench";
    s.failure_ratio = 0.5;
    s.minimum_calls = 100;
    s.window = 1s;  // buckets of 100ms: a run rotates through several
    return s;
}

const rebound::ErrorDescription kFailure =
    rebound::ErrorDescription::of(rebound::ErrorCategory::ConnectionLost);

// The breaker shared by every thread of one benchmark run.
rebound::CircuitBreaker& shared_breaker() {
    static rebound::CircuitBreaker breaker(closed_settings(), rebound::Clock::TimePoint{});
    return breaker;
}

// Resilience4j-style count-based window: the last `size` outcomes in a ring, under one mutex.
class MutexRingBreaker {
  public:
    bool acquire() {
        const std::lock_guard lock(mutex_);
        return !open_;
    }
    void record(bool failed) {
        const std::lock_guard lock(mutex_);
        const bool evicted = ring_[next_];
        if (filled_ == ring_.size()) {
            failures_ -= evicted ? 1 : 0;
        } else {
            ++filled_;
        }
        ring_[next_] = failed;
        failures_ += failed ? 1 : 0;
        next_ = (next_ + 1) % ring_.size();
        if (filled_ >= 100 && failures_ * 2 >= filled_) {
            open_ = true;
        }
    }

  private:
    std::mutex mutex_;
    std::array<bool, 100> ring_{};
    std::size_t next_ = 0;
    std::size_t filled_ = 0;
    std::size_t failures_ = 0;
    bool open_ = false;
};

MutexRingBreaker& shared_ring() {
    static MutexRingBreaker ring;
    return ring;
}

using rebound::bench::CoarseClock;

void report_allocations(benchmark::State& state, std::size_t before) {
    const auto calls = static_cast<double>(state.iterations());
    const auto made = rebound::testing::allocations_on_this_thread() - before;
    state.counters["allocs_per_call"] = calls > 0 ? static_cast<double>(made) / calls : 0.0;
}

void BM_breaker_closed_admit_record(benchmark::State& state) {
    rebound::CircuitBreaker& breaker = shared_breaker();
    CoarseClock clock;
    const std::size_t allocations = rebound::testing::allocations_on_this_thread();
    std::uint64_t call = 0;
    for (auto _ : state) {
        const auto now = clock.now();
        const rebound::BreakerPermit permit = breaker.acquire(now);
        if ((++call & 15) == 0) {
            breaker.record_error(permit, kFailure, now);
        } else {
            breaker.record_success(permit, 1ms, now);
        }
        benchmark::DoNotOptimize(permit);
    }
    state.SetItemsProcessed(state.iterations());
    report_allocations(state, allocations);
}

void BM_mutex_ring_admit_record(benchmark::State& state) {
    MutexRingBreaker& ring = shared_ring();
    CoarseClock clock;
    const std::size_t allocations = rebound::testing::allocations_on_this_thread();
    std::uint64_t call = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(clock.now());  // the same clock reads as above
        const bool admitted = ring.acquire();
        ring.record((++call & 15) == 0);
        benchmark::DoNotOptimize(admitted);
    }
    state.SetItemsProcessed(state.iterations());
    report_allocations(state, allocations);
}

}  // namespace

BENCHMARK(BM_breaker_closed_admit_record)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_mutex_ring_admit_record)->Threads(1)->Threads(2)->UseRealTime();

BENCHMARK_MAIN();
