#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "rebound/retry_executor.hpp"
#include "rebound/retry_metrics.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;
using rebound::ErrorCategory;

TEST_CASE("metrics render in the Prometheus text format exactly", "[metrics]") {
    rebound::testing::ManualClock clock;
    rebound::testing::RecordingSleeper sleeper(&clock);
    rebound::RetryMetrics metrics;
    const rebound::RetryExecutor executor(
        {.clock = &clock, .sleeper = &sleeper, .listeners = {&metrics}});
    rebound::HandlerResolution resolution;
    resolution.policy = rebound::PolicyBuilder("p")
                            .max_attempts(3)
                            .backoff(rebound::Backoff::fixed(250ms))
                            .jitter(rebound::Jitter::none())
                            .retry_on(rebound::Matcher::transient())
                            .build();
    const auto fail_once = [](const rebound::AttemptInfo& a) {
        if (a.attempt == 1) {
            throw rebound::Error(ErrorCategory::Deadlock, "d");
        }
    };
    executor.run(resolution, "ApproveCase", fail_once, {.command_id = "id-1"});
    executor.run(resolution, "ApproveCase", fail_once, {.command_id = "id-2"});
    executor.run(resolution, "orders.\"ship\"",
                 [] { throw rebound::Error(ErrorCategory::ConnectionLost, "gone"); });

    CHECK(metrics.attempts("ApproveCase") == 4);
    CHECK(metrics.retries("ApproveCase", ErrorCategory::Deadlock) == 2);
    CHECK(metrics.runs("orders.\"ship\"", rebound::RetryOutcome::Exhausted) == 1);
    CHECK(metrics.attempts("nobody") == 0);
    // The counters; the hedging series and the duration histograms that follow are in
    // hedge_metrics_test.cpp and duration_metrics_test.cpp.
    const std::string text = metrics.render();
    CHECK(text.substr(0, text.find("# HELP rebound_hedges_total")) ==
          "# HELP rebound_attempts_total Attempts started, first attempts included.\n"
          "# TYPE rebound_attempts_total counter\n"
          "rebound_attempts_total{handler=\"ApproveCase\"} 4\n"
          "rebound_attempts_total{handler=\"orders.\\\"ship\\\"\"} 3\n"
          "# HELP rebound_retries_total Retries scheduled, by the error category of the failed "
          "attempt.\n"
          "# TYPE rebound_retries_total counter\n"
          "rebound_retries_total{handler=\"ApproveCase\",reason=\"deadlock\"} 2\n"
          "rebound_retries_total{handler=\"orders.\\\"ship\\\"\",reason=\"connection_lost\"} 2\n"
          "# HELP rebound_retry_delay_seconds_total Total time of the waits scheduled before "
          "retries.\n"
          "# TYPE rebound_retry_delay_seconds_total counter\n"
          "rebound_retry_delay_seconds_total{handler=\"ApproveCase\"} 0.5\n"
          "rebound_retry_delay_seconds_total{handler=\"orders.\\\"ship\\\"\"} 0.5\n"
          "# HELP rebound_runs_total Finished runs, by outcome.\n"
          "# TYPE rebound_runs_total counter\n"
          "rebound_runs_total{handler=\"ApproveCase\",reason=\"succeeded\"} 2\n"
          "rebound_runs_total{handler=\"orders.\\\"ship\\\"\",reason=\"exhausted\"} 1\n");
    // Command ids never become labels.
    CHECK(metrics.render().find("id-1") == std::string::npos);
}

TEST_CASE("label values are escaped", "[metrics]") {
    CHECK(rebound::escape_label_value("a\\b\"c\nd") == "a\\\\b\\\"c\\nd");
}

TEST_CASE("a handler name that is not UTF-8 renders as a valid label value", "[metrics]") {
    rebound::RetryMetrics metrics;
    rebound::RetryEvent event;
    event.handler = "bad\xff\xc3\"name";
    metrics.on_attempt_started(event);
    const std::string text = metrics.render();
    CHECK(rebound::is_valid_utf8(text));
    CHECK(
        text.find("rebound_attempts_total{handler=\"bad\xef\xbf\xbd\xef\xbf\xbd\\\"name\"} 1\n") !=
        std::string::npos);
}

TEST_CASE("metrics on one thread count apart, the same handler name in a reused buffer too",
          "[metrics]") {
    // Each thread keeps the handler it counted last: it must belong to the metrics counting, and
    // name the handler by its text, not by where the text is.
    rebound::RetryEvent event;
    event.kind = rebound::RetryEventKind::AttemptStarted;
    std::string name = "orders.ship";
    event.handler = name;
    auto first = std::make_unique<rebound::RetryMetrics>();
    rebound::RetryMetrics second;
    first->on_attempt_started(event);
    second.on_attempt_started(event);
    first->on_attempt_started(event);
    CHECK(first->attempts("orders.ship") == 2);
    CHECK(second.attempts("orders.ship") == 1);
    name.replace(0, 6, "refund");  // the same buffer, another handler
    first->on_attempt_started(event);
    CHECK(first->attempts("refund.ship") == 1);
    CHECK(first->attempts("orders.ship") == 2);
    // Metrics made where destroyed ones were start from nothing.
    first.reset();
    first = std::make_unique<rebound::RetryMetrics>();
    first->on_attempt_started(event);
    CHECK(first->attempts("refund.ship") == 1);
    CHECK(first->attempts("orders.ship") == 0);
}
