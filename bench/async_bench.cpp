// Benchmarks of the asynchronous executor of rebound::asio (docs/async.md), beside baselines in
// the same run.
//
// Cases:
//   async_overhead/hand_loop            a hand-written coroutine retry loop (try the awaitable,
//                                       wait on a steady_timer after a failure) awaited from a
//                                       coroutine, the work succeeding at once: the baseline
//   async_overhead/executor_run_value   rebound::asio::RetryExecutor::run_value(*policy, work)
//                                       doing the same: the policy by reference (kept by the
//                                       caller, as the hand loop keeps its limits in code), the
//                                       value returned and the last error thrown, as the hand
//                                       loop does: the cheapest form
//                                       goal: executor_run_value <= 1.2 x hand_loop
//   async_overhead/executor_run         RetryExecutor::run(*policy, work, result, use_awaitable):
//                                       the same with the caller's Result<int> filled in place
//   async_overhead/executor_run_returned
//                                       the same with the Result<int> returned by the co_await
//   async_overhead/executor_run_shared  the same under the policy's std::shared_ptr (with
//                                       RunOptions), for comparison
//   async_overhead/blocking_run         rebound::RetryExecutor::run of the same work (a plain
//                                       function), for comparison
//   async_attempts/executor_run_4       four attempts (three failures), waits in virtual time
//   async_attempts/blocking_run_4       the same through the blocking executor and a sleeper
//                                       that does not sleep
//   async_waiting/hand_loop             100,000 hand-written loops waiting on their timers at
//                                       once on one thread: RSS growth per waiting loop
//   async_waiting/executor_run          100,000 runs of the executor waiting at once, each
//                                       co_spawned with a cancellation slot as the hand loops are:
//                                       RSS growth per waiting run (counter bytes_per_run)
//                                       goal: executor_run - hand_loop <= 1 KiB per run
//   async_waiting/executor_run_value    the same through run_value(*policy, work)
//   async_waiting/executor_run_stop_token
//                                       the same runs started with a callback and a stop token
//                                       (a strand and a RunCanceller each), for comparison
#include <benchmark/benchmark.h>

#include <asio/bind_cancellation_slot.hpp>
#include <asio/bind_executor.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <cstdio>
#include <stop_token>

#include "rebound/asio.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;

namespace {

std::shared_ptr<const rebound::Policy> bench_policy(rebound::Duration delay) {
    return rebound::PolicyBuilder("bench")
        .max_attempts(5)
        .backoff(rebound::Backoff::fixed(delay))
        .jitter(rebound::Jitter::none())
        .retry_on(rebound::Matcher::transient())
        .build();
}

// The user's work: succeeds, or fails while `failures` remain.
asio::awaitable<int> work(int* failures) {
    if (failures != nullptr && *failures > 0) {
        --*failures;
        throw rebound::Error(rebound::ErrorCategory::Deadlock, "victim");
    }
    co_return 1;
}

// What a service would write by hand: retry up to 5 attempts, a fixed wait between them.
asio::awaitable<int> hand_loop(int* failures, rebound::Duration delay) {
    for (int attempt = 1;; ++attempt) {
        try {
            co_return co_await work(failures);
        } catch (const rebound::Error&) {
            if (attempt == 5) {
                throw;
            }
        }
        asio::steady_timer timer(co_await asio::this_coro::executor, delay);
        co_await timer.async_wait(asio::use_awaitable);
    }
}

void run_driver(benchmark::State& state, asio::awaitable<void> driver) {
    asio::io_context io;
    asio::co_spawn(io, std::move(driver), asio::detached);
    io.run();
    state.SetItemsProcessed(state.iterations());
}

void hand_loop_case(benchmark::State& state) {
    run_driver(state, [&]() -> asio::awaitable<void> {
        for (auto _ : state) {
            benchmark::DoNotOptimize(co_await hand_loop(nullptr, 1ms));
        }
    }());
}

void executor_run_case(benchmark::State& state) {
    const rebound::asio::RetryExecutor executor;
    const auto policy = bench_policy(1ms);
    run_driver(state, [&]() -> asio::awaitable<void> {
        for (auto _ : state) {
            rebound::asio::Result<int> r;
            co_await executor.run(
                *policy, [] { return work(nullptr); }, r, asio::use_awaitable);
            benchmark::DoNotOptimize(r.value);
        }
    }());
}

void executor_run_value_case(benchmark::State& state) {
    const rebound::asio::RetryExecutor executor;
    const auto policy = bench_policy(1ms);
    run_driver(state, [&]() -> asio::awaitable<void> {
        for (auto _ : state) {
            int value = co_await executor.run_value(*policy, [] { return work(nullptr); });
            benchmark::DoNotOptimize(value);
        }
    }());
}

void executor_run_returned_case(benchmark::State& state) {
    const rebound::asio::RetryExecutor executor;
    const auto policy = bench_policy(1ms);
    run_driver(state, [&]() -> asio::awaitable<void> {
        for (auto _ : state) {
            auto r = co_await executor.run(
                *policy, [] { return work(nullptr); }, asio::use_awaitable);
            benchmark::DoNotOptimize(r.value);
        }
    }());
}

void executor_run_shared_case(benchmark::State& state) {
    const rebound::asio::RetryExecutor executor;
    const auto policy = bench_policy(1ms);
    run_driver(state, [&]() -> asio::awaitable<void> {
        for (auto _ : state) {
            auto r = co_await executor.run(
                policy, [] { return work(nullptr); }, asio::use_awaitable);
            benchmark::DoNotOptimize(r.value);
        }
    }());
}

void blocking_run_case(benchmark::State& state) {
    const rebound::RetryExecutor executor;
    rebound::HandlerResolution resolution;
    resolution.policy = bench_policy(1ms);
    int value = 0;
    for (auto _ : state) {
        auto r = executor.run(resolution, "bench", [&] { benchmark::DoNotOptimize(++value); });
        benchmark::DoNotOptimize(r.outcome);
    }
    state.SetItemsProcessed(state.iterations());
}

void executor_attempts_case(benchmark::State& state) {
    rebound::testing::ManualClock clock;
    rebound::asio::VirtualTime time(clock);
    const rebound::asio::RetryExecutor executor({.clock = &clock}, &time);
    const auto policy = bench_policy(1ms);
    run_driver(state, [&]() -> asio::awaitable<void> {
        for (auto _ : state) {
            int failures = 3;
            auto r = co_await executor.run(
                policy, [&failures] { return work(&failures); }, asio::use_awaitable);
            benchmark::DoNotOptimize(r.value);
        }
    }());
}

// A sleeper that returns at once (RecordingSleeper would grow a vector per wait).
class NoSleeper final : public rebound::Sleeper {
  public:
    bool sleep_for(rebound::Duration, std::stop_token) override { return true; }
};

void blocking_attempts_case(benchmark::State& state) {
    NoSleeper sleeper;
    const rebound::RetryExecutor executor({.sleeper = &sleeper});
    rebound::HandlerResolution resolution;
    resolution.policy = bench_policy(1ms);
    for (auto _ : state) {
        int failures = 3;
        auto r = executor.run(resolution, "bench", [&] {
            if (failures-- > 0) {
                throw rebound::Error(rebound::ErrorCategory::Deadlock, "victim");
            }
        });
        benchmark::DoNotOptimize(r.outcome);
    }
    state.SetItemsProcessed(state.iterations());
}

// Resident set size in bytes (/proc/self/statm), 0 when unreadable.
double resident_bytes() {
    std::FILE* statm = std::fopen("/proc/self/statm", "r");
    if (statm == nullptr) {
        return 0;
    }
    unsigned long size = 0;
    unsigned long resident = 0;
    const int read = std::fscanf(statm, "%lu %lu", &size, &resident);
    std::fclose(statm);
    return read == 2 ? static_cast<double>(resident) * 4096.0 : 0.0;
}

constexpr int kWaitingRuns = 100'000;

// Starts kWaitingRuns operations that fail once and then wait an hour, measures the RSS growth
// once all wait, then cancels them all (`cancel`) and drains the io_context.
template <typename Start, typename Cancel>
void waiting_case(benchmark::State& state, Start start, Cancel cancel) {
    for (auto _ : state) {
        asio::io_context io;
        std::vector<int> failures(kWaitingRuns, 1);
        const double before = resident_bytes();
        for (int& f : failures) {
            start(io, &f);
        }
        io.poll();  // every operation fails once and arms its timer
        const double after = resident_bytes();
        state.counters["bytes_per_run"] = (after - before) / kWaitingRuns;
        cancel();
        io.run();
    }
}

// waiting_case() for operations each co_spawned with a cancellation slot, as a service awaits
// them: `spawn(io, failures, slot)` starts one; the end cancels them all through their slots.
template <typename Spawn>
void spawned_waiting_case(benchmark::State& state, Spawn spawn) {
    std::vector<std::shared_ptr<asio::cancellation_signal>> signals;
    waiting_case(
        state,
        [&](asio::io_context& io, int* failures) {
            signals.push_back(std::make_shared<asio::cancellation_signal>());
            spawn(io, failures, signals.back()->slot());
        },
        [&] {
            // The signals stay until the operations finish: a cancellation state lives in its
            // slot.
            for (auto& signal : signals) {
                signal->emit(asio::cancellation_type::terminal);
            }
        });
}

void hand_waiting_case(benchmark::State& state) {
    spawned_waiting_case(
        state, [](asio::io_context& io, int* failures, asio::cancellation_slot slot) {
            asio::co_spawn(io, hand_loop(failures, 1h),
                           asio::bind_cancellation_slot(slot, [](std::exception_ptr, int) {}));
        });
}

// The executor's run awaited the way the hand loop is: as the coroutine co_spawned with a
// cancellation slot (asio::use_awaitable), so the difference is the executor's own state.
void executor_waiting_case(benchmark::State& state) {
    const rebound::asio::RetryExecutor executor;
    const auto policy = bench_policy(1h);
    spawned_waiting_case(
        state, [&](asio::io_context& io, int* failures, asio::cancellation_slot slot) {
            asio::co_spawn(io,
                           executor.run(
                               policy, [failures] { return work(failures); }, asio::use_awaitable),
                           asio::bind_cancellation_slot(
                               slot, [](std::exception_ptr, rebound::asio::Result<int>) {}));
        });
}

// The same through run_value(), under the policy by reference.
void executor_value_waiting_case(benchmark::State& state) {
    const rebound::asio::RetryExecutor executor;
    const auto policy = bench_policy(1h);
    spawned_waiting_case(
        state, [&](asio::io_context& io, int* failures, asio::cancellation_slot slot) {
            asio::co_spawn(io, executor.run_value(*policy, [failures] { return work(failures); }),
                           asio::bind_cancellation_slot(slot, [](std::exception_ptr, int) {}));
        });
}

// The same runs started with a plain callback (co_spawned by the executor) and ended by a stop
// token, which puts each run on a strand with a RunCanceller: for comparison.
void executor_callback_waiting_case(benchmark::State& state) {
    const rebound::asio::RetryExecutor executor;
    const auto policy = bench_policy(1h);
    std::stop_source stop;
    waiting_case(
        state,
        [&](asio::io_context& io, int* failures) {
            executor.run(
                policy, [failures] { return work(failures); },
                asio::bind_executor(io, [](std::exception_ptr, rebound::asio::Result<int>) {}),
                {.stop = stop.get_token()});
        },
        [&] { stop.request_stop(); });
}

}  // namespace

BENCHMARK(hand_loop_case)->Name("async_overhead/hand_loop");
BENCHMARK(executor_run_case)->Name("async_overhead/executor_run");
BENCHMARK(executor_run_value_case)->Name("async_overhead/executor_run_value");
BENCHMARK(executor_run_returned_case)->Name("async_overhead/executor_run_returned");
BENCHMARK(executor_run_shared_case)->Name("async_overhead/executor_run_shared");
BENCHMARK(blocking_run_case)->Name("async_overhead/blocking_run");
BENCHMARK(executor_attempts_case)->Name("async_attempts/executor_run_4");
BENCHMARK(blocking_attempts_case)->Name("async_attempts/blocking_run_4");
BENCHMARK(hand_waiting_case)
    ->Name("async_waiting/hand_loop")
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(executor_waiting_case)
    ->Name("async_waiting/executor_run")
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(executor_value_waiting_case)
    ->Name("async_waiting/executor_run_value")
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(executor_callback_waiting_case)
    ->Name("async_waiting/executor_run_stop_token")
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
