// The hedged run of rebound::asio (docs/hedging.md) in virtual time: attempts are awaitable
// work that waits on VirtualTime timers, the run's own waits are VirtualTime timers, and the test
// moves the clock from one timer to the next, so that every step is checked at its exact instant.
// Unit label: runs under AddressSanitizer in CI, which checks that abandoned attempts (that keep
// running after the run completed) find everything they refer to alive.
#include <asio/bind_executor.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hedging_policy.hpp"
#include "rebound/asio/retry_executor.hpp"
#include "rebound/resilience_registry.hpp"
#include "rebound/retry_metrics.hpp"

using namespace std::chrono_literals;
using rebound::Duration;
using rebound::ErrorCategory;
using rebound::HedgeSuppression;
using rebound::RetryOutcome;
using rebound::asio::HedgedResult;
using rebound::asio::Result;
using rebound::asio::VirtualTime;

using rebound::test::compile_hedging;
using rebound::test::hedging_spec;
using rebound::test::resolution_of;

namespace {

using Ms = std::chrono::milliseconds;

// Waits `delay` in virtual time. Terminal cancellation ends the wait with operation_aborted,
// unless `ignore_cancellation`: then the wait goes on to its end.
asio::awaitable<void> sleep_for(VirtualTime& time, Duration delay,
                                bool ignore_cancellation = false) {
    const asio::any_io_executor executor = co_await asio::this_coro::executor;
    auto timer =
        std::make_shared<asio::steady_timer>(executor, asio::steady_timer::time_point::max());
    auto fired = std::make_shared<bool>(false);
    const std::uint64_t id = time.at(time.now() + delay, [timer, fired, executor] {
        asio::post(executor, [timer, fired] {
            *fired = true;
            timer->cancel();
        });
    });
    for (;;) {
        try {
            co_await timer->async_wait(asio::use_awaitable);
        } catch (const std::system_error&) {
            // fired, or cancelled
        }
        if (*fired) {
            co_return;
        }
        if (!ignore_cancellation) {
            time.cancel(id);
            throw asio::system_error(asio::error::operation_aborted);
        }
        co_await asio::this_coro::reset_cancellation_state();
    }
}

// What one attempt does: wait `latency` in virtual time, then return its number or fail.
struct Step {
    Duration latency;
    std::optional<ErrorCategory> error{};
    std::optional<Duration> hint{};
    bool ignore_cancellation = false;
};

// The executor in virtual time, with what each attempt did and when.
struct Harness {
    rebound::testing::ManualClock clock;
    VirtualTime time{clock};
    rebound::asio::RetryExecutor executor;
    explicit Harness(std::vector<rebound::RetryListener*> listeners = {})
        : executor({.clock = &clock, .listeners = std::move(listeners)}, &time) {}
    asio::io_context io;
    std::map<int, Step> steps;  // by attempt number
    std::map<int, Ms> started;
    std::map<int, Ms> cancelled;  // attempts whose wait ended by cancellation
    std::map<int, Ms> finished;   // attempts that ran to their end
    Ms completed{-1};

    Ms now() const { return std::chrono::duration_cast<Ms>(clock.now().time_since_epoch()); }

    auto work() {
        return [this](const rebound::AttemptInfo& attempt) -> asio::awaitable<int> {
            const Step step = steps.at(attempt.attempt);
            started[attempt.attempt] = now();
            try {
                co_await sleep_for(time, step.latency, step.ignore_cancellation);
            } catch (const std::system_error&) {
                CHECK(attempt.stop.stop_requested());
                cancelled[attempt.attempt] = now();
                throw;
            }
            finished[attempt.attempt] = now();
            if (step.error) {
                rebound::ErrorDescription error = rebound::ErrorDescription::of(*step.error);
                error.server_delay = step.hint;
                throw rebound::Error(error);
            }
            co_return attempt.attempt;
        };
    }

    // Runs a hedged run (run_hedged(), for its report); moves time on until the run completes,
    // then until every attempt has ended.
    HedgedResult<int> run(rebound::HandlerResolution resolution, rebound::RunOptions options = {}) {
        std::optional<HedgedResult<int>> result;
        executor.run_hedged(std::move(resolution), "catalog.read", work(),
                            asio::bind_executor(io,
                                                [&](std::exception_ptr error, HedgedResult<int> r) {
                                                    CHECK_FALSE(error);
                                                    result = std::move(r);
                                                    completed = now();
                                                }),
                            std::move(options));
        for (int i = 0; i < 10000 && !result; ++i) {
            io.restart();
            io.poll();
            if (!result) {
                REQUIRE(time.advance());
            }
        }
        REQUIRE(result);
        drain();
        return std::move(*result);
    }

    void drain() {
        do {
            io.restart();
            io.poll();
        } while (time.advance());
        REQUIRE(time.pending() == 0);
    }
};

}  // namespace

TEST_CASE("asio hedged run: a hedge due at 20ms starts at 20ms, the first success completes",
          "[asio][hedge]") {
    Harness h;
    h.steps = {{1, {100ms}}, {2, {10ms}}};
    const auto r = h.run(resolution_of(compile_hedging(hedging_spec(20ms, 2))));
    CHECK(h.started == std::map<int, Ms>{{1, 0ms}, {2, 20ms}});
    CHECK(r.outcome == RetryOutcome::Succeeded);
    CHECK(r.value == 2);
    CHECK(h.completed == 30ms);
    CHECK(r.hedge.winner == 2);
    CHECK(r.hedge.hedges == 1);
    CHECK(r.hedge.abandoned == 1);
    CHECK(h.cancelled == std::map<int, Ms>{{1, 30ms}});
}

TEST_CASE("asio hedged run: RetryMetrics as a listener counts hedges, wins and the delay",
          "[asio][hedge][metrics]") {
    rebound::RetryMetrics metrics;
    Harness h({&metrics});
    const auto policy = compile_hedging(hedging_spec(20ms, 3));
    // A hedge wins; then a run whose third attempt finds max_attempts used after two failures.
    h.steps = {{1, {100ms}}, {2, {10ms}}};
    REQUIRE(h.run(resolution_of(policy)).hedge.winner == 2);
    h.steps = {{1, {5ms, ErrorCategory::ConnectionLost}},
               {2, {5ms, ErrorCategory::ConnectionLost}},
               {3, {5ms, ErrorCategory::ConnectionLost}}};
    REQUIRE(h.run(resolution_of(policy)).outcome == RetryOutcome::Exhausted);
    const std::string text = metrics.render();
    const std::size_t begin = text.find("rebound_runs_total{");
    const std::size_t end = text.find("# HELP rebound_attempt_duration_seconds");
    REQUIRE(begin != std::string::npos);
    REQUIRE(end != std::string::npos);
    CHECK(text.substr(begin, end - begin) ==
          "rebound_runs_total{handler=\"catalog.read\",reason=\"succeeded\"} 1\n"
          "rebound_runs_total{handler=\"catalog.read\",reason=\"exhausted\"} 1\n"
          "# HELP rebound_hedges_total Hedges started: attempts of a hedged run beyond the first.\n"
          "# TYPE rebound_hedges_total counter\n"
          "rebound_hedges_total{handler=\"catalog.read\"} 3\n"
          "# HELP rebound_hedge_wins_total Hedged runs won by a hedge, not the first attempt.\n"
          "# TYPE rebound_hedge_wins_total counter\n"
          "rebound_hedge_wins_total{handler=\"catalog.read\"} 1\n"
          "# HELP rebound_hedges_suppressed_total Hedges that fell due and did not start, by the "
          "first reason that held.\n"
          "# TYPE rebound_hedges_suppressed_total counter\n"
          "rebound_hedges_suppressed_total{handler=\"catalog.read\",reason=\"attempts\"} 1\n"
          "# HELP rebound_hedge_delay_seconds The hedge delay of the last hedged run to end, "
          "fixed or learned.\n"
          "# TYPE rebound_hedge_delay_seconds gauge\n"
          "rebound_hedge_delay_seconds{handler=\"catalog.read\"} 0.02\n");
    CHECK(metrics.attempts("catalog.read") == 5);
}

TEST_CASE("asio hedged run: a failure at 5ms starts hedge 1 at once, hedge 2 is due at 40ms",
          "[asio][hedge]") {
    Harness h;
    h.steps = {{1, {5ms, ErrorCategory::ConnectionLost}}, {2, {100ms}}, {3, {100ms}}};
    const auto r = h.run(resolution_of(compile_hedging(hedging_spec(20ms, 3))));
    CHECK(h.started == std::map<int, Ms>{{1, 0ms}, {2, 5ms}, {3, 40ms}});
    CHECK(r.value == 2);
    CHECK(h.completed == 105ms);
    CHECK(h.cancelled == std::map<int, Ms>{{3, 105ms}});
}

TEST_CASE("asio hedged run: a fatal failure cancels every attempt in flight", "[asio][hedge]") {
    Harness h;
    h.steps = {{1, {1s}}, {2, {1s}}, {3, {5ms, ErrorCategory::ConstraintViolation}}};
    const auto r = h.run(resolution_of(compile_hedging(hedging_spec(20ms, 3))));
    CHECK(r.outcome == RetryOutcome::NonRetryable);
    CHECK(h.completed == 45ms);
    CHECK(h.cancelled == std::map<int, Ms>{{1, 45ms}, {2, 45ms}});
    CHECK(r.hedge.abandoned == 2);
}

TEST_CASE("asio hedged run: a loser that ignores cancellation does not delay the result",
          "[asio][hedge]") {
    Harness h;
    h.steps = {{1, {1s, std::nullopt, std::nullopt, true}}, {2, {10ms}}};
    const auto r = h.run(resolution_of(compile_hedging(hedging_spec(20ms, 2))));
    CHECK(r.value == 2);
    CHECK(h.completed == 30ms);
    // The loser ran on to its end after the run completed; its outcome was ignored.
    CHECK(h.finished.at(1) == 1000ms);
    CHECK(r.hedge.abandoned == 1);
}

TEST_CASE("asio hedged run: a token-starved hedge is suppressed, the next one is considered",
          "[asio][hedge]") {
    const rebound::PolicySpec spec = hedging_spec(20ms, 3);
    const auto tokens =
        std::make_shared<rebound::HedgeTokens>(rebound::HedgeTokenSettings::of(*spec.hedge), 0.5);
    rebound::PolicyCompileOptions options;
    options.hedge_tokens = tokens;
    Harness h;
    h.steps = {{1, {100ms}}, {2, {10ms}}, {3, {10ms}}};
    // Other runs start at 30ms and earn the half token the run lacks.
    h.time.at(rebound::Clock::TimePoint{} + 30ms, [tokens] {
        for (int i = 0; i < 10; ++i) {
            tokens->run_started();
        }
    });
    const auto r = h.run(resolution_of(compile_hedging(spec, options)));
    CHECK(h.started == std::map<int, Ms>{{1, 0ms}, {2, 40ms}});
    CHECK(r.hedge.suppressed_by(HedgeSuppression::HedgeTokens) == 1);
    CHECK(r.value == 2);
    CHECK(h.completed == 50ms);
}

TEST_CASE("asio hedged run: a server delay hint holds the next hedge back", "[asio][hedge]") {
    Harness h;
    h.steps = {{1, {5ms, ErrorCategory::ServiceUnavailable, 30ms}}, {2, {10ms}}};
    const auto r = h.run(resolution_of(compile_hedging(hedging_spec(20ms, 2))));
    CHECK(h.started == std::map<int, Ms>{{1, 0ms}, {2, 35ms}});
    CHECK(r.value == 2);
    CHECK(h.completed == 45ms);
}

TEST_CASE("asio hedged run: no hedge starts after the deadline", "[asio][hedge]") {
    rebound::PolicySpec spec = hedging_spec(20ms, 3);
    spec.deadline = 30ms;
    Harness h;
    h.steps = {{1, {100ms, ErrorCategory::ConnectionLost}},
               {2, {80ms, ErrorCategory::ConnectionLost}}};
    const auto r = h.run(resolution_of(compile_hedging(spec)));
    CHECK(h.started == std::map<int, Ms>{{1, 0ms}, {2, 20ms}});
    CHECK(r.outcome == RetryOutcome::Deadline);
    CHECK(r.hedge.suppressed_by(HedgeSuppression::Deadline) >= 1);
    CHECK(h.completed == 100ms);
}

TEST_CASE("asio hedged run: a handler that is not idempotent runs one attempt at a time",
          "[asio][hedge]") {
    const auto policy = compile_hedging(hedging_spec(20ms, 2));
    SECTION("run() with the policy's std::shared_ptr") {
        Harness h;
        h.steps = {{1, {30ms, ErrorCategory::ConnectionLost}}, {2, {10ms}}};
        // A policy given in code: its handler's idempotence is the default, false.
        std::optional<Result<int>> result;
        h.executor.run(policy, h.work(),
                       asio::bind_executor(h.io, [&](std::exception_ptr error, Result<int> r) {
                           CHECK_FALSE(error);
                           result = std::move(r);
                       }));
        h.drain();
        REQUIRE(result);
        CHECK(h.started == std::map<int, Ms>{{1, 0ms}, {2, 30ms}});
        CHECK(result->attempts == 2);
        CHECK(result->value == 2);
    }
    SECTION("run_value() with the policy by reference") {
        Harness h;
        h.steps = {{1, {30ms, ErrorCategory::ConnectionLost}}, {2, {10ms}}};
        std::optional<int> value;
        asio::co_spawn(
            h.io,
            [&]() -> asio::awaitable<void> {
                value = co_await h.executor.run_value(*policy, h.work());
            },
            asio::detached);
        h.drain();
        CHECK(h.started == std::map<int, Ms>{{1, 0ms}, {2, 30ms}});
        CHECK(value == 2);
    }
    SECTION("the report says so") {
        Harness h;
        h.steps = {{1, {30ms, ErrorCategory::ConnectionLost}}, {2, {10ms}}};
        const auto r = h.run(resolution_of(policy, false));
        CHECK(r.hedge.one_at_a_time);
        CHECK(r.hedge.hedges == 1);
        CHECK(r.hedge.winner == 2);
    }
}

TEST_CASE("asio hedged run: run_hedged() refuses a policy without hedge", "[asio][hedge]") {
    Harness h;
    rebound::PolicySpec spec = hedging_spec(20ms, 2);
    spec.hedge.reset();
    std::exception_ptr failure;
    h.executor.run_hedged(
        resolution_of(rebound::Policy::create(spec).policy), "catalog.read", h.work(),
        asio::bind_executor(h.io,
                            [&](std::exception_ptr error, HedgedResult<int>) { failure = error; }));
    h.drain();
    REQUIRE(failure);
    CHECK_THROWS_AS(std::rethrow_exception(failure), std::invalid_argument);
}

TEST_CASE("asio hedged run: a hedge the breaker refuses is suppressed", "[asio][hedge]") {
    // A breaker that opens at the first failure, for 30s.
    const rebound::BreakerDirectory breakers = rebound::test::tripping_breaker("catalog-db");
    rebound::PolicySpec spec = hedging_spec(20ms, 3);
    spec.breaker = "catalog-db";
    rebound::PolicyCompileOptions options;
    options.breakers = &breakers;
    Harness h;
    h.steps = {{1, {100ms}}, {2, {5ms, ErrorCategory::ConnectionLost}}};
    const auto r = h.run(resolution_of(compile_hedging(spec, options)));
    // Attempt 2 fails at 25ms and opens the breaker: the hedge due then is refused.
    CHECK(h.started == std::map<int, Ms>{{1, 0ms}, {2, 20ms}});
    CHECK(r.attempts == 2);
    CHECK(r.hedge.suppressed_by(HedgeSuppression::Breaker) >= 1);
    CHECK(r.value == 1);
    CHECK(h.completed == 100ms);
}

TEST_CASE("asio hedged run: hedge tokens survive a reload", "[asio][hedge]") {
    rebound::ResilienceRegistry registry;
    rebound::PolicySpec spec = hedging_spec(20ms, 2);
    spec.hedge->burst = 1;
    const auto snapshot = [&] {
        rebound::PolicyCompileOptions options;
        options.hedge_tokens = registry.hedge_tokens("catalog", spec.name,
                                                     rebound::HedgeTokenSettings::of(*spec.hedge));
        return compile_hedging(spec, options);
    };
    Harness h;
    h.steps = {{1, {100ms}}, {2, {10ms}}};
    const auto first = h.run(resolution_of(snapshot()));
    CHECK(first.hedge.hedges == 1);
    // A reload compiles the policy again: the hedge token the first run took stays taken.
    h.started.clear();
    const auto second = h.run(resolution_of(snapshot()));
    CHECK(second.hedge.hedges == 0);
    CHECK(second.hedge.suppressed_by(HedgeSuppression::HedgeTokens) >= 1);
    CHECK(second.value == 1);
}

TEST_CASE("asio hedged run: a stop token cancels the run and every attempt", "[asio][hedge]") {
    std::stop_source stop;
    Harness h;
    h.steps = {{1, {1s}}, {2, {1s}}};
    h.time.at(rebound::Clock::TimePoint{} + 25ms, [&stop] { stop.request_stop(); });
    rebound::RunOptions options;
    options.stop = stop.get_token();
    const auto r = h.run(resolution_of(compile_hedging(hedging_spec(20ms, 2))), options);
    CHECK(r.outcome == RetryOutcome::Cancelled);
    CHECK(h.completed == 25ms);
    CHECK(h.cancelled == std::map<int, Ms>{{1, 25ms}, {2, 25ms}});
}

TEST_CASE("asio hedged run: a coroutine awaits the run with use_awaitable", "[asio][hedge]") {
    Harness h;
    h.steps = {{1, {100ms}}, {2, {10ms}}};
    std::optional<int> value;
    asio::co_spawn(
        h.io,
        [&]() -> asio::awaitable<void> {
            const Result<int> r =
                co_await h.executor.run(resolution_of(compile_hedging(hedging_spec(20ms, 2))),
                                        "catalog.read", h.work(), asio::use_awaitable);
            value = r.value;
            h.completed = h.now();
        },
        asio::detached);
    h.drain();
    CHECK(value == 2);
    CHECK(h.completed == 30ms);
}

TEST_CASE("asio hedged run: in real time, a hedge wins over an attempt that never ends",
          "[asio][hedge]") {
    // Real timers: the run's own wait until the hedge is due, and an attempt 1 that waits an
    // hour unless cancelled. Nothing here depends on how long the steps take.
    const rebound::asio::RetryExecutor executor;
    asio::io_context io;
    std::map<int, bool> cancelled;
    auto work = [&](const rebound::AttemptInfo& attempt) -> asio::awaitable<int> {
        if (attempt.attempt == 1) {
            asio::steady_timer timer(co_await asio::this_coro::executor, 1h);
            try {
                co_await timer.async_wait(asio::use_awaitable);
            } catch (const std::system_error&) {
                cancelled[1] = attempt.stop.stop_requested();
                throw;
            }
        }
        co_return attempt.attempt;
    };
    std::optional<HedgedResult<int>> result;
    executor.run_hedged(resolution_of(compile_hedging(hedging_spec(1ms, 2))), "catalog.read", work,
                        asio::bind_executor(io, [&](std::exception_ptr error, HedgedResult<int> r) {
                            CHECK_FALSE(error);
                            result = std::move(r);
                        }));
    io.run();
    REQUIRE(result);
    CHECK(result->value == 2);
    CHECK(result->hedge.winner == 2);
    CHECK(result->hedge.abandoned == 1);
    CHECK(cancelled == std::map<int, bool>{{1, true}});
}
