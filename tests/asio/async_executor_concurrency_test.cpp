// The asynchronous executor across threads (run under ThreadSanitizer in CI): many runs on an
// io_context served by two threads, a stop token set from a third, and cancellation emitted on
// the runs' own executor.
#include <catch2/catch.hpp>

#include <asio/bind_cancellation_slot.hpp>
#include <asio/bind_executor.hpp>
#include <asio/dispatch.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <atomic>
#include <stop_token>
#include <thread>
#include <vector>

#include "rebound/asio.hpp"
#include "rebound/retry_metrics.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;
using rebound::ErrorCategory;
using rebound::RetryOutcome;

namespace {

std::shared_ptr<const rebound::Policy> retrying_policy(rebound::Duration delay) {
    return rebound::PolicyBuilder("retrying")
        .max_attempts(4)
        .backoff(rebound::Backoff::fixed(delay))
        .jitter(rebound::Jitter::none())
        .retry_on(rebound::Matcher::transient())
        .build();
}

// Counts outcomes from any thread.
struct Tally {
    std::atomic<int> succeeded{0};
    std::atomic<int> cancelled{0};
    std::atomic<int> other{0};
    void add(const rebound::RunResult& r) {
        (r.outcome == RetryOutcome::Succeeded   ? succeeded
         : r.outcome == RetryOutcome::Cancelled ? cancelled
                                                : other)
            .fetch_add(1);
    }
    int total() const { return succeeded + cancelled + other; }
};

}  // namespace

TEST_CASE("runs on a two-thread io_context all complete with their decisions",
          "[asio][concurrency]") {
    rebound::RetryMetrics metrics;
    const rebound::asio::RetryExecutor executor({.listeners = {&metrics}});
    const auto policy = retrying_policy(1ms);
    asio::io_context io;
    Tally tally;
    constexpr int kRuns = 200;
    for (int i = 0; i < kRuns; ++i) {
        auto calls = std::make_shared<std::atomic<int>>(0);
        rebound::HandlerResolution resolution;
        resolution.policy = policy;
        executor.run(
            std::move(resolution), "Transfer",
            [calls]() -> asio::awaitable<void> {
                if (calls->fetch_add(1) < 2) {
                    throw rebound::Error(ErrorCategory::Deadlock, "victim");
                }
                co_return;
            },
            asio::bind_executor(
                io, [&](std::exception_ptr, rebound::asio::Result<void> r) { tally.add(r); }));
    }
    std::thread helper([&] { io.run(); });
    io.run();
    helper.join();
    CHECK(tally.succeeded == kRuns);
    CHECK(tally.total() == kRuns);
    CHECK(metrics.attempts("Transfer") == 3 * kRuns);
    CHECK(metrics.retries("Transfer", ErrorCategory::Deadlock) == 2 * kRuns);
    CHECK(metrics.runs("Transfer", RetryOutcome::Succeeded) == kRuns);
}

TEST_CASE("a stop token set from another thread ends waiting runs at once", "[asio][concurrency]") {
    const rebound::asio::RetryExecutor executor;
    const auto policy = retrying_policy(1h);
    asio::io_context io;
    auto guard = asio::make_work_guard(io);
    std::stop_source stop;
    Tally tally;
    std::atomic<int> failed_attempts{0};
    constexpr int kRuns = 50;
    for (int i = 0; i < kRuns; ++i) {
        executor.run(policy,
                     [&]() -> asio::awaitable<void> {
                         failed_attempts.fetch_add(1);
                         throw rebound::Error(ErrorCategory::Deadlock, "victim");
                         co_return;
                     },
                     asio::bind_executor(io, [&](std::exception_ptr,
                                                 rebound::asio::Result<void> r) { tally.add(r); }),
                     {.stop = stop.get_token()});
    }
    std::thread first([&] { io.run(); });
    std::thread second([&] { io.run(); });
    while (failed_attempts.load() < kRuns) {
        std::this_thread::yield();
    }
    stop.request_stop();  // every run is waiting an hour, or about to
    while (tally.total() < kRuns) {
        std::this_thread::yield();
    }
    guard.reset();
    first.join();
    second.join();
    CHECK(tally.cancelled == kRuns);
}

TEST_CASE("terminal cancellation emitted on the run's executor ends attempts in progress",
          "[asio][concurrency]") {
    const rebound::asio::RetryExecutor executor;
    const auto policy = retrying_policy(1h);
    asio::io_context io;
    auto strand = asio::make_strand(io);
    auto guard = asio::make_work_guard(io);
    constexpr int kRuns = 20;
    std::vector<asio::cancellation_signal> signals(kRuns);
    std::atomic<int> started{0};
    Tally tally;
    for (auto& signal : signals) {
        executor.run(
            policy,
            [&]() -> asio::awaitable<void> {
                asio::steady_timer timer(co_await asio::this_coro::executor, 1h);
                started.fetch_add(1);
                co_await timer.async_wait(asio::use_awaitable);
            },
            asio::bind_cancellation_slot(
                signal.slot(),
                asio::bind_executor(strand, [&](std::exception_ptr, rebound::asio::Result<void> r) {
                    tally.add(r);
                })));
    }
    std::thread first([&] { io.run(); });
    std::thread second([&] { io.run(); });
    while (started.load() < kRuns) {
        std::this_thread::yield();
    }
    // Signals are not thread-safe: emit them on the strand their handlers are bound to.
    asio::post(strand, [&] {
        for (auto& signal : signals) {
            signal.emit(asio::cancellation_type::terminal);
        }
    });
    while (tally.total() < kRuns) {
        std::this_thread::yield();
    }
    guard.reset();
    first.join();
    second.join();
    CHECK(tally.cancelled == kRuns);
}
