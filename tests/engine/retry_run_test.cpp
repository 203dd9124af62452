// A RetryRun resumed where stored attempts left it, and a breaker permit reserved ahead of the
// attempt (retry_run.hpp): the steps the durable queue drives one delivery at a time
// (docs/queue.md, "One run per message"), in virtual time.
#include <catch2/catch.hpp>

#include <vector>

#include "event_log.hpp"
#include "rebound/retry_run.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;

namespace {

using rebound::ErrorCategory;
using rebound::RunStep;
using rebound::test_support::EventLog;

rebound::HandlerResolution resolved(std::shared_ptr<const rebound::Policy> policy) {
    rebound::HandlerResolution resolution;
    resolution.policy = std::move(policy);
    resolution.via = rebound::ResolvedVia::Code;
    return resolution;
}

rebound::PolicyBuilder decorrelated(int attempts) {
    return std::move(rebound::PolicyBuilder("stored")
                         .max_attempts(attempts)
                         .backoff(rebound::Backoff::exponential(100ms, 2.0, 2s))
                         .jitter(rebound::Jitter::decorrelated())
                         .deadline(1min)
                         .retry_on(rebound::Matcher::transient()));
}

struct Harness {
    rebound::testing::ManualClock clock;
    rebound::testing::RecordingSleeper sleeper{&clock};
    rebound::testing::ScriptedRandomSource random{0.9, 0.2, 0.7};
    EventLog log;
    rebound::RetryExecutor executor{
        {.clock = &clock, .sleeper = &sleeper, .random = &random, .listeners = {&log}}};
};

rebound::Error down() {
    return rebound::Error(ErrorCategory::ServiceUnavailable, "down");
}

}  // namespace

TEST_CASE("runs resumed one attempt each decide and tell as one run would", "[run]") {
    const auto policy = decorrelated(4).build();
    Harness blocking;
    int calls = 0;
    const auto whole = blocking.executor.run(resolved(policy), "h", [&] {
        if (++calls < 4) {
            throw down();
        }
    });
    REQUIRE(whole.succeeded());
    REQUIRE(blocking.sleeper.delays().size() == 3);

    // The same attempts, each in a run of its own resumed from what the previous one left, as
    // a queue stores it: attempts made, time since the first, the last delay.
    Harness resumed;
    rebound::RunProgress progress;
    const rebound::RunOptions options;
    for (int attempt = 1; attempt <= 4; ++attempt) {
        rebound::RetryRun run = resumed.executor.begin(resolved(policy), "h", options);
        run.resume(progress);
        REQUIRE(run.reserve_permit());  // no breaker: always admitted
        REQUIRE(run.start_attempt() == RunStep::Attempt);
        CHECK(run.attempt().attempt == attempt);
        CHECK(run.attempt().time_left == 1min - progress.elapsed);
        if (attempt == 4) {
            CHECK(run.succeeded() == RunStep::Done);
            CHECK(run.result().attempts == 4);
            break;
        }
        REQUIRE(run.failed(run.classify_returned(down())) == RunStep::Wait);
        CHECK(run.delay() == blocking.sleeper.delays().at(static_cast<std::size_t>(attempt - 1)));
        progress = {.attempts = attempt,
                    .elapsed = progress.elapsed + run.delay(),
                    .previous_delay = run.delay()};
    }
    CHECK(resumed.log.lines == blocking.log.lines);
    CHECK(resumed.log.lines.front() == "start 1");
    CHECK(resumed.log.lines.back() == "succeeded after 4");
}

TEST_CASE("a resumed run past its deadline stops at the stored elapsed time", "[run]") {
    Harness h;
    const auto policy = decorrelated(10).build();
    const rebound::RunOptions options;
    rebound::RetryRun run = h.executor.begin(resolved(policy), "h", options);
    run.resume({.attempts = 3, .elapsed = 61s, .previous_delay = 400ms});
    REQUIRE(run.start_attempt() == RunStep::Attempt);
    CHECK(run.attempt().time_left == 0s);
    CHECK(run.failed(run.classify_returned(down())) == RunStep::Done);
    CHECK(run.result().last_decision.reason == rebound::DecisionReason::Deadline);
    CHECK(h.log.lines == std::vector<std::string>{"start 4", "stopped deadline after 4"});
}

TEST_CASE("a refused reservation counts no attempt and tells no listener", "[run][breaker]") {
    Harness h;
    const auto breaker = rebound::test_support::one_failure_breaker(h.clock);
    const auto policy = decorrelated(3).breaker(breaker).build();
    const rebound::BreakerPermit tripping = breaker->acquire(h.clock.now());
    breaker->record_error(tripping, down().description(), h.clock.now());
    const rebound::RunOptions options;

    rebound::RetryRun refused = h.executor.begin(resolved(policy), "h", options);
    refused.resume({.attempts = 2});
    const rebound::BreakerPermit permit = refused.reserve_permit();
    CHECK_FALSE(permit);
    CHECK(permit.retry_after == 5s);  // until the breaker half-opens
    CHECK(refused.result().attempts == 2);
    CHECK(h.log.lines.empty());

    // Half-open: the probe's permit, reserved and then given up, goes back to the breaker.
    h.clock.advance(5s);
    rebound::RetryRun abandoned = h.executor.begin(resolved(policy), "h", options);
    abandoned.resume({.attempts = 2});
    REQUIRE(abandoned.reserve_permit());
    CHECK_FALSE(breaker->acquire(h.clock.now()));  // the one probe is taken
    abandoned.abandon();
    CHECK(h.log.lines.empty());

    // The third attempt, with the policy's budget of three intact, succeeds through the probe.
    rebound::RetryRun probe = h.executor.begin(resolved(policy), "h", options);
    probe.resume({.attempts = 2});
    REQUIRE(probe.reserve_permit());
    REQUIRE(probe.start_attempt() == RunStep::Attempt);
    CHECK(probe.succeeded() == RunStep::Done);
    CHECK(breaker->snapshot(h.clock.now()).state == rebound::BreakerState::Closed);
    CHECK(h.log.lines == std::vector<std::string>{"start 3", "succeeded after 3"});
}

TEST_CASE("a resumed run decides a lost attempt without a breaker outcome", "[run][breaker]") {
    Harness h;
    const auto breaker = rebound::test_support::one_failure_breaker(h.clock);
    const auto policy = decorrelated(2).breaker(breaker).build();
    const rebound::RunOptions options;
    rebound::RetryRun run = h.executor.begin(resolved(policy), "h", options);
    run.resume({.attempts = 1, .previous_delay = 0s});
    const rebound::Error lost(ErrorCategory::ConnectionLost, "lease expired");
    REQUIRE(run.failed(run.classify_returned(lost)) == RunStep::Wait);
    CHECK(run.result().attempts == 1);
    // The breaker did not hear of it: one failure would have opened it.
    CHECK(breaker->snapshot(h.clock.now()).state == rebound::BreakerState::Closed);
    REQUIRE(h.log.lines.size() == 1);
    CHECK_THAT(h.log.lines[0], Catch::Matchers::StartsWith("retry 1 connection_lost "));
}
