// The hedging series of RetryMetrics (docs/metrics.md; spec hedging.md, "Results, events and
// metrics"), counted from the events of hedged runs stepped under a manual clock.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hedged_run_driver.hpp"
#include "hedging_policy.hpp"
#include "rebound/handler_latencies.hpp"
#include "rebound/resilience_registry.hpp"
#include "rebound/retry_metrics.hpp"

using namespace std::chrono_literals;
using rebound::Duration;
using rebound::ErrorCategory;
using rebound::HedgeSuppression;
using rebound::RetryOutcome;

using rebound::test::compile_hedging;
using rebound::test::Driver;
using rebound::test::fails_after;
using rebound::test::hedging_spec;
using rebound::test::never;
using rebound::test::resolution_of;
using rebound::test::succeeds_after;

namespace {

// The hedging series of `metrics` as rendered: from rebound_hedges_total's HELP line to the
// histograms'.
std::string hedge_series(const rebound::RetryMetrics& metrics) {
    const std::string text = metrics.render();
    const std::size_t begin = text.find("# HELP rebound_hedges_total");
    const std::size_t end = text.find("# HELP rebound_attempt_duration_seconds");
    REQUIRE(begin != std::string::npos);
    REQUIRE(end != std::string::npos);
    return text.substr(begin, end - begin);
}

constexpr const char* kHedgesHeader =
    "# HELP rebound_hedges_total Hedges started: attempts of a hedged run beyond the first.\n"
    "# TYPE rebound_hedges_total counter\n";
constexpr const char* kWinsHeader =
    "# HELP rebound_hedge_wins_total Hedged runs won by a hedge, not the first attempt.\n"
    "# TYPE rebound_hedge_wins_total counter\n";
constexpr const char* kSuppressedHeader =
    "# HELP rebound_hedges_suppressed_total Hedges that fell due and did not start, by the "
    "first reason that held.\n"
    "# TYPE rebound_hedges_suppressed_total counter\n";
constexpr const char* kDelayHeader =
    "# HELP rebound_hedge_delay_seconds The hedge delay of the last hedged run to end, fixed or "
    "learned.\n"
    "# TYPE rebound_hedge_delay_seconds gauge\n";

}  // namespace

TEST_CASE("hedge metrics: a hedge that wins is counted as started and as a win",
          "[metrics][hedge]") {
    rebound::RetryMetrics metrics;
    const auto policy = compile_hedging(hedging_spec(20ms, 3));
    {
        Driver driver({&metrics});
        driver.scripts = {succeeds_after(100ms), succeeds_after(10ms), never()};
        REQUIRE(driver.run(resolution_of(policy)).outcome == RetryOutcome::Succeeded);
        REQUIRE(driver.report.winner == 2);
    }
    CHECK(hedge_series(metrics) ==
          std::string(kHedgesHeader) + "rebound_hedges_total{handler=\"catalog.read\"} 1\n" +
              kWinsHeader + "rebound_hedge_wins_total{handler=\"catalog.read\"} 1\n" +
              kSuppressedHeader + kDelayHeader +
              "rebound_hedge_delay_seconds{handler=\"catalog.read\"} "
              "0.02\n");
    // Hedges are attempts too; the run counts once.
    CHECK(metrics.attempts("catalog.read") == 2);
    CHECK(metrics.runs("catalog.read", RetryOutcome::Succeeded) == 1);

    // A run that the first attempt wins before its hedge is due: no hedge, no win.
    {
        Driver driver({&metrics});
        driver.scripts = {succeeds_after(5ms), never(), never()};
        REQUIRE(driver.run(resolution_of(policy)).outcome == RetryOutcome::Succeeded);
    }
    // A run that a hedge loses: started, not a win.
    {
        Driver driver({&metrics});
        driver.scripts = {succeeds_after(30ms), succeeds_after(100ms), never()};
        REQUIRE(driver.run(resolution_of(policy)).outcome == RetryOutcome::Succeeded);
        REQUIRE(driver.report.winner == 1);
    }
    CHECK(metrics.hedges("catalog.read") == 2);
    CHECK(metrics.hedge_wins("catalog.read") == 1);
    CHECK(metrics.runs("catalog.read", RetryOutcome::Succeeded) == 3);
    // Runs of a policy that does not hedge add nothing to the hedging series.
    CHECK(metrics.hedges("nobody") == 0);
    CHECK(metrics.render().find("rebound_hedges_total{handler=\"catalog.read\"} 2\n") !=
          std::string::npos);
}

TEST_CASE("hedge metrics: suppressed hedges are counted by reason, in HedgeSuppression's order",
          "[metrics][hedge]") {
    rebound::RetryMetrics metrics;
    // Attempts: a handler that is not idempotent fails three times one at a time; the hedge its
    // third failure makes due finds max_attempts used.
    {
        Driver driver({&metrics});
        driver.scripts = {fails_after(30ms, ErrorCategory::ConnectionLost),
                          fails_after(5ms, ErrorCategory::ConnectionLost),
                          fails_after(5ms, ErrorCategory::ConnectionLost)};
        driver.run(resolution_of(compile_hedging(hedging_spec(20ms, 3)), false));
    }
    // Deadline: 50ms; the hedge due at 60ms and the three that failures at 70, 80 and 90ms make
    // due.
    {
        rebound::PolicySpec spec = hedging_spec(20ms, 5);
        spec.deadline = 50ms;
        Driver driver({&metrics});
        driver.scripts = {fails_after(70ms, ErrorCategory::ConnectionLost),
                          fails_after(60ms, ErrorCategory::ConnectionLost),
                          fails_after(50ms, ErrorCategory::ConnectionLost), never(), never()};
        CHECK(driver.run(resolution_of(compile_hedging(spec))).outcome == RetryOutcome::Deadline);
    }
    // Budget: two failures leave 2 of 4 tokens, not above half.
    {
        rebound::PolicySpec spec = hedging_spec(20ms, 3);
        spec.budget = rebound::BudgetSettings{4, 0.1};
        Driver driver({&metrics});
        driver.scripts = {fails_after(5ms, ErrorCategory::ConnectionLost),
                          fails_after(5ms, ErrorCategory::ConnectionLost), never()};
        CHECK(driver.run(resolution_of(compile_hedging(spec))).outcome == RetryOutcome::Throttled);
    }
    // Hedge tokens: half a token earned at 30ms; the hedges due at 20, 60 and 80ms find none.
    {
        rebound::PolicySpec spec = hedging_spec(20ms, 4);
        rebound::PolicyCompileOptions options;
        const auto tokens = std::make_shared<rebound::HedgeTokens>(
            rebound::HedgeTokenSettings::of(*spec.hedge), 0.5);
        options.hedge_tokens = tokens;
        Driver driver({&metrics});
        driver.scripts = {succeeds_after(100ms), never(), never(), never()};
        driver.at[30ms] = [&tokens] {
            for (int i = 0; i < 10; ++i) {
                tokens->run_started();
            }
        };
        driver.run(resolution_of(compile_hedging(spec, options)));
    }
    // Breaker: opened by the first failure.
    {
        const rebound::BreakerDirectory breakers = rebound::test::tripping_breaker("catalog-db");
        rebound::PolicySpec spec = hedging_spec(20ms, 3);
        spec.breaker = "catalog-db";
        rebound::PolicyCompileOptions options;
        options.breakers = &breakers;
        Driver driver({&metrics});
        driver.scripts = {fails_after(5ms, ErrorCategory::ConnectionLost), never(), never()};
        driver.run(resolution_of(compile_hedging(spec, options)));
    }
    // Pushback: a 50ms hint at 5ms holds the hedge due at 20ms past the one due at 40ms.
    {
        Driver driver({&metrics});
        driver.scripts = {fails_after(5ms, ErrorCategory::ServiceUnavailable, 50ms),
                          succeeds_after(100ms), succeeds_after(100ms), succeeds_after(100ms)};
        driver.run(resolution_of(compile_hedging(hedging_spec(20ms, 4))));
    }
    const std::string text = hedge_series(metrics);
    const std::size_t begin = text.find(kSuppressedHeader);
    REQUIRE(begin != std::string::npos);
    CHECK(text.substr(begin, text.find(kDelayHeader) - begin) ==
          std::string(kSuppressedHeader) +
              "rebound_hedges_suppressed_total{handler=\"catalog.read\",reason=\"attempts\"} 1\n"
              "rebound_hedges_suppressed_total{handler=\"catalog.read\",reason=\"deadline\"} 4\n"
              "rebound_hedges_suppressed_total{handler=\"catalog.read\",reason=\"budget\"} 1\n"
              "rebound_hedges_suppressed_total{handler=\"catalog.read\",reason=\"hedge_tokens\"} "
              "3\n"
              "rebound_hedges_suppressed_total{handler=\"catalog.read\",reason=\"breaker\"} 1\n"
              "rebound_hedges_suppressed_total{handler=\"catalog.read\",reason=\"pushback\"} 1\n");
    CHECK(metrics.hedges_suppressed("catalog.read", HedgeSuppression::Deadline) == 4);
    CHECK(metrics.hedges_suppressed("catalog.read", HedgeSuppression::HedgeTokens) == 3);
}

TEST_CASE("hedge metrics: the delay gauge shows the last hedged run's delay, learned or fixed",
          "[metrics][hedge]") {
    // p50 within 2ms..50ms of the last 10s, after a warmup of 4 latencies.
    rebound::PolicySpec spec = hedging_spec(20ms, 2);
    spec.hedge->fixed_delay.reset();
    spec.hedge->learned = rebound::LearnedHedgeDelay{0.5, Duration(2ms), Duration(50ms)};
    spec.hedge->window = Duration(10s);
    spec.hedge->warmup = 4;
    spec.hedge->burst = 100;
    const auto learned = compile_hedging(spec);
    rebound::RetryMetrics metrics;
    Driver driver({&metrics});
    rebound::HandlerLatencies latencies(driver.clock);
    driver.latencies = &latencies;
    const std::string gauge = "rebound_hedge_delay_seconds{handler=\"catalog.read\"} ";
    // Warming up: the runs have no delay, and the gauge no series.
    for (int run = 0; run < 4; ++run) {
        driver.scripts = {succeeds_after(10ms), never()};
        REQUIRE(driver.run(resolution_of(learned)).outcome == RetryOutcome::Succeeded);
        CHECK_FALSE(driver.report.delay.has_value());
    }
    CHECK(hedge_series(metrics).find(gauge) == std::string::npos);
    // Warm: the run's delay is the median of its latencies (10ms within the recorder's 5%), and
    // the gauge shows it exactly.
    driver.scripts = {succeeds_after(500ms), succeeds_after(1ms)};
    REQUIRE(driver.run(resolution_of(learned)).outcome == RetryOutcome::Succeeded);
    REQUIRE(driver.report.delay.has_value());
    const Duration delay = *driver.report.delay;
    CHECK(delay >= Duration(9500us));
    CHECK(delay <= Duration(10500us));
    const std::string text = hedge_series(metrics);
    const std::size_t at = text.find(gauge);
    REQUIRE(at != std::string::npos);
    const std::string value =
        text.substr(at + gauge.size(), text.find('\n', at) - at - gauge.size());
    CHECK(std::stod(value) == Approx(static_cast<double>(delay.count()) / 1e6).epsilon(1e-9));

    // A fixed delay: the gauge follows the last run.
    driver.scripts = {succeeds_after(5ms), never(), never()};
    driver.run(resolution_of(compile_hedging(hedging_spec(25ms, 3))));
    CHECK(hedge_series(metrics).find(gauge + "0.025\n") != std::string::npos);
}

namespace {

// The lines of `text` that contain `needle`, in order.
std::string lines_with(const std::string& text, const std::string& needle) {
    std::string lines;
    std::size_t begin = 0;
    while (begin < text.size()) {
        const std::size_t end = std::min(text.find('\n', begin), text.size());
        const std::string line = text.substr(begin, end - begin);
        if (line.find(needle) != std::string::npos) {
            lines += line + "\n";
        }
        begin = end + 1;
    }
    return lines;
}

// The events of a hedged run as listeners hear them, with their durations.
struct TimedEvent {
    rebound::RetryEventKind kind;
    int attempt;
    rebound::AttemptKind attempt_kind;
    std::optional<Duration> attempt_duration;
    std::optional<Duration> run_duration;
    std::string reason;
};

class EventRecorder final : public rebound::RetryListener {
  public:
    explicit EventRecorder(bool durations) : durations_(durations) {}
    bool wants_durations() const noexcept override { return durations_; }
    void on_retry_scheduled(const rebound::RetryEvent& event) noexcept override { record(event); }
    void on_attempt_failed(const rebound::RetryEvent& event) noexcept override { record(event); }
    void on_succeeded(const rebound::RetryEvent& event) noexcept override { record(event); }
    void on_stopped(const rebound::RetryEvent& event) noexcept override { record(event); }
    std::vector<TimedEvent> events;

  private:
    void record(const rebound::RetryEvent& event) noexcept {
        events.push_back({event.kind, event.attempt, event.attempt_kind, event.attempt_duration,
                          event.run_duration, std::string(event.reason())});
    }
    bool durations_;
};

}  // namespace

TEST_CASE("hedge metrics: attempts that end give their durations, the run its own from t0",
          "[metrics][hedge][durations]") {
    rebound::RetryMetrics metrics;
    EventRecorder recorder(true);
    Driver driver({&metrics, &recorder});
    // Attempt 1 fails at 5ms (non-fatal: hedge 2 starts at once and never ends), hedge 3 is due
    // at 40ms and wins at 43ms; hedge 2 is abandoned, its end never seen.
    driver.scripts = {fails_after(5ms, ErrorCategory::ConnectionLost), never(),
                      succeeds_after(3ms)};
    REQUIRE(driver.run(resolution_of(compile_hedging(hedging_spec(20ms, 3)))).outcome ==
            RetryOutcome::Succeeded);
    REQUIRE(driver.report.winner == 3);
    REQUIRE(driver.report.abandoned == 1);

    using Kind = rebound::RetryEventKind;
    REQUIRE(recorder.events.size() == 2);
    const TimedEvent& failed = recorder.events[0];
    CHECK(failed.kind == Kind::AttemptFailed);
    CHECK(failed.attempt == 1);
    CHECK(failed.attempt_kind == rebound::AttemptKind::First);
    CHECK(failed.attempt_duration == Duration(5ms));
    CHECK_FALSE(failed.run_duration.has_value());
    CHECK(failed.reason == "connection_lost");
    const TimedEvent& won = recorder.events[1];
    CHECK(won.kind == Kind::Succeeded);
    CHECK(won.attempt_kind == rebound::AttemptKind::Hedge);
    CHECK(won.attempt_duration == Duration(3ms));
    CHECK(won.run_duration == Duration(43ms));
    // A hedged attempt's failure schedules no retry.
    CHECK(metrics.retries("catalog.read", ErrorCategory::ConnectionLost) == 0);

    const std::string text = metrics.render();
    const std::string attempt = "rebound_attempt_duration_seconds";
    const std::string labels = "{handler=\"catalog.read\",outcome=";
    const std::string run = "rebound_run_duration_seconds";
    // Per bound: the winner (3ms), the failure (5ms), then the run (43ms), each cumulative.
    const auto at = [&](const std::string& le, int winner, int failure, int ran) {
        const std::string bound = ",le=\"" + le + "\"} ";
        return attempt + "_bucket" + labels + "\"succeeded\"" + bound + std::to_string(winner) +
               "\n" + attempt + "_bucket" + labels + "\"connection_lost\"" + bound +
               std::to_string(failure) + "\n" + run + "_bucket" + labels + "\"succeeded\"" + bound +
               std::to_string(ran) + "\n";
    };
    CHECK(lines_with(text, "le=\"0.0025\"}") == at("0.0025", 0, 0, 0));
    CHECK(lines_with(text, "le=\"0.005\"}") == at("0.005", 1, 1, 0));
    CHECK(lines_with(text, "le=\"0.025\"}") == at("0.025", 1, 1, 0));
    CHECK(lines_with(text, "le=\"0.05\"}") == at("0.05", 1, 1, 1));
    CHECK(lines_with(text, "_sum{") ==
          attempt + "_sum" + labels + "\"succeeded\"} 0.003\n" + attempt + "_sum" + labels +
              "\"connection_lost\"} 0.005\n" + run + "_sum" + labels + "\"succeeded\"} 0.043\n");
    CHECK(lines_with(text, "_count{") ==
          attempt + "_count" + labels + "\"succeeded\"} 1\n" + attempt + "_count" + labels +
              "\"connection_lost\"} 1\n" + run + "_count" + labels + "\"succeeded\"} 1\n");
}

TEST_CASE("hedge durations: a fatal failure, a timeout, and listeners that want none",
          "[metrics][hedge][durations]") {
    using Kind = rebound::RetryEventKind;
    SECTION("a fatal failure of a hedge ends the run with that attempt's duration") {
        EventRecorder recorder(true);
        Driver driver({&recorder});
        driver.scripts = {never(), fails_after(5ms, ErrorCategory::ConstraintViolation), never()};
        driver.run(resolution_of(compile_hedging(hedging_spec(20ms, 3))));
        REQUIRE(recorder.events.size() == 1);
        const TimedEvent& stopped = recorder.events[0];
        CHECK(stopped.kind == Kind::Stopped);
        CHECK(stopped.attempt_duration == Duration(5ms));  // hedge 2, from 20ms to 25ms
        CHECK(stopped.run_duration == Duration(25ms));     // attempt 1, abandoned: no duration
    }
    SECTION("timed-out attempts fail with their duration; the run ends after the last") {
        rebound::PolicySpec spec = hedging_spec(20ms, 2);
        spec.attempt_timeout = 30ms;
        spec.retry_on.push_back(rebound::Matcher::of_category(ErrorCategory::StatementTimeout));
        EventRecorder recorder(true);
        Driver driver({&recorder});
        driver.scripts = {never(), never()};
        REQUIRE(driver.run(resolution_of(compile_hedging(spec))).outcome ==
                RetryOutcome::Exhausted);
        REQUIRE(recorder.events.size() == 3);
        CHECK(recorder.events[0].kind == Kind::AttemptFailed);
        CHECK(recorder.events[0].attempt == 1);
        CHECK(recorder.events[0].attempt_duration == Duration(30ms));
        CHECK(recorder.events[0].reason == "statement_timeout");
        CHECK(recorder.events[1].kind == Kind::AttemptFailed);
        CHECK(recorder.events[1].attempt == 2);
        CHECK(recorder.events[1].attempt_kind == rebound::AttemptKind::Hedge);
        CHECK(recorder.events[1].attempt_duration == Duration(30ms));  // from 20ms to 50ms
        // No attempt ended with the run's end: only the run's duration.
        CHECK(recorder.events[2].kind == Kind::Stopped);
        CHECK_FALSE(recorder.events[2].attempt_duration.has_value());
        CHECK(recorder.events[2].run_duration == Duration(50ms));
    }
    SECTION("without a listener that wants durations the events carry none") {
        EventRecorder recorder(false);
        Driver driver({&recorder});
        driver.scripts = {fails_after(5ms, ErrorCategory::ConnectionLost), succeeds_after(1ms)};
        REQUIRE(driver.run(resolution_of(compile_hedging(hedging_spec(20ms, 2)))).outcome ==
                RetryOutcome::Succeeded);
        REQUIRE(recorder.events.size() == 2);
        CHECK(recorder.events[0].kind == Kind::AttemptFailed);
        CHECK(recorder.events[1].kind == Kind::Succeeded);
        for (const TimedEvent& event : recorder.events) {
            CHECK_FALSE(event.attempt_duration.has_value());
            CHECK_FALSE(event.run_duration.has_value());
        }
    }
}
