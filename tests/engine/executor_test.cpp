#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "event_log.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;
using rebound::ErrorCategory;
using rebound::RetryOutcome;

namespace {

using rebound::test_support::EventLog;

rebound::HandlerResolution resolved(std::shared_ptr<const rebound::Policy> policy,
                                    bool idempotent = false) {
    rebound::HandlerResolution resolution;
    resolution.policy = std::move(policy);
    resolution.via = rebound::ResolvedVia::Code;
    resolution.idempotent = idempotent;
    return resolution;
}

std::shared_ptr<const rebound::Policy> fixed_policy(int attempts) {
    return rebound::PolicyBuilder("fixed")
        .max_attempts(attempts)
        .backoff(rebound::Backoff::fixed(100ms))
        .jitter(rebound::Jitter::none())
        .retry_on(rebound::Matcher::transient())
        .build();
}

struct Harness {
    rebound::testing::ManualClock clock;
    rebound::testing::RecordingSleeper sleeper{&clock};
    rebound::testing::ScriptedRandomSource random{0.5};
    EventLog log;

    rebound::RetryExecutor executor(rebound::ExecutorOptions options = {}) {
        options.clock = &clock;
        options.sleeper = &sleeper;
        options.random = &random;
        options.listeners.push_back(&log);
        return rebound::RetryExecutor(std::move(options));
    }
};

class MissingRow : public std::runtime_error {
  public:
    MissingRow() : std::runtime_error("row not found") {}
};
class MissingInvoice : public MissingRow {};

}  // namespace

TEST_CASE("a retryable failure then success retries the whole work", "[executor]") {
    Harness h;
    const auto executor = h.executor();
    std::vector<int> seen;
    const auto result =
        executor.run(resolved(fixed_policy(3)), "ApproveCase",
                     [&](const rebound::AttemptInfo& attempt) {
                         seen.push_back(attempt.attempt);
                         CHECK(attempt.handler == "ApproveCase");
                         CHECK(attempt.command_id == "cmd-1");
                         if (attempt.attempt == 1) {
                             throw rebound::Error(ErrorCategory::Deadlock, "victim");
                         }
                     },
                     {.command_id = "cmd-1"});
    CHECK(result.outcome == RetryOutcome::Succeeded);
    CHECK(result.attempts == 2);
    CHECK(seen == std::vector<int>{1, 2});
    CHECK(h.sleeper.delays() == std::vector<rebound::Duration>{100ms});
    // No deadline and no measure_elapsed: the run never reads the clock.
    CHECK_FALSE(result.elapsed);
    CHECK(h.clock.reads() == 0);
    REQUIRE(result.last_error);
    CHECK(result.last_error->description().category == ErrorCategory::Deadlock);
    CHECK(result.last_error->description().message == "victim");
    CHECK(h.log.lines == std::vector<std::string>{"start 1", "retry 1 deadlock 100000us", "start 2",
                                                  "succeeded after 2"});
}

TEST_CASE("a failure on every attempt ends exhausted with the last error", "[executor]") {
    Harness h;
    const auto executor = h.executor();
    int calls = 0;
    const auto result = executor.run(resolved(fixed_policy(3)), "h", [&] {
        ++calls;
        throw rebound::Error(ErrorCategory::LockTimeout, "attempt " + std::to_string(calls));
    });
    CHECK(result.outcome == RetryOutcome::Exhausted);
    CHECK(result.attempts == 3);
    CHECK(calls == 3);
    CHECK(result.last_error->description().message == "attempt 3");
    CHECK(result.last_decision.reason == rebound::DecisionReason::Exhausted);
    CHECK(h.sleeper.delays().size() == 2);
    CHECK(h.log.lines.back() == "stopped exhausted after 3");
}

TEST_CASE("a non-retryable failure is not retried", "[executor]") {
    Harness h;
    const auto executor = h.executor();
    int calls = 0;
    const auto result = executor.run(resolved(fixed_policy(5)), "h", [&] {
        ++calls;
        throw rebound::Error(ErrorCategory::ConstraintViolation, "duplicate key");
    });
    CHECK(result.outcome == RetryOutcome::NonRetryable);
    CHECK(calls == 1);
    CHECK(h.sleeper.delays().empty());
}

TEST_CASE("commit_outcome_unknown stops unless the handler is idempotent", "[executor]") {
    Harness h;
    const auto executor = h.executor();
    const auto work = [](const rebound::AttemptInfo& a) {
        if (a.attempt == 1) {
            throw rebound::Error(ErrorCategory::CommitOutcomeUnknown, "lost during commit");
        }
    };
    const auto policy = rebound::PolicyBuilder("any")
                            .backoff(rebound::Backoff::fixed(1ms))
                            .jitter(rebound::Jitter::none())
                            .build();
    CHECK(executor.run(resolved(policy), "h", work).outcome == RetryOutcome::OutcomeUnknown);
    CHECK(executor.run(resolved(policy, true), "h", work).outcome == RetryOutcome::Succeeded);
}

TEST_CASE("the deadline stops a run and each attempt is told the time left", "[executor]") {
    Harness h;
    const auto executor = h.executor();
    const auto policy = rebound::PolicyBuilder("deadline")
                            .max_attempts(10)
                            .backoff(rebound::Backoff::fixed(100ms))
                            .jitter(rebound::Jitter::none())
                            .deadline(1s)
                            .attempt_timeout(250ms)
                            .retry_on(rebound::Matcher::transient())
                            .build();
    std::vector<rebound::Duration> time_left;
    const auto result = executor.run(resolved(policy), "h", [&](const rebound::AttemptInfo& a) {
        REQUIRE(a.time_left);
        CHECK(a.attempt_timeout == 250ms);
        time_left.push_back(*a.time_left);
        h.clock.advance(200ms);  // each attempt takes 200ms
        throw rebound::Error(ErrorCategory::ConnectionLost, "reset");
    });
    // Attempts start at 0, 300ms, 600ms; after the third (at 800ms) 800+100 ms fits, the
    // fourth starts at 900ms; after it (1100ms) the next wait would pass the deadline.
    CHECK(result.outcome == RetryOutcome::Deadline);
    CHECK(result.attempts == 4);
    CHECK(time_left == std::vector<rebound::Duration>{1000ms, 700ms, 400ms, 100ms});
    CHECK(result.elapsed == 1100ms);
}

TEST_CASE("measure_elapsed times runs under policies without a deadline", "[executor]") {
    Harness h;
    const auto executor = h.executor({.measure_elapsed = true});
    int calls = 0;
    const auto result = executor.run(resolved(fixed_policy(3)), "h", [&] {
        if (++calls == 1) {
            throw rebound::Error(ErrorCategory::Deadlock, "victim");
        }
    });
    CHECK(result.succeeded());
    CHECK(result.elapsed == 100ms);  // one 100ms wait on the manual clock
    const auto untimed = h.executor().run(resolved(fixed_policy(3)), "h", [] {});
    CHECK_FALSE(untimed.elapsed);
}

TEST_CASE("cancellation during a wait ends the run at once", "[executor]") {
    rebound::testing::ManualClock clock;
    // A sleeper that requests the stop while waiting, as another thread would.
    class CancellingSleeper final : public rebound::Sleeper {
      public:
        explicit CancellingSleeper(std::stop_source* source) : source_(source) {}
        bool sleep_for(rebound::Duration, std::stop_token stop) override {
            ++waits;
            source_->request_stop();
            return !stop.stop_requested();
        }
        int waits = 0;

      private:
        std::stop_source* source_;
    };
    std::stop_source stop;
    CancellingSleeper sleeper(&stop);
    EventLog log;
    const rebound::RetryExecutor executor(
        {.clock = &clock, .sleeper = &sleeper, .listeners = {&log}});
    int calls = 0;
    const auto result = executor.run(resolved(fixed_policy(5)), "h",
                                     [&] {
                                         ++calls;
                                         throw rebound::Error(ErrorCategory::Deadlock, "victim");
                                     },
                                     {.stop = stop.get_token()});
    CHECK(result.outcome == RetryOutcome::Cancelled);
    CHECK(calls == 1);
    CHECK(sleeper.waits == 1);
    CHECK(result.last_error->description().category == ErrorCategory::Deadlock);
    CHECK(log.lines.back() == "stopped cancelled after 1");
}

TEST_CASE("a run cancelled before it starts runs nothing", "[executor]") {
    Harness h;
    const auto executor = h.executor();
    std::stop_source stop;
    stop.request_stop();
    int calls = 0;
    const auto result =
        executor.run(resolved(fixed_policy(3)), "h", [&] { ++calls; }, {.stop = stop.get_token()});
    CHECK(result.outcome == RetryOutcome::Cancelled);
    CHECK(calls == 0);
    CHECK_FALSE(result.last_error);
}

namespace {
class RecordingSink final : public rebound::DeadLetterSink {
  public:
    bool accept(const rebound::DeadLetter& letter) override {
        handler = letter.handler;
        command_id = letter.command_id;
        attempts = letter.attempts;
        message = letter.error.description().message;
        item = std::any_cast<std::string>(letter.item);
        return keep;
    }
    bool keep = true;
    std::string handler, command_id, message, item;
    int attempts = 0;
};
}  // namespace

TEST_CASE("on_exhausted dead_letter hands the item and the last error to the sink", "[executor]") {
    Harness h;
    RecordingSink sink;
    const auto executor = h.executor({.dead_letter_sink = &sink});
    const auto policy = rebound::PolicyBuilder("background")
                            .max_attempts(2)
                            .backoff(rebound::Backoff::fixed(10ms))
                            .jitter(rebound::Jitter::none())
                            .retry_on(rebound::Matcher::transient())
                            .on_exhausted(rebound::ExhaustedAction::DeadLetter)
                            .build();
    rebound::RunOptions options;
    options.command_id = "cmd-9";
    options.item = std::string("order 42");
    const auto fail = [] { throw rebound::Error(ErrorCategory::ServiceUnavailable, "down"); };
    auto result = executor.run(resolved(policy), "orders.ship", fail, options);
    CHECK(result.outcome == RetryOutcome::DeadLettered);
    CHECK(sink.handler == "orders.ship");
    CHECK(sink.command_id == "cmd-9");
    CHECK(sink.attempts == 2);
    CHECK(sink.message == "down");
    CHECK(sink.item == "order 42");

    sink.keep = false;  // a sink that cannot keep the letter leaves the run exhausted
    result = executor.run(resolved(policy), "orders.ship", fail, options);
    CHECK(result.outcome == RetryOutcome::Exhausted);
    // A non-retryable failure is never dead-lettered.
    sink.handler.clear();
    result = executor.run(
        resolved(policy), "orders.ship",
        [] { throw rebound::Error(ErrorCategory::SyntaxError, "bad"); }, options);
    CHECK(result.outcome == RetryOutcome::NonRetryable);
    CHECK(sink.handler.empty());
}

TEST_CASE("registered exception types map to error types, matching base types", "[executor]") {
    rebound::ExceptionClassifier exceptions;
    exceptions.add<MissingRow>("db.missing_row", ErrorCategory::DataError);
    exceptions.add<std::runtime_error>("app.runtime");
    exceptions.add<std::logic_error>("app.bug", ErrorCategory::ClientError);
    CHECK_THROWS_AS(exceptions.add<MissingRow>("again"), std::invalid_argument);
    CHECK_THROWS_AS(exceptions.add<rebound::Error>("again"), std::invalid_argument);
    CHECK_THROWS_AS(exceptions.add<std::out_of_range>("not a name!"), std::invalid_argument);

    // The description's views point into the exception, which dies with the catch block: copy
    // what the checks need while it is alive.
    struct Described {
        std::string error_type;
        std::optional<ErrorCategory> category;
        std::string message;
    };
    const auto describe = [&](auto&& thrower) {
        try {
            thrower();
        } catch (...) {
            const rebound::ErrorDescription d = exceptions.describe_current();
            return Described{std::string(d.error_type), d.category, std::string(d.message)};
        }
        FAIL("nothing thrown");
        return Described{};
    };
    const auto derived = describe([] { throw MissingInvoice(); });
    CHECK(derived.error_type == "db.missing_row");  // via its base MissingRow
    CHECK(derived.category == ErrorCategory::DataError);
    CHECK(derived.message == "row not found");
    CHECK(describe([] { throw std::runtime_error("x"); }).error_type == "app.runtime");
    CHECK(describe([] { throw std::range_error("x"); }).error_type == "app.runtime");
    CHECK(describe([] { throw std::out_of_range("x"); }).error_type == "app.bug");
    // Built-in types beat a registered base class.
    const auto own = describe([] { throw rebound::Error(ErrorCategory::Deadlock, "d"); });
    CHECK(own.category == ErrorCategory::Deadlock);
    CHECK(own.error_type.empty());
    const auto unknown = describe([] { throw 42; });
    CHECK_FALSE(unknown.category);
    CHECK(unknown.error_type.empty());
}

TEST_CASE("a type registered after its subclass still loses to it", "[executor]") {
    rebound::ExceptionClassifier exceptions;
    exceptions.add<std::runtime_error>("app.runtime");
    exceptions.add<MissingInvoice>("billing.missing_invoice");
    exceptions.add<MissingRow>("db.missing_row");
    try {
        throw MissingInvoice();
    } catch (...) {
        CHECK(exceptions.describe_current().error_type == "billing.missing_invoice");
    }
    try {
        throw MissingRow();
    } catch (...) {
        CHECK(exceptions.describe_current().error_type == "db.missing_row");
    }
}

TEST_CASE("std::system_error is classified through its error code", "[executor]") {
    rebound::ExceptionClassifier exceptions;
    exceptions.add_error_condition(std::errc::device_or_resource_busy, "io.busy",
                                   ErrorCategory::LockTimeout);
    struct Described {
        std::string error_type;
        std::optional<ErrorCategory> category;
        std::string message;  // copied: the description's view dies with the exception
    };
    const auto describe = [&](std::errc code) {
        try {
            throw std::system_error(std::make_error_code(code), "socket");
        } catch (...) {
            const rebound::ErrorDescription d = exceptions.describe_current();
            return Described{std::string(d.error_type), d.category, std::string(d.message)};
        }
    };
    CHECK(describe(std::errc::connection_refused).category == ErrorCategory::ConnectionFailure);
    CHECK(describe(std::errc::connection_reset).category == ErrorCategory::ConnectionLost);
    CHECK(describe(std::errc::no_such_file_or_directory).category == ErrorCategory::SystemError);
    const auto busy = describe(std::errc::device_or_resource_busy);
    CHECK(busy.error_type == "io.busy");
    CHECK(busy.category == ErrorCategory::LockTimeout);
    CHECK(std::string_view(busy.message).find("socket") != std::string_view::npos);

    // Through the executor: a refused connection is retried, an unknown exception is not.
    Harness h;
    const auto executor = h.executor({.exceptions = &exceptions});
    const auto result = executor.run(resolved(fixed_policy(3)), "h", [](const auto& a) {
        if (a.attempt == 1) {
            throw std::system_error(std::make_error_code(std::errc::connection_refused));
        }
    });
    CHECK(result.outcome == RetryOutcome::Succeeded);
    CHECK(executor.run(resolved(fixed_policy(3)), "h", [] { throw 1; }).outcome ==
          RetryOutcome::NonRetryable);
}

TEST_CASE("work may return its error instead of throwing", "[executor]") {
    Harness h;
    const auto executor = h.executor();
    const auto result =
        executor.run(resolved(fixed_policy(3)), "h",
                     [](const rebound::AttemptInfo& a) -> std::optional<rebound::Error> {
                         if (a.attempt < 3) {
                             rebound::ErrorDescription e;
                             e.sqlstate = "40001";
                             e.category = ErrorCategory::SerializationFailure;
                             e.message = "could not serialize";
                             return rebound::Error(e);
                         }
                         return std::nullopt;
                     });
    CHECK(result.outcome == RetryOutcome::Succeeded);
    CHECK(result.attempts == 3);
    REQUIRE(result.last_error);
    CHECK_FALSE(result.last_error->exception());
    CHECK(result.last_error->description().sqlstate == "40001");
    // The description outlives the work's locals: its text is owned by the kept Error.
    const auto copy = result;
    CHECK(copy.last_error->description().message == "could not serialize");
    CHECK_THROWS_AS(copy.last_error->rethrow(), rebound::Error);
}

namespace {
// Classifies a caller's own exception type and fills in categories from SQLSTATEs, as the ODBC
// adapter does.
struct SqlFailure {
    std::string sqlstate;
};
class SqlClassifier final : public rebound::FailureClassifier {
  public:
    std::optional<rebound::ErrorDescription> classify_exception(
        const std::exception_ptr&) const noexcept override {
        try {
            throw;
        } catch (const SqlFailure& failure) {
            rebound::ErrorDescription e;
            e.sqlstate = failure.sqlstate;
            return e;
        } catch (...) {
            return std::nullopt;
        }
    }
    rebound::ErrorDescription refine(const rebound::ErrorDescription& d) const noexcept override {
        rebound::ErrorDescription refined = d;
        if (!refined.category && d.sqlstate == "40P01") {
            refined.category = ErrorCategory::Deadlock;
        }
        return refined;
    }
};
}  // namespace

TEST_CASE("a classify hook and a failure hook see every failure before the wait", "[executor]") {
    Harness h;
    SqlClassifier classifier;
    const auto executor = h.executor({.classifier = &classifier});
    std::vector<std::string> trace;
    const auto on_failure = [&](const rebound::FailureEvent& e) {
        trace.push_back("rollback after " + std::to_string(e.attempt) + " " +
                        std::string(rebound::to_string(e.decision.reason)) + " waits so far " +
                        std::to_string(h.sleeper.delays().size()));
    };
    const auto result = executor.run(resolved(fixed_policy(2)), "h",
                                     [&](const rebound::AttemptInfo&) {
                                         trace.push_back("attempt");
                                         throw SqlFailure{"40P01"};
                                     },
                                     {.on_failure = on_failure});
    CHECK(result.outcome == RetryOutcome::Exhausted);
    CHECK(result.last_error->description().category == ErrorCategory::Deadlock);
    CHECK(trace == std::vector<std::string>{"attempt", "rollback after 1 retry waits so far 0",
                                            "attempt",
                                            "rollback after 2 exhausted waits so far 1"});
}

TEST_CASE("the budget is shared by every run of one compiled policy", "[executor]") {
    Harness h;
    const auto executor = h.executor();
    const auto policy = rebound::PolicyBuilder("budgeted")
                            .max_attempts(2)
                            .backoff(rebound::Backoff::fixed(1ms))
                            .jitter(rebound::Jitter::none())
                            .retry_on(rebound::Matcher::transient())
                            .budget({4, 1.0})
                            .build();
    const auto fail = [] { throw rebound::Error(ErrorCategory::Deadlock, "d"); };
    // 4 tokens, retries allowed while more than 2 remain after taking one.
    CHECK(executor.run(resolved(policy), "a", fail).outcome == RetryOutcome::Exhausted);
    CHECK(executor.run(resolved(policy), "b", fail).outcome == RetryOutcome::Throttled);
    // A success gives a token back.
    CHECK(executor.run(resolved(policy), "c", [] {}).outcome == RetryOutcome::Succeeded);
    CHECK(policy->budget()->tokens() == Approx(3.0));
}

TEST_CASE("without a resolver every handler runs under the built-in policy", "[executor]") {
    Harness h;
    const auto executor = h.executor();
    const auto result = executor.run("anything", [] {});
    CHECK(result.via == rebound::ResolvedVia::Builtin);
    CHECK(result.policy->name() == "builtin");
}

namespace {
// Records work calls and listener events in one sequence, with the command id each one saw.
class TracingListener final : public rebound::RetryListener {
  public:
    explicit TracingListener(std::vector<std::string>* trace) : trace_(trace) {}
    void on_attempt_started(const rebound::RetryEvent& e) noexcept override { add("start", e); }
    void on_retry_scheduled(const rebound::RetryEvent& e) noexcept override { add("retry", e); }
    void on_succeeded(const rebound::RetryEvent& e) noexcept override { add("end", e); }
    void on_stopped(const rebound::RetryEvent& e) noexcept override { add("end", e); }

  private:
    void add(const char* what, const rebound::RetryEvent& e) {
        trace_->push_back(std::string(what) + " " + std::string(e.command_id));
    }
    std::vector<std::string>* trace_;
};
}  // namespace

TEST_CASE("the work is never called after the run ended", "[executor]") {
    rebound::testing::ManualClock clock;
    rebound::testing::RecordingSleeper sleeper{&clock};
    rebound::testing::ScriptedRandomSource random{0.5};
    std::vector<std::string> trace;
    TracingListener listener(&trace);
    const rebound::RetryExecutor executor(
        {.clock = &clock, .sleeper = &sleeper, .random = &random, .listeners = {&listener}});
    std::stop_source stop;
    int calls = 0;
    std::function<void(int)> fail = [](int) {};
    const auto work = [&](const rebound::AttemptInfo& attempt) {
        ++calls;
        trace.push_back("work " + std::string(attempt.command_id));
        fail(attempt.attempt);
    };
    const rebound::RunOptions options{.command_id = "c", .stop = stop.get_token()};
    int expected_calls = 1;

    // One run per way of ending, checked alike below (a GENERATE, not sections: a section that
    // only sets up would count as a section without assertions).
    const RetryOutcome ending = GENERATE(RetryOutcome::Succeeded, RetryOutcome::Exhausted,
                                         RetryOutcome::NonRetryable, RetryOutcome::Cancelled);
    INFO("ending " << rebound::to_string(ending));
    switch (ending) {
        case RetryOutcome::Succeeded:
            fail = [](int attempt) {
                if (attempt < 3)
                    throw rebound::Error(ErrorCategory::Deadlock, "victim");
            };
            expected_calls = 3;
            break;
        case RetryOutcome::Exhausted:
            fail = [](int) { throw rebound::Error(ErrorCategory::Deadlock, "victim"); };
            expected_calls = 3;
            break;
        case RetryOutcome::NonRetryable:
            fail = [](int) { throw rebound::Error(ErrorCategory::ConstraintViolation, "dup"); };
            break;
        default:  // cancelled by the work itself
            fail = [&stop](int) {
                stop.request_stop();
                throw rebound::Error(ErrorCategory::Deadlock, "victim");
            };
            break;
    }

    const auto result = executor.run(resolved(fixed_policy(3)), "h", work, options);
    CHECK(result.outcome == ending);
    CHECK(calls == expected_calls);
    CHECK(result.attempts == expected_calls);
    // Every work call happened before the final event, and nothing followed the final event.
    REQUIRE(!trace.empty());
    CHECK(trace.back() == "end c");
    CHECK(std::count(trace.begin(), trace.end(), "end c") == 1);
    // Each call was announced by its attempt_started event.
    CHECK(std::count(trace.begin(), trace.end(), "start c") == expected_calls);
}

TEST_CASE("a throwing failure hook ends the run without another attempt", "[executor]") {
    Harness h;
    const auto executor = h.executor();
    int calls = 0;
    const auto on_failure = [](const rebound::FailureEvent&) {
        throw std::runtime_error("rolled back and gave up");
    };
    rebound::RunOptions options;
    options.on_failure = on_failure;
    CHECK_THROWS_AS(executor.run(
                        resolved(fixed_policy(5)), "h",
                        [&] {
                            ++calls;
                            throw rebound::Error(ErrorCategory::Deadlock, "victim");
                        },
                        options),
                    std::runtime_error);
    CHECK(calls == 1);
    CHECK(h.sleeper.delays().empty());
}

TEST_CASE("the command id is the same on every attempt, event and dead letter", "[executor]") {
    Harness h;
    RecordingSink sink;
    std::vector<std::string> trace;
    TracingListener listener(&trace);
    const auto executor = h.executor({.listeners = {&listener}, .dead_letter_sink = &sink});
    const auto policy = rebound::PolicyBuilder("background")
                            .max_attempts(4)
                            .backoff(rebound::Backoff::fixed(10ms))
                            .jitter(rebound::Jitter::none())
                            .retry_on(rebound::Matcher::transient())
                            .on_exhausted(rebound::ExhaustedAction::DeadLetter)
                            .build();
    // The caller's buffer: the executor must hand out views of it, never a copy that changes.
    const std::string command_id = "order-7f3a-cmd";
    std::vector<const char*> seen_data;
    std::vector<std::string> seen_text;
    rebound::RunOptions options;
    options.command_id = command_id;
    options.item = std::string("payload");
    const auto result = executor.run(
        resolved(policy), "h",
        [&](const rebound::AttemptInfo& attempt) {
            seen_data.push_back(attempt.command_id.data());
            seen_text.emplace_back(attempt.command_id);
            throw rebound::Error(ErrorCategory::Deadlock, "victim");
        },
        options);
    CHECK(result.outcome == RetryOutcome::DeadLettered);
    REQUIRE(seen_text.size() == 4);
    CHECK(seen_text == std::vector<std::string>(4, command_id));
    CHECK(seen_data == std::vector<const char*>(4, command_id.data()));
    // 4 starts, 3 retries, 1 end: every event carries the same id.
    CHECK(trace == std::vector<std::string>{"start order-7f3a-cmd", "retry order-7f3a-cmd",
                                            "start order-7f3a-cmd", "retry order-7f3a-cmd",
                                            "start order-7f3a-cmd", "retry order-7f3a-cmd",
                                            "start order-7f3a-cmd", "end order-7f3a-cmd"});
    CHECK(sink.command_id == command_id);
}

// Circuit breakers and server hints in the executor (docs/resilience.md), in virtual time.
using rebound::test_support::one_failure_breaker;

TEST_CASE("an interactive policy fails fast with circuit_open while its breaker is open",
          "[executor][breaker]") {
    Harness h;
    const auto breaker = one_failure_breaker(h.clock);
    const auto policy = rebound::PolicyBuilder("interactive")
                            .max_attempts(3)
                            .backoff(rebound::Backoff::fixed(50ms))
                            .jitter(rebound::Jitter::none())
                            .deadline(1s)
                            .retry_on(rebound::Matcher::transient())
                            .breaker(breaker)
                            .build();
    const auto executor = h.executor();
    int calls = 0;
    const auto result = executor.run(resolved(policy), "pay", [&] {
        ++calls;
        throw rebound::Error(ErrorCategory::ConnectionLost, "gone");
    });
    // Attempt 1 fails and trips the breaker; attempt 2 is refused with 4.95s to go, which the
    // 1s deadline cannot wait for.
    CHECK(calls == 1);
    CHECK(result.attempts == 2);
    CHECK(result.outcome == RetryOutcome::CircuitOpen);
    CHECK(rebound::to_string(result.outcome) == "circuit_open");
    REQUIRE(result.last_error);
    CHECK(result.last_error->description().category == ErrorCategory::CircuitOpen);
    CHECK(result.last_error->description().server_delay == 4950ms);
    CHECK(result.last_decision.reason == rebound::DecisionReason::Deadline);
    CHECK(h.sleeper.delays() == std::vector<rebound::Duration>{50ms});
}

TEST_CASE("a failure hook that throws on a breaker's refusal ends the run with its exception",
          "[executor][breaker]") {
    // A refused attempt is a failure told to on_failure like any other; its exception must leave
    // run(), whether the refusal comes first or after a wait.
    Harness h;
    const auto breaker = one_failure_breaker(h.clock);
    const auto policy = rebound::PolicyBuilder("background")
                            .max_attempts(5)
                            .backoff(rebound::Backoff::fixed(50ms))
                            .jitter(rebound::Jitter::none())
                            .retry_on(rebound::Matcher::transient())
                            .breaker(breaker)
                            .build();
    const auto executor = h.executor();
    int calls = 0;
    std::vector<ErrorCategory> told;
    const auto give_up_when_refused = [&](const rebound::FailureEvent& event) {
        told.push_back(event.failure.description().effective_category());
        if (event.failure.description().category == ErrorCategory::CircuitOpen) {
            throw std::runtime_error("refused");
        }
    };
    rebound::RunOptions options;
    options.on_failure = give_up_when_refused;
    const auto fail = [&] {
        ++calls;
        throw rebound::Error(ErrorCategory::ConnectionLost, "gone");
    };
    // The first attempt fails and trips the breaker; the second, after the wait, is refused.
    CHECK_THROWS_AS(executor.run(resolved(policy), "pay", fail, options), std::runtime_error);
    CHECK(told == std::vector{ErrorCategory::ConnectionLost, ErrorCategory::CircuitOpen});
    // The breaker is open now: the first attempt of the next run is refused.
    told.clear();
    CHECK_THROWS_AS(executor.run(resolved(policy), "pay", fail, options), std::runtime_error);
    CHECK(told == std::vector{ErrorCategory::CircuitOpen});
    CHECK(calls == 1);
}

TEST_CASE("a background policy waits for half-open and succeeds through the probe",
          "[executor][breaker]") {
    Harness h;
    const auto breaker = one_failure_breaker(h.clock);
    const auto policy = rebound::PolicyBuilder("background")
                            .max_attempts(5)
                            .backoff(rebound::Backoff::fixed(100ms))
                            .jitter(rebound::Jitter::none())
                            .deadline(1min)
                            .retry_on(rebound::Matcher::transient())
                            .breaker(breaker)
                            .build();
    const auto executor = h.executor();
    int calls = 0;
    const auto result = executor.run(resolved(policy), "nightly", [&] {
        if (++calls == 1) {
            throw rebound::Error(ErrorCategory::ServiceUnavailable, "down");
        }
    });
    CHECK(result.outcome == RetryOutcome::Succeeded);
    CHECK(calls == 2);
    CHECK(result.attempts == 3);  // failed, refused, probe
    // 100ms backoff, then the refusal's hint: the rest of the 5s open period.
    CHECK(h.sleeper.delays() == std::vector<rebound::Duration>{100ms, 4900ms});
    CHECK(breaker->snapshot(h.clock.now()).state == rebound::BreakerState::Closed);
}

TEST_CASE("the executor honours a server's hint, and stops on one over the cap",
          "[executor][server_delay]") {
    Harness h;
    rebound::ServerDelaySettings settings;
    settings.cap = 2s;
    const auto policy = rebound::PolicyBuilder("hinted")
                            .max_attempts(3)
                            .backoff(rebound::Backoff::fixed(100ms))
                            .jitter(rebound::Jitter::none())
                            .retry_on(rebound::Matcher::transient())
                            .server_delay(settings)
                            .build();
    const auto executor = h.executor();
    const auto throttled_for = [](rebound::Duration hint) {
        return [hint] {
            rebound::ErrorDescription e =
                rebound::ErrorDescription::of(ErrorCategory::ResourceExhausted);
            e.server_delay = hint;
            throw rebound::Error(e);
        };
    };
    const auto within = executor.run(resolved(policy), "h", throttled_for(1500ms));
    CHECK(within.outcome == RetryOutcome::Exhausted);
    CHECK(h.sleeper.delays() == std::vector<rebound::Duration>{1500ms, 1500ms});
    const auto over = executor.run(resolved(policy), "h", throttled_for(3s));
    CHECK(over.outcome == RetryOutcome::ServerDelayTooLong);
    CHECK(over.attempts == 1);
}
