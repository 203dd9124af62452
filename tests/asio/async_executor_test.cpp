// The asynchronous executor (docs/async.md): the same decisions as the blocking executor,
// cancellation, attempt_timeout, stop tokens and completion tokens. Waits run in virtual time
// (rebound::asio::VirtualTime) unless a test cancels them; the cancelled waits are an hour long,
// so a wait that did not end at once would hang the test rather than pass it.
#include <catch2/catch.hpp>

#include <array>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/bind_executor.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/error.hpp>
#include <asio/experimental/deferred.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "event_log.hpp"
#include "rebound/asio.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;
using rebound::ErrorCategory;
using rebound::RetryOutcome;
using Events = std::vector<std::string>;

namespace {

using rebound::test_support::EventLog;
using rebound::test_support::one_failure_breaker;

rebound::HandlerResolution resolved(std::shared_ptr<const rebound::Policy> policy) {
    rebound::HandlerResolution resolution;
    resolution.policy = std::move(policy);
    resolution.via = rebound::ResolvedVia::Code;
    return resolution;
}

// What a run did, as both executors report it.
struct Trace {
    RetryOutcome outcome = RetryOutcome::Succeeded;
    int attempts = 0;
    rebound::DecisionReason reason = rebound::DecisionReason::Retry;
    std::optional<ErrorCategory> last_error;
    std::optional<rebound::Duration> elapsed;
    std::vector<rebound::Duration> delays;
    Events events;
};

Trace trace_of(const rebound::RunResult& result, std::vector<rebound::Duration> delays,
               Events events) {
    Trace trace;
    trace.outcome = result.outcome;
    trace.attempts = result.attempts;
    trace.reason = result.last_decision.reason;
    if (result.last_error) {
        trace.last_error = result.last_error->description().category;
    }
    trace.elapsed = result.elapsed;
    trace.delays = std::move(delays);
    trace.events = std::move(events);
    return trace;
}

// One scripted failure per call of the work (nullopt: success); each call takes 10ms.
using Script = std::vector<std::optional<ErrorCategory>>;
using PolicyFactory =
    std::function<std::shared_ptr<const rebound::Policy>(const rebound::Clock& clock)>;

void play(const Script& script, std::size_t& calls, rebound::testing::ManualClock& clock) {
    const std::optional<ErrorCategory> next = script.at(calls++);
    clock.advance(10ms);
    if (next) {
        throw rebound::Error(*next, "scripted");
    }
}

std::vector<rebound::RetryListener*> listeners_of(EventLog& log, bool listening) {
    if (listening) {
        return {&log};
    }
    return {};
}

// Runs the script `runs` times under one policy (breakers and budgets carry over) through the
// blocking executor, and returns the trace of the last run.
Trace run_blocking(const PolicyFactory& make_policy, const Script& script, int runs,
                   bool listening = true) {
    rebound::testing::ManualClock clock;
    rebound::testing::RecordingSleeper sleeper(&clock);
    rebound::testing::ScriptedRandomSource random{0.25, 0.75, 0.5};
    EventLog log;
    const rebound::RetryExecutor executor({.clock = &clock,
                                           .sleeper = &sleeper,
                                           .random = &random,
                                           .listeners = listeners_of(log, listening)});
    const auto policy = make_policy(clock);
    rebound::RunResult result;
    for (int run = 0; run < runs; ++run) {
        std::size_t calls = 0;
        result = executor.run(resolved(policy), "Transfer", [&] { play(script, calls, clock); });
    }
    return trace_of(result, sleeper.delays(), log.lines);
}

// The same through the asynchronous executor, in virtual time.
Trace run_async(const PolicyFactory& make_policy, const Script& script, int runs,
                bool listening = true) {
    rebound::testing::ManualClock clock;
    rebound::asio::VirtualTime time(clock);
    rebound::testing::ScriptedRandomSource random{0.25, 0.75, 0.5};
    EventLog log;
    const rebound::asio::RetryExecutor executor(
        {.clock = &clock, .random = &random, .listeners = listeners_of(log, listening)}, &time);
    const auto policy = make_policy(clock);
    asio::io_context io;
    rebound::RunResult result;
    for (int run = 0; run < runs; ++run) {
        std::size_t calls = 0;
        executor.run(
            resolved(policy), "Transfer",
            [&]() -> asio::awaitable<void> {
                play(script, calls, clock);
                co_return;
            },
            asio::bind_executor(io, [&](std::exception_ptr error, rebound::asio::Result<void> r) {
                CHECK_FALSE(error);
                result = std::move(r);
            }));
        io.restart();
        io.run();
    }
    return trace_of(result, time.delays(), log.lines);
}

void check_same(const PolicyFactory& make_policy, const Script& script, int runs = 1,
                bool listening = true) {
    const Trace blocking = run_blocking(make_policy, script, runs, listening);
    const Trace async = run_async(make_policy, script, runs, listening);
    CHECK(async.outcome == blocking.outcome);
    CHECK(async.attempts == blocking.attempts);
    CHECK(async.reason == blocking.reason);
    CHECK(async.last_error == blocking.last_error);
    CHECK(async.elapsed == blocking.elapsed);
    CHECK(async.delays == blocking.delays);
    CHECK(async.events == blocking.events);
}

}  // namespace

TEST_CASE("blocking and async runs of the same script make the same decisions and delays",
          "[asio][equivalence]") {
    const PolicyFactory jittered = [](const rebound::Clock&) {
        return rebound::PolicyBuilder("jittered")
            .max_attempts(5)
            .backoff(rebound::Backoff::exponential(100ms, 2.0, 1s))
            .jitter(rebound::Jitter::full())
            .deadline(10s)
            .retry_on(rebound::Matcher::transient())
            .never_retry_on(rebound::Matcher::of_category(ErrorCategory::ConstraintViolation))
            .build();
    };
    SECTION("retries, then success") {
        check_same(jittered, {ErrorCategory::Deadlock, ErrorCategory::LockTimeout,
                              ErrorCategory::ConnectionLost, std::nullopt});
        CHECK(run_async(jittered, {ErrorCategory::Deadlock, std::nullopt}, 1).events ==
              Events{"start 1", "retry 1 deadlock 25000us", "start 2", "succeeded after 2"});
    }
    SECTION("exhausted") {
        check_same(jittered, Script(5, ErrorCategory::SerializationFailure));
    }
    SECTION("a failure that is never retried") {
        check_same(jittered, {ErrorCategory::Deadlock, ErrorCategory::ConstraintViolation});
    }
    SECTION("the deadline") {
        const PolicyFactory short_deadline = [](const rebound::Clock&) {
            return rebound::PolicyBuilder("short")
                .max_attempts(10)
                .backoff(rebound::Backoff::exponential(100ms, 3.0, 5s))
                .jitter(rebound::Jitter::equal())
                .deadline(1s)
                .retry_on(rebound::Matcher::transient())
                .build();
        };
        const Trace trace = run_async(short_deadline, Script(10, ErrorCategory::Deadlock), 1);
        CHECK(trace.reason == rebound::DecisionReason::Deadline);
        check_same(short_deadline, Script(10, ErrorCategory::Deadlock));
    }
    SECTION("a breaker's refusal and its half-open probe") {
        const PolicyFactory guarded = [](const rebound::Clock& clock) {
            return rebound::PolicyBuilder("background")
                .max_attempts(5)
                .backoff(rebound::Backoff::fixed(100ms))
                .jitter(rebound::Jitter::none())
                .deadline(1min)
                .retry_on(rebound::Matcher::transient())
                .breaker(one_failure_breaker(clock))
                .build();
        };
        const Script script{ErrorCategory::ServiceUnavailable, std::nullopt};
        const Trace trace = run_async(guarded, script, 1);
        CHECK(trace.attempts == 3);  // failed, refused, probe
        CHECK(trace.delays == std::vector<rebound::Duration>{100ms, 4900ms});
        check_same(guarded, script);
    }
    SECTION("a budget spent by an earlier run") {
        const PolicyFactory budgeted = [](const rebound::Clock&) {
            return rebound::PolicyBuilder("budgeted")
                .max_attempts(2)
                .backoff(rebound::Backoff::fixed(1ms))
                .jitter(rebound::Jitter::none())
                .retry_on(rebound::Matcher::transient())
                .budget({4, 1.0})
                .build();
        };
        const Script script(2, ErrorCategory::Deadlock);
        CHECK(run_async(budgeted, script, 2).outcome == RetryOutcome::Throttled);
        check_same(budgeted, script, 2);
    }
}

// Without a listener, a breaker or a clock, the async run's first attempt runs before its
// RetryRun is begun (RetryRun::may_defer()): the run must be the same whichever way it ends.
TEST_CASE("a run that nothing observes before its first attempt makes the same decisions",
          "[asio][equivalence]") {
    const PolicyFactory plain = [](const rebound::Clock&) {
        return rebound::PolicyBuilder("plain")
            .max_attempts(4)
            .backoff(rebound::Backoff::exponential(100ms, 2.0, 1s))
            .jitter(rebound::Jitter::full())
            .retry_on(rebound::Matcher::transient())
            .never_retry_on(rebound::Matcher::of_category(ErrorCategory::ConstraintViolation))
            .budget({2, 1.0})
            .build();
    };
    SECTION("success at once") {
        const Trace trace = run_async(plain, {std::nullopt}, 1, false);
        CHECK(trace.outcome == RetryOutcome::Succeeded);
        CHECK(trace.attempts == 1);
        CHECK_FALSE(trace.last_error);
        CHECK_FALSE(trace.elapsed);
        check_same(plain, {std::nullopt}, 1, false);
    }
    SECTION("retries, then success") {
        check_same(plain, {ErrorCategory::Deadlock, ErrorCategory::LockTimeout, std::nullopt}, 1,
                   false);
    }
    SECTION("exhausted, and the budget spent over several runs") {
        check_same(plain, Script(4, ErrorCategory::Deadlock), 1, false);
        check_same(plain, Script(4, ErrorCategory::Deadlock), 3, false);
    }
    SECTION("a failure that is never retried") {
        check_same(plain, {ErrorCategory::ConstraintViolation}, 1, false);
    }
}

TEST_CASE("a run that reads the clock is begun before its first attempt, which it times",
          "[asio][equivalence]") {
    rebound::testing::ManualClock clock;
    asio::io_context io;
    const auto work = [&](const rebound::AttemptInfo& attempt) -> asio::awaitable<int> {
        clock.advance(10ms);
        co_return attempt.time_left ? static_cast<int>(attempt.time_left->count()) : -1;
    };
    // One run under `policy` by reference through `executor`, with no listener.
    const auto run_once = [&](const rebound::asio::RetryExecutor& executor,
                              const rebound::Policy& policy) {
        rebound::asio::Result<int> result;
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                co_await executor.run(policy, work, result, asio::use_awaitable);
            },
            asio::detached);
        io.run();
        io.restart();
        return result;
    };
    SECTION("measure_elapsed") {
        const rebound::asio::RetryExecutor executor({.clock = &clock, .measure_elapsed = true});
        const auto policy = rebound::PolicyBuilder("plain")
                                .max_attempts(3)
                                .retry_on(rebound::Matcher::transient())
                                .build();
        const rebound::asio::Result<int> result = run_once(executor, *policy);
        CHECK(result.elapsed == rebound::Duration(10ms));
        CHECK(result.value == -1);
    }
    SECTION("a deadline") {
        const rebound::asio::RetryExecutor executor({.clock = &clock});
        const auto policy = rebound::PolicyBuilder("bounded")
                                .max_attempts(3)
                                .deadline(2s)
                                .retry_on(rebound::Matcher::transient())
                                .build();
        const rebound::asio::Result<int> result = run_once(executor, *policy);
        CHECK(result.elapsed == rebound::Duration(10ms));
        CHECK(result.value == std::chrono::duration_cast<rebound::Duration>(2s).count());
    }
}

namespace {

// A policy of three attempts whose retry budget failures have drained, and the tokens left: a
// success that the run records with the budget gives some back.
struct DrainedBudget {
    std::shared_ptr<const rebound::Policy> policy;
    double tokens;
};
DrainedBudget drained_budget_policy(const char* name) {
    auto policy = rebound::PolicyBuilder(name)
                      .max_attempts(3)
                      .retry_on(rebound::Matcher::transient())
                      .budget({10, 0.5})
                      .build();
    rebound::RetryBudget& budget = *policy->budget();
    while (budget.record_failure_and_check()) {
    }
    return {policy, budget.tokens()};
}

}  // namespace

TEST_CASE("a run that succeeds at once records its success with the policy's budget",
          "[asio][budget]") {
    const DrainedBudget drained = drained_budget_policy("budgeted");
    const std::shared_ptr<const rebound::Policy>& policy = drained.policy;
    const double spent = drained.tokens;
    const rebound::RetryBudget& budget = *policy->budget();
    const rebound::asio::RetryExecutor executor;
    asio::io_context io;
    std::optional<rebound::asio::Result<int>> result;
    asio::co_spawn(io,
                   executor.run(
                       policy, []() -> asio::awaitable<int> { co_return 7; }, asio::use_awaitable),
                   [&](std::exception_ptr error, rebound::asio::Result<int> r) {
                       CHECK_FALSE(error);
                       result = std::move(r);
                   });
    io.run();
    REQUIRE(result);
    CHECK(result->succeeded());
    CHECK(result->attempts == 1);
    CHECK(result->value == 7);
    CHECK(result->policy == policy);
    CHECK(result->via == rebound::ResolvedVia::Code);
    CHECK(budget.tokens() > spent);
}

namespace {

// `attempts` attempts `delay` apart, each cut off after 20ms, retrying statement_timeout.
std::shared_ptr<const rebound::Policy> timeout_policy(int attempts = 3,
                                                      rebound::Duration delay = 50ms) {
    return rebound::PolicyBuilder("bounded")
        .max_attempts(attempts)
        .backoff(rebound::Backoff::fixed(delay))
        .jitter(rebound::Jitter::none())
        .attempt_timeout(20ms)
        .retry_on(rebound::Matcher::of_category(ErrorCategory::StatementTimeout))
        .build();
}

// `attempts` attempts `delay` apart, retrying transient errors.
std::shared_ptr<const rebound::Policy> fixed_delay_policy(int attempts,
                                                          rebound::Duration delay = 100ms,
                                                          std::string name = "kept") {
    return rebound::PolicyBuilder(std::move(name))
        .max_attempts(attempts)
        .backoff(rebound::Backoff::fixed(delay))
        .jitter(rebound::Jitter::none())
        .retry_on(rebound::Matcher::transient())
        .build();
}

std::shared_ptr<const rebound::Policy> hourly_policy(int attempts) {
    return fixed_delay_policy(attempts, 1h, "hourly");
}

// Work that fails with a deadlock while `*failures` is above zero (counting it down), then
// answers 7; counts its calls.
struct FailThenSeven {
    int* failures;
    int* calls;
    asio::awaitable<int> operator()() const {
        ++*calls;
        if (*failures > 0) {
            --*failures;
            throw rebound::Error(ErrorCategory::Deadlock, "scripted");
        }
        co_return 7;
    }
};

// An attempt that waits an hour on a timer, unless cancelled.
struct SlowAttempt {
    bool* waiting;
    bool* aborted;
    asio::awaitable<int> operator()() const {
        asio::steady_timer timer(co_await asio::this_coro::executor, 1h);
        *waiting = true;
        try {
            co_await timer.async_wait(asio::use_awaitable);
        } catch (const std::system_error& error) {
            *aborted = error.code() == asio::error::operation_aborted;
            throw;
        }
        co_return 1;
    }
};

// Work whose first attempt is a SlowAttempt and whose later ones return 42; counts its calls.
struct SlowThenAnswer {
    SlowAttempt slow;
    int* calls;
    asio::awaitable<int> operator()(const rebound::AttemptInfo& attempt) const {
        ++*calls;
        if (attempt.attempt == 1) {
            co_return co_await slow();
        }
        co_return 42;
    }
};

// Runs the io_context one handler at a time until `reached` (at most 1000 handlers).
template <typename Condition>
void run_until(asio::io_context& io, Condition reached) {
    for (int i = 0; i < 1000 && !reached(); ++i) {
        io.run_one();
    }
    REQUIRE(reached());
}

}  // namespace

TEST_CASE("terminal cancellation while waiting ends the run at once, keeping the last error",
          "[asio][cancellation]") {
    EventLog log;
    const rebound::asio::RetryExecutor executor({.listeners = {&log}});
    asio::io_context io;
    asio::cancellation_signal signal;
    std::optional<rebound::asio::Result<void>> result;
    executor.run(
        hourly_policy(3),
        []() -> asio::awaitable<void> {
            throw rebound::Error(ErrorCategory::Deadlock, "victim");
            co_return;
        },
        asio::bind_cancellation_slot(
            signal.slot(),
            asio::bind_executor(io, [&](std::exception_ptr error, rebound::asio::Result<void> r) {
                CHECK_FALSE(error);
                result = std::move(r);
            })));
    run_until(io, [&] { return log.lines.size() == 2; });  // waiting an hour
    signal.emit(asio::cancellation_type::terminal);
    io.run();
    REQUIRE(result);
    CHECK(result->outcome == RetryOutcome::Cancelled);
    CHECK(result->attempts == 1);
    REQUIRE(result->last_error);
    CHECK(result->last_error->description().category == ErrorCategory::Deadlock);
    CHECK(log.lines ==
          Events{"start 1", "retry 1 deadlock 3600000000us", "stopped cancelled after 1"});
}

TEST_CASE("terminal cancellation inside an attempt cancels the attempt and ends the run",
          "[asio][cancellation]") {
    const rebound::asio::RetryExecutor executor;
    asio::io_context io;
    asio::cancellation_signal signal;
    bool waiting = false;
    bool aborted = false;
    std::optional<rebound::asio::Result<int>> result;
    executor.run(hourly_policy(3), SlowAttempt{&waiting, &aborted},
                 asio::bind_cancellation_slot(
                     signal.slot(), asio::bind_executor(io, [&](std::exception_ptr error,
                                                                rebound::asio::Result<int> r) {
                         CHECK_FALSE(error);
                         result = std::move(r);
                     })));
    run_until(io, [&] { return waiting; });
    signal.emit(asio::cancellation_type::terminal);
    io.run();
    REQUIRE(result);
    CHECK(result->outcome == RetryOutcome::Cancelled);
    CHECK(result->attempts == 1);
    CHECK_FALSE(result->value);
    CHECK_FALSE(result->last_error);
    CHECK(aborted);  // the attempt received the cancellation
}

TEST_CASE("a stop token ends the run while it waits and while it is inside an attempt",
          "[asio][cancellation]") {
    const rebound::asio::RetryExecutor executor;
    asio::io_context io;
    std::stop_source stop;
    bool waiting = false;
    bool aborted = false;
    int calls = 0;
    std::optional<rebound::asio::Result<int>> result;
    auto on_done =
        asio::bind_executor(io, [&](std::exception_ptr error, rebound::asio::Result<int> r) {
            CHECK_FALSE(error);
            result = std::move(r);
        });
    SECTION("waiting") {
        executor.run(hourly_policy(3),
                     [&]() -> asio::awaitable<int> {
                         ++calls;
                         throw rebound::Error(ErrorCategory::Deadlock, "victim");
                         co_return 0;
                     },
                     on_done, {.stop = stop.get_token()});
        run_until(io, [&] { return calls == 1; });
        io.poll();  // the decision and the start of the wait
        stop.request_stop();
        io.run();
        REQUIRE(result);
        CHECK(result->outcome == RetryOutcome::Cancelled);
        CHECK(calls == 1);
        REQUIRE(result->last_error);
    }
    SECTION("inside an attempt") {
        executor.run(hourly_policy(3), SlowAttempt{&waiting, &aborted}, on_done,
                     {.stop = stop.get_token()});
        run_until(io, [&] { return waiting; });
        stop.request_stop();
        io.run();
        REQUIRE(result);
        CHECK(result->outcome == RetryOutcome::Cancelled);
        CHECK(aborted);
    }
    SECTION("set before the run starts: no attempt") {
        stop.request_stop();
        executor.run(hourly_policy(3), SlowAttempt{&waiting, &aborted}, on_done,
                     {.stop = stop.get_token()});
        io.run();
        REQUIRE(result);
        CHECK(result->outcome == RetryOutcome::Cancelled);
        CHECK(result->attempts == 0);
        CHECK_FALSE(waiting);
    }
}

TEST_CASE("attempt_timeout cancels a slow attempt, which fails with statement_timeout",
          "[asio][timeout]") {
    rebound::testing::ManualClock clock;
    rebound::asio::VirtualTime time(clock);
    EventLog log;
    const rebound::asio::RetryExecutor executor({.clock = &clock, .listeners = {&log}}, &time);
    const auto policy = timeout_policy();
    asio::io_context io;
    bool waiting = false;
    bool aborted = false;
    int calls = 0;
    std::optional<rebound::asio::Result<int>> result;
    executor.run(
        policy,
        [&](const rebound::AttemptInfo& attempt) -> asio::awaitable<int> {
            ++calls;
            CHECK(attempt.attempt_timeout == rebound::Duration{20ms});
            if (attempt.attempt == 1) {
                co_return co_await SlowAttempt{&waiting, &aborted}();
            }
            co_return 42;
        },
        asio::bind_executor(io, [&](std::exception_ptr error, rebound::asio::Result<int> r) {
            CHECK_FALSE(error);
            result = std::move(r);
        }));
    io.run();
    REQUIRE(result);
    CHECK(result->outcome == RetryOutcome::Succeeded);
    CHECK(result->value == 42);
    CHECK(calls == 2);
    CHECK(aborted);
    REQUIRE(result->last_error);
    CHECK(result->last_error->description().category == ErrorCategory::StatementTimeout);
    CHECK(log.lines ==
          Events{"start 1", "retry 1 statement_timeout 50000us", "start 2", "succeeded after 2"});
}

TEST_CASE("error codes of a failed attempt classify by their meaning for retrying",
          "[asio][errors]") {
    const rebound::asio::RetryExecutor executor;
    const auto policy = rebound::PolicyBuilder("once").max_attempts(1).build();
    const auto category_after = [&](std::error_code code) {
        asio::io_context io;
        std::optional<ErrorCategory> category;
        executor.run(
            policy,
            [code]() -> asio::awaitable<void> {
                throw std::system_error(code);
                co_return;
            },
            asio::bind_executor(io, [&](std::exception_ptr, rebound::asio::Result<void> r) {
                if (r.last_error) {
                    category = r.last_error->description().category;
                }
            }));
        io.run();
        return category;
    };
    CHECK(category_after(asio::error::connection_refused) == ErrorCategory::ConnectionFailure);
    CHECK(category_after(asio::error::eof) == ErrorCategory::ConnectionLost);
    CHECK(category_after(asio::error::timed_out) == ErrorCategory::StatementTimeout);
}

TEST_CASE("a returned rebound::Error fails the attempt as in the blocking executor",
          "[asio][errors]") {
    rebound::testing::ManualClock clock;
    rebound::asio::VirtualTime time(clock);
    const rebound::asio::RetryExecutor executor({.clock = &clock}, &time);
    asio::io_context io;
    int calls = 0;
    std::optional<rebound::asio::Result<std::optional<rebound::Error>>> result;
    executor.run(
        hourly_policy(3),
        [&]() -> asio::awaitable<std::optional<rebound::Error>> {
            if (++calls == 1) {
                co_return rebound::Error(ErrorCategory::Deadlock, "returned");
            }
            co_return std::nullopt;
        },
        asio::bind_executor(
            io, [&](std::exception_ptr, rebound::asio::Result<std::optional<rebound::Error>> r) {
                result = std::move(r);
            }));
    io.run();
    REQUIRE(result);
    CHECK(result->outcome == RetryOutcome::Succeeded);
    CHECK(calls == 2);
    CHECK(time.delays() == std::vector<rebound::Duration>{1h});
}

TEST_CASE("the run takes any completion token", "[asio][tokens]") {
    rebound::testing::ManualClock clock;
    rebound::asio::VirtualTime time(clock);
    const rebound::asio::RetryExecutor executor({.clock = &clock}, &time);
    asio::io_context io;
    int calls = 0;
    const auto flaky = [&]() -> asio::awaitable<std::string> {
        if (++calls % 2 == 1) {
            throw std::system_error(asio::error::connection_reset);
        }
        co_return "reply " + std::to_string(calls);
    };
    std::vector<std::string> replies;
    SECTION("use_awaitable") {
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                const auto r = co_await executor.run(hourly_policy(3), flaky, asio::use_awaitable);
                CHECK(r.attempts == 2);
                replies.push_back(r.value.value_or("none"));
            },
            asio::detached);
        io.run();
        CHECK(replies == std::vector<std::string>{"reply 2"});
    }
    SECTION("deferred, then a callback and use_awaitable") {
        auto deferred = executor.run(hourly_policy(3), flaky, asio::experimental::deferred);
        CHECK(calls == 0);  // nothing starts before the deferred operation is given a token
        std::move(deferred)(
            asio::bind_executor(io, [&](std::exception_ptr, rebound::asio::Result<std::string> r) {
                replies.push_back(r.value.value_or("none"));
            }));
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                const auto r = co_await executor.run(
                    hourly_policy(3), flaky, asio::experimental::deferred)(asio::use_awaitable);
                replies.push_back(r.value.value_or("none"));
            },
            asio::detached);
        io.run();
        CHECK(calls == 4);
        CHECK(replies.size() == 2);
    }
    SECTION("a callback") {
        executor.run(hourly_policy(3), flaky,
                     asio::bind_executor(
                         io, [&](std::exception_ptr error, rebound::asio::Result<std::string> r) {
                             CHECK_FALSE(error);
                             replies.push_back(r.value.value_or("none"));
                         }));
        CHECK(calls == 0);  // the run never completes inside its initiating function
        io.run();
        CHECK(replies == std::vector<std::string>{"reply 2"});
    }
}

TEST_CASE("an on_failure hook that throws on a breaker's refusal aborts the run",
          "[asio][breaker]") {
    rebound::testing::ManualClock clock;
    const auto policy = rebound::PolicyBuilder("background")
                            .max_attempts(5)
                            .backoff(rebound::Backoff::fixed(50ms))
                            .jitter(rebound::Jitter::none())
                            .retry_on(rebound::Matcher::transient())
                            .breaker(one_failure_breaker(clock))
                            .build();
    rebound::asio::VirtualTime virtual_time(clock);
    const rebound::asio::RetryExecutor executor({.clock = &clock}, &virtual_time);
    asio::io_context io;
    std::string caught;
    const auto give_up_when_refused = [](const rebound::FailureEvent& event) {
        if (event.failure.description().category == ErrorCategory::CircuitOpen) {
            throw std::runtime_error("refused");
        }
    };
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            try {
                co_await executor.run(policy,
                                      []() -> asio::awaitable<void> {
                                          throw rebound::Error(ErrorCategory::ConnectionLost,
                                                               "gone");
                                          co_return;
                                      },
                                      asio::use_awaitable, {.on_failure = give_up_when_refused});
            } catch (const std::runtime_error& error) {
                caught = error.what();
            }
        },
        asio::detached);
    io.run();
    CHECK(caught == "refused");
}

TEST_CASE("an on_failure hook that throws aborts the run with its exception", "[asio][tokens]") {
    const rebound::asio::RetryExecutor executor;
    asio::io_context io;
    std::string caught;
    const auto abort = [](const rebound::FailureEvent&) {
        throw std::runtime_error("rollback failed");
    };
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            try {
                co_await executor.run(hourly_policy(3),
                                      []() -> asio::awaitable<void> {
                                          throw rebound::Error(ErrorCategory::Deadlock, "victim");
                                          co_return;
                                      },
                                      asio::use_awaitable, {.on_failure = abort});
            } catch (const std::runtime_error& error) {
                caught = error.what();
            }
        },
        asio::detached);
    io.run();
    CHECK(caught == "rollback failed");
}

namespace {

// A value that is move-only and has no default constructor.
class Ticket {
  public:
    explicit Ticket(int number) : number_(std::make_unique<int>(number)) {}
    int number() const { return *number_; }

  private:
    std::unique_ptr<int> number_;
};

// An initiating function completing with (error_code, int): each call completes (through a post)
// with the next scripted error, or with `calls` once the script is spent.
struct ScriptedOperation {
    asio::io_context* io;
    std::vector<std::error_code>* errors;
    int* calls;
    template <typename Token>
    auto operator()(Token&& token) const {
        return asio::async_initiate<Token, void(std::error_code, int)>(
            [this](auto handler) {
                const int call = ++*calls;
                const auto index = static_cast<std::size_t>(call - 1);
                const std::error_code error =
                    index < errors->size() ? (*errors)[index] : std::error_code{};
                asio::post(*io, [handler = std::move(handler), error, call]() mutable {
                    std::move(handler)(error, call);
                });
            },
            token);
    }
};

}  // namespace

TEST_CASE("an initiating function completing with (error_code, T) is retried on its error code",
          "[asio][initiating]") {
    rebound::testing::ManualClock clock;
    rebound::asio::VirtualTime time(clock);
    const rebound::asio::RetryExecutor executor({.clock = &clock}, &time);
    asio::io_context io;
    std::vector<std::error_code> errors{asio::error::connection_reset,
                                        asio::error::connection_refused};
    int calls = 0;
    std::optional<rebound::asio::Result<int>> result;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            result = co_await executor.run(
                hourly_policy(5), ScriptedOperation{&io, &errors, &calls}, asio::use_awaitable);
        },
        asio::detached);
    io.run();
    REQUIRE(result);
    CHECK(result->outcome == RetryOutcome::Succeeded);
    CHECK(result->attempts == 3);
    CHECK(result->value == 3);
    REQUIRE(result->last_error);
    CHECK(result->last_error->description().category == ErrorCategory::ConnectionFailure);
    CHECK(time.delays() == std::vector<rebound::Duration>{1h, 1h});
}

TEST_CASE("an initiating function that takes the attempt and completes with (error_code) alone",
          "[asio][initiating]") {
    const rebound::asio::RetryExecutor executor;
    const auto policy = timeout_policy(2, 1ms);
    asio::io_context io;
    asio::steady_timer timer(io);
    std::vector<int> attempts;
    std::optional<rebound::asio::Result<void>> result;
    // The first attempt waits an hour on a real timer, which attempt_timeout cancels; the second
    // one's timer expires at once.
    executor.run(
        policy,
        [&](const rebound::AttemptInfo& attempt, auto token) {
            attempts.push_back(attempt.attempt);
            timer.expires_after(attempt.attempt == 1 ? rebound::Duration{1h}
                                                     : rebound::Duration{0});
            return timer.async_wait(token);
        },
        asio::bind_executor(io, [&](std::exception_ptr error, rebound::asio::Result<void> r) {
            CHECK_FALSE(error);
            result = std::move(r);
        }));
    io.run();
    REQUIRE(result);
    CHECK(result->outcome == RetryOutcome::Succeeded);
    CHECK(attempts == std::vector<int>{1, 2});
    REQUIRE(result->last_error);
    CHECK(result->last_error->description().category == ErrorCategory::StatementTimeout);
}

TEST_CASE("an initiating function reads from a real loopback socket", "[asio][initiating]") {
    const rebound::asio::RetryExecutor executor;
    asio::io_context io;
    asio::ip::tcp::acceptor acceptor(io, {asio::ip::address_v4::loopback(), 0});
    asio::ip::tcp::socket server(io);
    asio::ip::tcp::socket client(io);
    client.connect(acceptor.local_endpoint());
    acceptor.accept(server);
    std::array<char, 16> reply{};
    std::optional<rebound::asio::Result<std::size_t>> result;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            co_await asio::async_write(server, asio::buffer(std::string_view("pong")),
                                       asio::use_awaitable);
            result = co_await executor.run(
                hourly_policy(3),
                [&](auto token) { return client.async_read_some(asio::buffer(reply), token); },
                asio::use_awaitable);
        },
        asio::detached);
    io.run();
    REQUIRE(result);
    CHECK(result->outcome == RetryOutcome::Succeeded);
    REQUIRE(result->value == 4U);
    CHECK(std::string_view(reply.data(), 4) == "pong");
}

TEST_CASE("a move-only value without a default constructor is delivered by every token",
          "[asio][tokens]") {
    rebound::testing::ManualClock clock;
    rebound::asio::VirtualTime time(clock);
    const rebound::asio::RetryExecutor executor({.clock = &clock}, &time);
    asio::io_context io;
    int calls = 0;
    const auto flaky = [&]() -> asio::awaitable<Ticket> {
        if (++calls % 2 == 1) {
            throw std::system_error(asio::error::connection_reset);
        }
        co_return Ticket(calls);
    };
    std::vector<int> tickets;
    const auto keep = [&](std::exception_ptr error, rebound::asio::Result<Ticket> r) {
        CHECK_FALSE(error);
        REQUIRE(r.value);
        tickets.push_back(r.value->number());
    };
    std::stop_source stop;
    SECTION("use_awaitable, awaited inline and with a stop token") {
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                rebound::asio::Result<Ticket> r =
                    co_await executor.run(hourly_policy(3), flaky, asio::use_awaitable);
                keep(nullptr, std::move(r));
                // A named RunOptions: GCC 12 destroys a braced temporary argument of a call
                // inside a co_await expression twice.
                rebound::RunOptions options{.stop = stop.get_token()};
                keep(nullptr, co_await executor.run(hourly_policy(3), flaky, asio::use_awaitable,
                                                    std::move(options)));
            },
            asio::detached);
        io.run();
        CHECK(tickets == std::vector<int>{2, 4});
    }
    SECTION("a callback and deferred") {
        executor.run(hourly_policy(3), flaky, asio::bind_executor(io, keep));
        executor.run(hourly_policy(3), flaky,
                     asio::experimental::deferred)(asio::bind_executor(io, keep));
        io.run();
        CHECK(tickets.size() == 2);
    }
}

TEST_CASE("a run awaited inline is cancelled through the awaiting coroutine",
          "[asio][cancellation]") {
    EventLog log;
    const rebound::asio::RetryExecutor executor({.listeners = {&log}});
    asio::io_context io;
    bool waiting = false;
    bool aborted = false;
    std::optional<rebound::asio::Result<int>> result;
    asio::cancellation_signal signal;
    SECTION("inside an attempt") {
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                result = co_await executor.run(hourly_policy(3), SlowAttempt{&waiting, &aborted},
                                               asio::use_awaitable);
            },
            asio::bind_cancellation_slot(signal.slot(), asio::detached));
        run_until(io, [&] { return waiting; });
        signal.emit(asio::cancellation_type::terminal);
        io.run();
        REQUIRE(result);
        CHECK(result->outcome == RetryOutcome::Cancelled);
        CHECK(aborted);
        CHECK(log.lines == Events{"start 1", "stopped cancelled after 1"});
    }
    SECTION("while waiting") {
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                result = co_await executor.run(
                    hourly_policy(3),
                    []() -> asio::awaitable<int> {
                        throw rebound::Error(ErrorCategory::Deadlock, "victim");
                        co_return 0;
                    },
                    asio::use_awaitable);
            },
            asio::bind_cancellation_slot(signal.slot(), asio::detached));
        run_until(io, [&] { return log.lines.size() == 2; });
        signal.emit(asio::cancellation_type::terminal);
        io.run();
        REQUIRE(result);
        CHECK(result->outcome == RetryOutcome::Cancelled);
        CHECK(result->attempts == 1);
        CHECK(log.lines ==
              Events{"start 1", "retry 1 deadlock 3600000000us", "stopped cancelled after 1"});
    }
}

TEST_CASE("a run cancelled before its coroutine starts completes as cancelled",
          "[asio][cancellation]") {
    const rebound::asio::RetryExecutor executor;
    asio::io_context io;
    asio::cancellation_signal signal;
    bool waiting = false;
    bool aborted = false;
    std::optional<rebound::asio::Result<int>> result;
    std::exception_ptr error;
    executor.run(hourly_policy(3), SlowAttempt{&waiting, &aborted},
                 asio::bind_cancellation_slot(
                     signal.slot(), asio::bind_executor(io, [&](std::exception_ptr e,
                                                                rebound::asio::Result<int> r) {
                         error = e;
                         result = std::move(r);
                     })));
    signal.emit(asio::cancellation_type::terminal);  // the start is still queued
    io.run();
    REQUIRE(result);
    CHECK_FALSE(error);
    CHECK(result->outcome == RetryOutcome::Cancelled);
    CHECK(result->attempts == 0);
    CHECK(result->policy != nullptr);
    CHECK_FALSE(waiting);
}

TEST_CASE("a run under a policy the caller keeps owns no reference to it", "[asio][policy_ref]") {
    const DrainedBudget drained = drained_budget_policy("kept");
    const std::shared_ptr<const rebound::Policy>& policy = drained.policy;
    const double spent = drained.tokens;
    const rebound::RetryBudget& budget = *policy->budget();
    const rebound::asio::RetryExecutor executor;
    asio::io_context io;
    std::optional<rebound::asio::Result<int>> result;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            result = co_await executor.run(
                *policy, []() -> asio::awaitable<int> { co_return 7; }, asio::use_awaitable);
        },
        asio::detached);
    io.run();
    REQUIRE(result);
    CHECK(result->succeeded());
    CHECK(result->attempts == 1);
    CHECK(result->value == 7);
    CHECK(result->policy.get() == policy.get());
    CHECK(result->policy.use_count() == 0);  // an aliasing std::shared_ptr with no owner
    CHECK(policy.use_count() == 1);
    CHECK(result->via == rebound::ResolvedVia::Code);
    CHECK(budget.tokens() > spent);
}

TEST_CASE("a run under a policy the caller keeps makes the same decisions and events",
          "[asio][policy_ref][equivalence]") {
    const auto policy = rebound::PolicyBuilder("kept")
                            .max_attempts(4)
                            .backoff(rebound::Backoff::exponential(100ms, 2.0, 1s))
                            .jitter(rebound::Jitter::full())
                            .retry_on(rebound::Matcher::transient())
                            .build();
    const Script script{ErrorCategory::Deadlock, ErrorCategory::LockTimeout, std::nullopt};
    // The same script through both entries; `by_reference` takes the policy as const Policy&.
    const auto run = [&](bool by_reference, bool listening) {
        rebound::testing::ManualClock clock;
        rebound::asio::VirtualTime time(clock);
        rebound::testing::ScriptedRandomSource random{0.25, 0.75, 0.5};
        EventLog log;
        const rebound::asio::RetryExecutor executor(
            {.clock = &clock, .random = &random, .listeners = listeners_of(log, listening)}, &time);
        asio::io_context io;
        std::size_t calls = 0;
        const auto work = [&]() -> asio::awaitable<void> {
            play(script, calls, clock);
            co_return;
        };
        rebound::asio::Result<void> result;
        const auto done = [&] {
            return asio::bind_executor(
                io, [&](std::exception_ptr error, rebound::asio::Result<void> r) {
                    CHECK_FALSE(error);
                    result = std::move(r);
                });
        };
        if (by_reference) {
            executor.run(*policy, work, done());
        } else {
            executor.run(policy, work, done());
        }
        io.run();
        CHECK(result.policy.get() == policy.get());
        return trace_of(result, time.delays(), log.lines);
    };
    for (const bool listening : {true, false}) {
        const Trace shared = run(false, listening);
        const Trace kept = run(true, listening);
        CHECK(kept.outcome == RetryOutcome::Succeeded);
        CHECK(kept.attempts == 3);
        CHECK(kept.outcome == shared.outcome);
        CHECK(kept.attempts == shared.attempts);
        CHECK(kept.reason == shared.reason);
        CHECK(kept.last_error == shared.last_error);
        CHECK(kept.delays == shared.delays);
        CHECK(kept.events == shared.events);
    }
}

TEST_CASE("a run under a policy the caller keeps honours attempt_timeout and cancellation",
          "[asio][policy_ref][timeout][cancellation]") {
    rebound::testing::ManualClock clock;
    rebound::asio::VirtualTime time(clock);
    const rebound::asio::RetryExecutor executor({.clock = &clock}, &time);
    asio::io_context io;
    bool waiting = false;
    bool aborted = false;
    SECTION("attempt_timeout, awaited inline (the run is then spawned on a strand)") {
        const auto policy = timeout_policy();
        int calls = 0;
        std::optional<rebound::asio::Result<int>> result;
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                result = co_await executor.run(
                    *policy, SlowThenAnswer{{&waiting, &aborted}, &calls}, asio::use_awaitable);
            },
            asio::detached);
        io.run();
        REQUIRE(result);
        CHECK(result->outcome == RetryOutcome::Succeeded);
        CHECK(result->value == 42);
        CHECK(calls == 2);
        CHECK(aborted);
        REQUIRE(result->last_error);
        CHECK(result->last_error->description().category == ErrorCategory::StatementTimeout);
    }
    SECTION("terminal cancellation inside an attempt") {
        const auto policy = hourly_policy(3);
        asio::cancellation_signal signal;
        std::optional<rebound::asio::Result<int>> result;
        executor.run(*policy, SlowAttempt{&waiting, &aborted},
                     asio::bind_cancellation_slot(
                         signal.slot(), asio::bind_executor(io, [&](std::exception_ptr error,
                                                                    rebound::asio::Result<int> r) {
                             CHECK_FALSE(error);
                             result = std::move(r);
                         })));
        run_until(io, [&] { return waiting; });
        signal.emit(asio::cancellation_type::terminal);
        io.run();
        REQUIRE(result);
        CHECK(result->outcome == RetryOutcome::Cancelled);
        CHECK(result->attempts == 1);
        CHECK(aborted);
        CHECK(result->policy.get() == policy.get());
    }
}

TEST_CASE("a run that fills the caller's result in place", "[asio][policy_ref][in_place]") {
    rebound::testing::ManualClock clock;
    rebound::asio::VirtualTime time(clock);
    EventLog log;
    const rebound::asio::RetryExecutor executor({.clock = &clock, .listeners = {&log}}, &time);
    asio::io_context io;
    SECTION("awaited: a success at once, and retries with the same decisions as a returned one") {
        const auto policy = fixed_delay_policy(4);
        int failures = 0;
        int calls = 0;
        const FailThenSeven work{&failures, &calls};
        rebound::asio::Result<int> at_once;
        rebound::asio::Result<int> in_place;
        rebound::asio::Result<int> returned;
        Events in_place_events;
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                co_await executor.run(*policy, work, at_once, asio::use_awaitable);
                log.lines.clear();
                failures = 2;
                co_await executor.run(*policy, work, in_place, asio::use_awaitable);
                in_place_events = log.lines;
                log.lines.clear();
                failures = 2;
                returned = co_await executor.run(*policy, work, asio::use_awaitable);
            },
            asio::detached);
        io.run();
        CHECK(at_once.succeeded());
        CHECK(at_once.attempts == 1);
        CHECK(at_once.value == 7);
        CHECK(at_once.policy.get() == policy.get());
        CHECK(at_once.policy.use_count() == 0);
        CHECK(in_place.succeeded());
        CHECK(in_place.attempts == 3);
        CHECK(in_place.value == 7);
        CHECK(in_place.attempts == returned.attempts);
        REQUIRE(in_place.last_error);
        CHECK(in_place.last_error->description().category == ErrorCategory::Deadlock);
        CHECK(in_place.last_decision.delay == returned.last_decision.delay);
        CHECK(in_place_events == log.lines);
        CHECK(in_place_events == Events{"start 1", "retry 1 deadlock 100000us", "start 2",
                                        "retry 2 deadlock 100000us", "start 3",
                                        "succeeded after 3"});
    }
    SECTION("a callback: the completion carries only the exception") {
        const auto policy = hourly_policy(3);
        rebound::asio::Result<std::string> result;
        bool completed = false;
        executor.run(
            *policy, []() -> asio::awaitable<std::string> { co_return "ok"; }, result,
            asio::bind_executor(io, [&](std::exception_ptr error) {
                CHECK_FALSE(error);
                completed = true;
            }));
        io.run();
        CHECK(completed);
        CHECK(result.succeeded());
        CHECK(result.value == "ok");
        CHECK(log.lines == Events{"start 1", "succeeded after 1"});
    }
    SECTION("cancelled before its coroutine starts") {
        const auto policy = hourly_policy(3);
        asio::cancellation_signal signal;
        bool waiting = false;
        bool aborted = false;
        rebound::asio::Result<int> result;
        bool completed = false;
        executor.run(*policy, SlowAttempt{&waiting, &aborted}, result,
                     asio::bind_cancellation_slot(
                         signal.slot(), asio::bind_executor(io, [&](std::exception_ptr error) {
                             CHECK_FALSE(error);
                             completed = true;
                         })));
        signal.emit(asio::cancellation_type::terminal);  // the start is still queued
        io.run();
        CHECK(completed);
        CHECK(result.outcome == RetryOutcome::Cancelled);
        CHECK(result.attempts == 0);
        CHECK(result.policy.get() == policy.get());
        CHECK_FALSE(waiting);
    }
    SECTION("attempt_timeout (the run on a strand with a canceller)") {
        const auto policy = timeout_policy();
        bool waiting = false;
        bool aborted = false;
        int calls = 0;
        rebound::asio::Result<int> result;
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                co_await executor.run(*policy, SlowThenAnswer{{&waiting, &aborted}, &calls}, result,
                                      asio::use_awaitable);
            },
            asio::detached);
        io.run();
        CHECK(result.outcome == RetryOutcome::Succeeded);
        CHECK(result.value == 42);
        CHECK(result.attempts == 2);
        CHECK(aborted);
        CHECK(log.lines == Events{"start 1", "retry 1 statement_timeout 50000us", "start 2",
                                  "succeeded after 2"});
    }
}

namespace {

// A database error the exception classifier does not know: never retried.
struct LedgerClosed : std::runtime_error {
    LedgerClosed() : std::runtime_error("ledger closed") {}
};

}  // namespace

TEST_CASE("a run that gives only its value, or throws the last attempt's error",
          "[asio][policy_ref][run_value]") {
    rebound::testing::ManualClock clock;
    rebound::asio::VirtualTime time(clock);
    EventLog log;
    const rebound::asio::RetryExecutor executor({.clock = &clock, .listeners = {&log}}, &time);
    asio::io_context io;
    const auto policy = fixed_delay_policy(3);
    int failures = 0;
    int calls = 0;
    const FailThenSeven work{&failures, &calls};
    // Runs `body` in a coroutine to its end.
    const auto run_to_end = [&](auto body) {
        asio::co_spawn(io, std::move(body), asio::detached);
        io.run();
        io.restart();
    };
    SECTION("the value at once, and after retries with the events of a run filled in place") {
        int at_once = 0;
        int retried = 0;
        rebound::asio::Result<int> in_place;
        Events in_place_events;
        Events value_events;
        run_to_end([&]() -> asio::awaitable<void> {
            at_once = co_await executor.run_value(*policy, work);
            log.lines.clear();
            failures = 2;
            co_await executor.run(*policy, work, in_place, asio::use_awaitable);
            in_place_events = log.lines;
            log.lines.clear();
            failures = 2;
            retried = co_await executor.run_value(*policy, work);
            value_events = log.lines;
            co_await executor.run_value(*policy, [&]() -> asio::awaitable<void> {
                ++calls;
                co_return;
            });
        });
        CHECK(at_once == 7);
        CHECK(retried == 7);
        CHECK(calls == 8);
        CHECK(in_place.attempts == 3);
        CHECK(value_events == in_place_events);
        CHECK(log.lines.back() == "succeeded after 1");  // the void work's run
        CHECK(time.delays() == std::vector<rebound::Duration>(4, 100ms));
    }
    SECTION("exhausted: the last attempt's exception, as the work threw it") {
        failures = 3;
        std::string caught;
        run_to_end([&]() -> asio::awaitable<void> {
            try {
                co_await executor.run_value(*policy, work);
            } catch (const rebound::Error& error) {
                caught = error.what();
            }
        });
        CHECK(caught == "scripted");
        CHECK(calls == 3);
        CHECK(log.lines.back() == "stopped exhausted after 3");
    }
    SECTION("a failure never retried: the work's own exception type") {
        bool caught = false;
        run_to_end([&]() -> asio::awaitable<void> {
            try {
                co_await executor.run_value(*policy, [&]() -> asio::awaitable<void> {
                    ++calls;
                    throw LedgerClosed();
                    co_return;
                });
            } catch (const LedgerClosed&) {
                caught = true;
            }
        });
        CHECK(caught);
        CHECK(calls == 1);
    }
    SECTION("a returned rebound::Error is thrown") {
        std::optional<rebound::Error> last;
        std::string caught;
        run_to_end([&]() -> asio::awaitable<void> {
            try {
                last = co_await executor.run_value(
                    *policy, [&]() -> asio::awaitable<std::optional<rebound::Error>> {
                        ++calls;
                        co_return rebound::Error(ErrorCategory::Deadlock, "returned");
                    });
            } catch (const rebound::Error& error) {
                caught = error.what();
            }
        });
        CHECK(caught == "returned");
        CHECK(calls == 3);
        CHECK_FALSE(last);
    }
    SECTION("an attempt its open breaker refuses: a rebound::Error of category circuit_open") {
        const auto guarded = rebound::PolicyBuilder("guarded")
                                 .max_attempts(1)
                                 .retry_on(rebound::Matcher::transient())
                                 .breaker(one_failure_breaker(clock))
                                 .build();
        failures = 1;
        std::optional<ErrorCategory> first;
        std::optional<ErrorCategory> second;
        run_to_end([&]() -> asio::awaitable<void> {
            for (std::optional<ErrorCategory>* caught : {&first, &second}) {
                try {
                    co_await executor.run_value(*guarded, work);
                } catch (const rebound::Error& error) {
                    *caught = error.description().category;
                }
            }
        });
        CHECK(first == ErrorCategory::Deadlock);      // opens the breaker
        CHECK(second == ErrorCategory::CircuitOpen);  // refused: the work is not called
        CHECK(calls == 1);
    }
    SECTION("cancelled: asio's operation_aborted") {
        const auto hourly = hourly_policy(3);
        bool waiting = false;
        bool aborted = false;
        std::error_code caught;
        asio::cancellation_signal signal;
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                try {
                    co_await executor.run_value(*hourly, SlowAttempt{&waiting, &aborted});
                } catch (const std::system_error& error) {
                    caught = error.code();
                }
            },
            asio::bind_cancellation_slot(signal.slot(), asio::detached));
        run_until(io, [&] { return waiting; });
        signal.emit(asio::cancellation_type::terminal);
        io.run();
        CHECK(aborted);
        CHECK(caught == asio::error::operation_aborted);
        CHECK(log.lines.back() == "stopped cancelled after 1");
    }
    SECTION("attempt_timeout (the run on a strand with a canceller), and void work") {
        const auto bounded = timeout_policy();
        bool waiting = false;
        bool aborted = false;
        int value = 0;
        run_to_end([&]() -> asio::awaitable<void> {
            value =
                co_await executor.run_value(*bounded, SlowThenAnswer{{&waiting, &aborted}, &calls});
            co_await executor.run_value(*bounded, []() -> asio::awaitable<void> { co_return; });
        });
        CHECK(value == 42);
        CHECK(calls == 2);
        CHECK(aborted);
        CHECK(log.lines.back() == "succeeded after 1");
    }
}

TEST_CASE("a run that gives only its value records a success at once with the budget",
          "[asio][policy_ref][run_value][budget]") {
    const DrainedBudget drained = drained_budget_policy("kept");
    asio::io_context io;
    int value = 0;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            // The default executor, through rebound::asio::run_value.
            value = co_await rebound::asio::run_value(
                *drained.policy, []() -> asio::awaitable<int> { co_return 7; });
        },
        asio::detached);
    io.run();
    CHECK(value == 7);
    CHECK(drained.policy->budget()->tokens() > drained.tokens);
}

TEST_CASE("a run under a policy the caller keeps gives deferred and later attempts their info",
          "[asio][policy_ref]") {
    const auto policy = rebound::PolicyBuilder("kept")
                            .max_attempts(3)
                            .backoff(rebound::Backoff::fixed(1ms))
                            .jitter(rebound::Jitter::none())
                            .retry_on(rebound::Matcher::transient())
                            .build();
    asio::io_context io;
    std::vector<int> attempts;
    rebound::asio::Result<int> in_place;
    std::optional<rebound::asio::Result<int>> returned;
    const auto work = [&](const rebound::AttemptInfo& attempt) -> asio::awaitable<int> {
        attempts.push_back(attempt.attempt);
        if (attempt.attempt < 3) {
            throw rebound::Error(ErrorCategory::Deadlock, "scripted");
        }
        co_return attempt.attempt;
    };
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            // The default executor, with a real timer for the 1ms waits.
            co_await rebound::asio::default_executor().run(*policy, work, in_place,
                                                           asio::use_awaitable);
            returned = co_await rebound::asio::run(*policy, work, asio::use_awaitable);
        },
        asio::detached);
    io.run();
    CHECK(attempts == std::vector<int>{1, 2, 3, 1, 2, 3});
    CHECK(in_place.succeeded());
    CHECK(in_place.attempts == 3);
    CHECK(in_place.value == 3);
    REQUIRE(returned);
    CHECK(returned->succeeded());
    CHECK(returned->value == 3);
    CHECK(returned->policy.get() == policy.get());
}
