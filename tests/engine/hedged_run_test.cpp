// HedgedRun: the hedged run's steps (spec hedging.md, "The hedged run"), each at its exact
// instant of a manual clock, driven by a small discrete-event driver with scripted attempts.
#include <catch2/catch.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hedged_run_driver.hpp"
#include "hedging_policy.hpp"
#include "rebound/handler_latencies.hpp"
#include "rebound/resilience_registry.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;
using rebound::AttemptKind;
using rebound::Duration;
using rebound::ErrorCategory;
using rebound::HedgeSuppression;
using rebound::RetryOutcome;

using rebound::test::compile_hedging;
using rebound::test::Driver;
using rebound::test::fails_after;
using rebound::test::hedging_spec;
using rebound::test::Ms;
using rebound::test::never;
using rebound::test::resolution_of;
using rebound::test::succeeds_after;

namespace {

using Starts = std::vector<std::pair<int, Ms>>;

}  // namespace

namespace Catch {
template <>
struct StringMaker<std::pair<int, Ms>> {
    static std::string convert(const std::pair<int, Ms>& start) {
        return "attempt " + std::to_string(start.first) + " at " +
               std::to_string(start.second.count()) + "ms";
    }
};
}  // namespace Catch

TEST_CASE("hedged run: a hedge due at 20ms starts at 20ms and the first success wins", "[hedge]") {
    Driver driver;
    driver.scripts = {succeeds_after(100ms), succeeds_after(10ms), never()};
    const rebound::RunResult result =
        driver.run(resolution_of(compile_hedging(hedging_spec(20ms, 3))));
    CHECK(driver.starts == Starts{{1, 0ms}, {2, 20ms}});
    CHECK(result.outcome == RetryOutcome::Succeeded);
    CHECK(driver.ended == 30ms);
    CHECK(driver.report.winner == 2);
    CHECK(driver.report.hedges == 1);
    // The loser is cancelled at once and counted, not awaited.
    CHECK(driver.cancels == Starts{{1, 30ms}});
    CHECK(driver.report.abandoned == 1);
    CHECK(result.attempts == 2);
    CHECK(result.elapsed == Duration{30ms});
    CHECK(driver.listener.started == std::vector<std::pair<int, AttemptKind>>{
                                         {1, AttemptKind::First}, {2, AttemptKind::Hedge}});
    CHECK(driver.listener.winner_kind == AttemptKind::Hedge);
    CHECK(driver.listener.reported == driver.report);
}

TEST_CASE("hedged run: a failure at 5ms starts hedge 1 at once, hedge 2 is still due at 40ms",
          "[hedge]") {
    Driver driver;
    driver.scripts = {fails_after(5ms, ErrorCategory::ConnectionLost), succeeds_after(100ms),
                      succeeds_after(100ms)};
    const rebound::RunResult result =
        driver.run(resolution_of(compile_hedging(hedging_spec(20ms, 3))));
    CHECK(driver.starts == Starts{{1, 0ms}, {2, 5ms}, {3, 40ms}});
    CHECK(result.outcome == RetryOutcome::Succeeded);
    CHECK(driver.report.winner == 2);
    CHECK(driver.ended == 105ms);
    CHECK(driver.cancels == Starts{{3, 105ms}});
}

TEST_CASE("hedged run: with on_failure wait a failure starts nothing", "[hedge]") {
    rebound::PolicySpec spec = hedging_spec(20ms, 3);
    spec.hedge->on_failure = rebound::HedgeOnFailure::Wait;
    Driver driver;
    driver.scripts = {fails_after(5ms, ErrorCategory::ConnectionLost), succeeds_after(1ms),
                      never()};
    const rebound::RunResult result = driver.run(resolution_of(compile_hedging(spec)));
    CHECK(driver.starts == Starts{{1, 0ms}, {2, 20ms}});
    CHECK(result.outcome == RetryOutcome::Succeeded);
    CHECK(driver.ended == 21ms);
}

TEST_CASE("hedged run: a fatal failure cancels every attempt in flight and ends the run",
          "[hedge]") {
    Driver driver;
    driver.scripts = {never(), fails_after(5ms, ErrorCategory::ConstraintViolation), never()};
    const rebound::RunResult result =
        driver.run(resolution_of(compile_hedging(hedging_spec(20ms, 3))));
    CHECK(driver.starts == Starts{{1, 0ms}, {2, 20ms}});
    CHECK(result.outcome == RetryOutcome::NonRetryable);
    CHECK(driver.ended == 25ms);
    CHECK(driver.cancels == Starts{{1, 25ms}});
    CHECK(driver.report.abandoned == 1);
    CHECK(result.last_error.description().category == ErrorCategory::ConstraintViolation);
}

TEST_CASE("hedged run: a token-starved hedge is suppressed and the next one is still considered",
          "[hedge]") {
    rebound::PolicySpec spec = hedging_spec(20ms, 4);
    rebound::PolicyCompileOptions options;
    const auto tokens =
        std::make_shared<rebound::HedgeTokens>(rebound::HedgeTokenSettings::of(*spec.hedge), 0.5);
    options.hedge_tokens = tokens;
    Driver driver;
    driver.scripts = {succeeds_after(100ms), never(), never(), never()};
    // Other runs start between the hedges: 10 of them earn half a token.
    driver.at[30ms] = [&tokens] {
        for (int i = 0; i < 10; ++i) {
            tokens->run_started();
        }
    };
    const rebound::RunResult result = driver.run(resolution_of(compile_hedging(spec, options)));
    CHECK(driver.starts == Starts{{1, 0ms}, {2, 40ms}});
    // At 20ms, 60ms and 80ms.
    CHECK(driver.report.suppressed_by(HedgeSuppression::HedgeTokens) == 3);
    CHECK(driver.report.hedges == 1);
    CHECK(driver.report.winner == 1);
    CHECK(tokens->tokens() == Approx(0.05));
}

TEST_CASE("hedged run: the retry budget suppresses hedges at half its tokens", "[hedge]") {
    rebound::PolicySpec spec = hedging_spec(20ms, 3);
    spec.budget = rebound::BudgetSettings{4, 0.1};
    Driver driver;
    // Two non-fatal failures take two tokens: 2 of 4 left, not above half.
    driver.scripts = {fails_after(5ms, ErrorCategory::ConnectionLost),
                      fails_after(5ms, ErrorCategory::ConnectionLost), never()};
    const rebound::RunResult result = driver.run(resolution_of(compile_hedging(spec)));
    CHECK(driver.starts == Starts{{1, 0ms}, {2, 5ms}});
    CHECK(driver.report.suppressed_by(HedgeSuppression::Budget) == 1);
    CHECK(result.outcome == RetryOutcome::Throttled);
    CHECK(driver.ended == 10ms);
}

TEST_CASE("hedged run: a server delay hint holds every hedge back", "[hedge]") {
    Driver driver;
    driver.scripts = {fails_after(5ms, ErrorCategory::ServiceUnavailable, 30ms),
                      succeeds_after(100ms), succeeds_after(100ms)};
    const rebound::RunResult result =
        driver.run(resolution_of(compile_hedging(hedging_spec(20ms, 3))));
    CHECK(driver.starts == Starts{{1, 0ms}, {2, 35ms}, {3, 40ms}});
    CHECK(driver.report.winner == 2);

    // Held past a later slot: the held hedge gives way to the later one.
    Driver held;
    held.scripts = {fails_after(5ms, ErrorCategory::ServiceUnavailable, 50ms),
                    succeeds_after(100ms), succeeds_after(100ms), succeeds_after(100ms)};
    const rebound::RunResult pushed =
        held.run(resolution_of(compile_hedging(hedging_spec(20ms, 4))));
    CHECK(held.starts == Starts{{1, 0ms}, {2, 55ms}, {3, 60ms}, {4, 80ms}});
    CHECK(held.report.suppressed_by(HedgeSuppression::Pushback) == 1);
}

TEST_CASE("hedged run: a hint over the cap with over_cap stop is fatal", "[hedge]") {
    rebound::PolicySpec spec = hedging_spec(20ms, 3);
    spec.server_delay.cap = 10ms;
    Driver driver;
    driver.scripts = {fails_after(5ms, ErrorCategory::ServiceUnavailable, 50ms), never(), never()};
    const rebound::RunResult result = driver.run(resolution_of(compile_hedging(spec)));
    CHECK(result.outcome == RetryOutcome::ServerDelayTooLong);
    CHECK(driver.ended == 5ms);
}

TEST_CASE("hedged run: no hedge starts once the deadline has passed", "[hedge]") {
    rebound::PolicySpec spec = hedging_spec(20ms, 5);
    spec.deadline = 50ms;
    Driver driver;
    driver.scripts = {fails_after(70ms, ErrorCategory::ConnectionLost),
                      fails_after(60ms, ErrorCategory::ConnectionLost),
                      fails_after(50ms, ErrorCategory::ConnectionLost), never(), never()};
    const rebound::RunResult result = driver.run(resolution_of(compile_hedging(spec)));
    CHECK(driver.starts == Starts{{1, 0ms}, {2, 20ms}, {3, 40ms}});
    CHECK(result.outcome == RetryOutcome::Deadline);
    CHECK(driver.report.suppressed_by(HedgeSuppression::Deadline) >= 1);
    CHECK(driver.ended == 90ms);
}

TEST_CASE("hedged run: a handler that is not idempotent runs one attempt at a time", "[hedge]") {
    Driver driver;
    driver.scripts = {fails_after(30ms, ErrorCategory::ConnectionLost),
                      fails_after(5ms, ErrorCategory::ConnectionLost),
                      fails_after(5ms, ErrorCategory::ConnectionLost)};
    const rebound::RunResult result =
        driver.run(resolution_of(compile_hedging(hedging_spec(20ms, 3)), false));
    CHECK(driver.starts == Starts{{1, 0ms}, {2, 30ms}, {3, 35ms}});
    CHECK(driver.most_in_flight == 1);
    CHECK(driver.report.one_at_a_time);
    CHECK(result.outcome == RetryOutcome::Exhausted);
    CHECK(driver.report.suppressed_by(HedgeSuppression::Attempts) == 1);
}

TEST_CASE("hedged run: a hedge the breaker refuses is suppressed, not an attempt", "[hedge]") {
    // A breaker that opens at the first failure, for 30s.
    const rebound::BreakerDirectory breakers = rebound::test::tripping_breaker("catalog-db");
    rebound::PolicySpec spec = hedging_spec(20ms, 3);
    spec.breaker = "catalog-db";
    rebound::PolicyCompileOptions options;
    options.breakers = &breakers;
    Driver driver;
    driver.scripts = {fails_after(5ms, ErrorCategory::ConnectionLost), never(), never()};
    const rebound::RunResult result = driver.run(resolution_of(compile_hedging(spec, options)));
    CHECK(driver.starts == Starts{{1, 0ms}});
    CHECK(result.attempts == 1);
    CHECK(driver.report.suppressed_by(HedgeSuppression::Breaker) == 1);
    CHECK(result.outcome == RetryOutcome::Throttled);
}

TEST_CASE("hedged run: an attempt past attempt_timeout is cancelled and fails", "[hedge]") {
    rebound::PolicySpec spec = hedging_spec(20ms, 3);
    spec.attempt_timeout = 30ms;
    spec.retry_on.push_back(rebound::Matcher::of_category(ErrorCategory::StatementTimeout));
    Driver driver;
    driver.scripts = {never(), never(), succeeds_after(5ms)};
    const rebound::RunResult result = driver.run(resolution_of(compile_hedging(spec)));
    // Attempt 1 times out at 30ms: the policy retries statement_timeout, so hedge 2 is due at
    // once.
    CHECK(driver.starts == Starts{{1, 0ms}, {2, 20ms}, {3, 30ms}});
    CHECK(driver.cancels == Starts{{1, 30ms}, {2, 35ms}});
    CHECK(driver.report.winner == 3);
    CHECK(driver.report.abandoned == 1);  // attempt 2; attempt 1 timed out
}

TEST_CASE("hedged run: a stop cancels every attempt in flight", "[hedge]") {
    std::stop_source stop;
    Driver driver;
    driver.scripts = {never(), never(), never()};
    driver.at[25ms] = [&stop] { stop.request_stop(); };
    rebound::RunOptions options;
    options.stop = stop.get_token();
    const rebound::RunResult result =
        driver.run(resolution_of(compile_hedging(hedging_spec(20ms, 3))), options);
    CHECK(result.outcome == RetryOutcome::Cancelled);
    CHECK(driver.cancels == Starts{{1, 25ms}, {2, 25ms}});
    CHECK(driver.report.abandoned == 2);
}

TEST_CASE("hedge tokens: burst at the start, max_extra_load per run, one per hedge", "[hedge]") {
    rebound::HedgeTokens tokens({2, 0.25});
    CHECK(tokens.tokens() == 2.0);
    tokens.run_started();
    CHECK(tokens.tokens() == 2.0);  // capped at burst
    CHECK(tokens.try_take());
    CHECK(tokens.try_take());
    CHECK_FALSE(tokens.try_take());
    // Over R runs, hedges started <= burst + max_extra_load * R.
    int hedges = 2;
    for (int run = 0; run < 100; ++run) {
        tokens.run_started();
        hedges += tokens.try_take() ? 1 : 0;
    }
    CHECK(hedges == 2 + 25);
}

TEST_CASE("hedge tokens survive a reload and scale with a changed burst", "[hedge]") {
    rebound::ResilienceRegistry registry;
    const rebound::HedgeTokenSettings settings{10, 0.05};
    const auto first = registry.hedge_tokens("catalog", "catalog-read", settings);
    for (int i = 0; i < 6; ++i) {
        REQUIRE(first->try_take());
    }
    CHECK(registry.hedge_tokens("catalog", "catalog-read", settings) == first);
    const auto scaled = registry.hedge_tokens("catalog", "catalog-read", {20, 0.05});
    CHECK(scaled->tokens() == Approx(8.0));
    // A policy compiled with them uses them.
    rebound::PolicyCompileOptions options;
    options.hedge_tokens = scaled;
    rebound::PolicySpec spec = hedging_spec(20ms, 2);
    spec.hedge->burst = 20;
    CHECK(compile_hedging(spec, options)->hedge_tokens() == scaled.get());
    const std::vector<std::string> kept;
    registry.retain_hedge_tokens("catalog", kept);
    CHECK(registry.hedge_tokens("catalog", "catalog-read", {20, 0.05})->tokens() == 20.0);
}

TEST_CASE("hedged run: a learned delay comes from the handler's recorded latencies", "[hedge]") {
    // p50 within 2ms..50ms of the last 10s, after a warmup of 4 latencies: the first runs have no
    // timed hedge, and their winners' latencies (10ms each) make the delay of the next.
    rebound::PolicySpec spec = hedging_spec(20ms, 2);
    spec.hedge->fixed_delay.reset();
    spec.hedge->learned = rebound::LearnedHedgeDelay{0.5, Duration(2ms), Duration(50ms)};
    spec.hedge->window = Duration(10s);
    spec.hedge->warmup = 4;
    spec.hedge->burst = 100;
    const auto policy = compile_hedging(spec);
    Driver driver;
    rebound::HandlerLatencies latencies(driver.clock);
    driver.latencies = &latencies;
    for (int run = 0; run < 4; ++run) {
        driver.starts.clear();
        driver.scripts = {succeeds_after(10ms), never()};
        CHECK(driver.run(resolution_of(policy)).outcome == RetryOutcome::Succeeded);
        CHECK(driver.starts.size() == 1);  // warming up: no timed hedge
    }
    REQUIRE(latencies.hedge_delay("catalog.read", *spec.hedge).has_value());
    // Warm: the median (10ms, within the recorder's 5%) is the delay, so a slow first attempt
    // gets its hedge about 10ms after it started.
    driver.starts.clear();
    driver.scripts = {succeeds_after(500ms), succeeds_after(1ms)};
    const Ms t0 = driver.now();
    CHECK(driver.run(resolution_of(policy)).outcome == RetryOutcome::Succeeded);
    REQUIRE(driver.starts.size() == 2);
    const Ms hedge_after = driver.starts[1].second - t0;
    CHECK(hedge_after >= 9ms);
    CHECK(hedge_after <= 11ms);
    CHECK(driver.report.winner == 2);
}
