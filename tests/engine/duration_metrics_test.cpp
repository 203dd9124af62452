// The durations a run tells its listeners, and the duration histograms of RetryMetrics
// (docs/metrics.md), under the manual clock of rebound/testing.hpp.
#include <catch2/catch.hpp>

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "event_log.hpp"
#include "rebound/retry_metrics.hpp"
#include "rebound/retry_run.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;
using rebound::Duration;
using rebound::ErrorCategory;

namespace {

// Records the durations of every event that ends an attempt or a run; wants them or not.
class DurationLog final : public rebound::RetryListener {
  public:
    explicit DurationLog(bool wants) : wants_(wants) {}
    bool wants_durations() const noexcept override { return wants_; }
    void on_retry_scheduled(const rebound::RetryEvent& e) noexcept override { add("retry", e); }
    void on_succeeded(const rebound::RetryEvent& e) noexcept override { add("succeeded", e); }
    void on_stopped(const rebound::RetryEvent& e) noexcept override { add("stopped", e); }
    std::vector<std::string> lines;

  private:
    static std::string text(const std::optional<Duration>& d) {
        return d ? std::to_string(d->count()) + "us" : "-";
    }
    void add(const char* kind, const rebound::RetryEvent& e) {
        lines.push_back(std::string(kind) + " " + std::to_string(e.attempt) + " " +
                        std::string(rebound::to_string(e.category)) + " attempt " +
                        text(e.attempt_duration) + " run " + text(e.run_duration));
    }
    bool wants_;
};

std::shared_ptr<const rebound::Policy> fixed_policy(int attempts) {
    return rebound::PolicyBuilder("p")
        .max_attempts(attempts)
        .backoff(rebound::Backoff::fixed(250ms))
        .jitter(rebound::Jitter::none())
        .retry_on(rebound::Matcher::transient())
        .build();
}

rebound::HandlerResolution resolution_of(std::shared_ptr<const rebound::Policy> policy) {
    rebound::HandlerResolution resolution;
    resolution.policy = std::move(policy);
    return resolution;
}

// An executor with `listeners`, a manual clock and a sleeper that advances it.
struct TimedExecutor {
    explicit TimedExecutor(std::vector<rebound::RetryListener*> listeners)
        : executor({.clock = &clock, .sleeper = &sleeper, .listeners = std::move(listeners)}) {}
    rebound::testing::ManualClock clock;
    rebound::testing::RecordingSleeper sleeper{&clock};
    rebound::RetryExecutor executor;
};

// Fails its first attempt with a deadlock after 3ms, succeeds at the second after 20ms.
struct FailOnceThenSucceed {
    rebound::testing::ManualClock* clock;
    void operator()(const rebound::AttemptInfo& a) const {
        if (a.attempt == 1) {
            clock->advance(3ms);
            throw rebound::Error(ErrorCategory::Deadlock, "victim");
        }
        clock->advance(20ms);
    }
};

// One bucket line of the attempt histogram's series with `labels`, as rendered.
std::string bucket_line(const std::string& labels, const char* le, int count) {
    return "rebound_attempt_duration_seconds_bucket{" + labels + ",le=\"" + le + "\"} " +
           std::to_string(count) + "\n";
}

// The text of metrics that saw one succeeded attempt of `attempt`.
std::string render_one(Duration attempt) {
    rebound::RetryMetrics metrics;
    rebound::RetryEvent event;
    event.kind = rebound::RetryEventKind::Succeeded;
    event.handler = "h";
    event.attempt_duration = attempt;
    metrics.on_succeeded(event);
    return metrics.render();
}

}  // namespace

TEST_CASE("events carry attempt and run durations read from the executor's clock",
          "[metrics][durations]") {
    DurationLog log(true);
    TimedExecutor timed({&log});
    auto& clock = timed.clock;
    const auto& executor = timed.executor;
    rebound::HandlerResolution resolution = resolution_of(fixed_policy(3));
    const rebound::RunResult r = executor.run(resolution, "h", FailOnceThenSucceed{&clock});
    CHECK(r.succeeded());
    CHECK(log.lines == std::vector<std::string>{
                           "retry 1 deadlock attempt 3000us run -",
                           "succeeded 2 deadlock attempt 20000us run 273000us",
                       });
    // One read at each attempt's start and end, none more; the result keeps no elapsed time (the
    // policy has no deadline and measure_elapsed is off).
    CHECK(clock.reads() == 4);
    CHECK_FALSE(r.elapsed.has_value());

    SECTION("a run that stops names its last failed attempt's category and duration") {
        log.lines.clear();
        resolution.policy = fixed_policy(2);
        executor.run(resolution, "h", [&clock] {
            clock.advance(7ms);
            throw rebound::Error(ErrorCategory::ConnectionLost, "gone");
        });
        CHECK(log.lines == std::vector<std::string>{
                               "retry 1 connection_lost attempt 7000us run -",
                               "stopped 2 connection_lost attempt 7000us run 264000us",
                           });
    }
}

TEST_CASE("without a listener that wants durations a run reads no clock for its events",
          "[metrics][durations]") {
    DurationLog log(false);
    rebound::test_support::EventLog events;
    TimedExecutor timed({&log, &events});
    auto& clock = timed.clock;
    const auto& executor = timed.executor;
    rebound::HandlerResolution resolution = resolution_of(fixed_policy(3));
    CHECK(executor.run(resolution, "h", FailOnceThenSucceed{&clock}).succeeded());
    CHECK(clock.reads() == 0);
    CHECK(log.lines == std::vector<std::string>{
                           "retry 1 deadlock attempt - run -",
                           "succeeded 2 deadlock attempt - run -",
                       });
}

TEST_CASE("an attempt that did not run has no duration and a cancelled one has one",
          "[metrics][durations]") {
    DurationLog log(true);
    TimedExecutor timed({&log});
    auto& clock = timed.clock;
    const auto& executor = timed.executor;
    rebound::HandlerResolution resolution = resolution_of(fixed_policy(3));

    SECTION("refused by the breaker") {
        resolution.policy = rebound::PolicyBuilder("guarded")
                                .max_attempts(2)
                                .backoff(rebound::Backoff::fixed(250ms))
                                .jitter(rebound::Jitter::none())
                                .retry_on(rebound::Matcher::transient())
                                .breaker(rebound::test_support::one_failure_breaker(clock))
                                .build();
        executor.run(resolution, "h", [&clock] {
            clock.advance(4ms);
            throw rebound::Error(ErrorCategory::Deadlock, "victim");
        });
        // The first attempt ran and opened the breaker; the second was refused without running.
        CHECK(log.lines == std::vector<std::string>{
                               "retry 1 deadlock attempt 4000us run -",
                               "stopped 2 circuit_open attempt - run 254000us",
                           });
    }
    SECTION("cancelled during its wait") {
        std::stop_source stop;
        const rebound::RunOptions options{.stop = stop.get_token()};
        executor.run(
            resolution, "h",
            [&](const rebound::AttemptInfo&) {
                clock.advance(5ms);
                stop.request_stop();  // the wait after this failure reports a stop
                throw rebound::Error(ErrorCategory::Deadlock, "victim");
            },
            options);
        CHECK(log.lines == std::vector<std::string>{
                               "retry 1 deadlock attempt 5000us run -",
                               "stopped 1 deadlock attempt - run 5000us",
                           });
    }
    SECTION("cancelled while it ran") {
        std::stop_source stop;
        const rebound::RunOptions options{.stop = stop.get_token()};
        rebound::RetryRun run = executor.begin(resolution, "h", options);
        REQUIRE(run.start_attempt() == rebound::RunStep::Attempt);
        clock.advance(9ms);
        CHECK(run.cancel() == rebound::RunStep::Done);
        CHECK(log.lines == std::vector<std::string>{"stopped 1 unknown attempt 9000us run 9000us"});
    }
}

TEST_CASE("duration histograms render in the Prometheus text format exactly",
          "[metrics][durations]") {
    rebound::RetryMetrics metrics;
    TimedExecutor timed({&metrics});
    auto& clock = timed.clock;
    const auto& executor = timed.executor;
    rebound::HandlerResolution resolution = resolution_of(fixed_policy(3));
    executor.run(resolution, "ApproveCase", FailOnceThenSucceed{&clock});
    const std::string text = metrics.render();
    const std::size_t histograms = text.find("# HELP rebound_attempt_duration_seconds");
    REQUIRE(histograms != std::string::npos);
    CHECK(
        text.substr(histograms) ==
        "# HELP rebound_attempt_duration_seconds Attempts that ran, by how they ended: "
        "succeeded, the error category of a failure, or cancelled.\n"
        "# TYPE rebound_attempt_duration_seconds histogram\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"0.0005\"} 0\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"0.001\"} 0\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"0.0025\"} 0\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"0.005\"} 0\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"0.01\"} 0\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"0.025\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"0.05\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"0.1\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"0.25\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"0.5\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"1\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"2.5\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"5\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"10\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"30\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"60\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"+Inf\"} 1\n"
        "rebound_attempt_duration_seconds_sum{handler=\"ApproveCase\",outcome=\"succeeded\"} 0.02\n"
        "rebound_attempt_duration_seconds_count{handler=\"ApproveCase\",outcome=\"succeeded\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"0.0005\"} 0\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"0.001\"} 0\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"0.0025\"} 0\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"0.005\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"0.01\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"0.025\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"0.05\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"0.1\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"0.25\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"0.5\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"1\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"2.5\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"5\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"10\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"30\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"60\"} 1\n"
        "rebound_attempt_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"deadlock\",le="
        "\"+Inf\"} 1\n"
        "rebound_attempt_duration_seconds_sum{handler=\"ApproveCase\",outcome=\"deadlock\"} 0.003\n"
        "rebound_attempt_duration_seconds_count{handler=\"ApproveCase\",outcome=\"deadlock\"} 1\n"
        "# HELP rebound_run_duration_seconds Finished runs, from the start of the first "
        "attempt to the end, by outcome.\n"
        "# TYPE rebound_run_duration_seconds histogram\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le=\"0."
        "0005\"} 0\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le=\"0."
        "001\"} 0\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le=\"0."
        "0025\"} 0\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le=\"0."
        "005\"} 0\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le=\"0."
        "01\"} 0\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le=\"0."
        "025\"} 0\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le=\"0."
        "05\"} 0\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le=\"0."
        "1\"} 0\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le=\"0."
        "25\"} 0\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le=\"0."
        "5\"} 1\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"1\"} 1\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le=\"2."
        "5\"} 1\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"5\"} 1\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"10\"} 1\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"30\"} 1\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le="
        "\"60\"} 1\n"
        "rebound_run_duration_seconds_bucket{handler=\"ApproveCase\",outcome=\"succeeded\",le=\"+"
        "Inf\"} 1\n"
        "rebound_run_duration_seconds_sum{handler=\"ApproveCase\",outcome=\"succeeded\"} 0.273\n"
        "rebound_run_duration_seconds_count{handler=\"ApproveCase\",outcome=\"succeeded\"} 1\n");
}

TEST_CASE("a duration falls in the first bucket whose bound it does not exceed",
          "[metrics][durations]") {
    const std::string labels = "handler=\"h\",outcome=\"succeeded\"";
    // Bounds are inclusive: exactly 1ms is `le="0.001"`, one microsecond more is not.
    std::string text = render_one(1ms);
    CHECK(text.find(bucket_line(labels, "0.0005", 0)) != std::string::npos);
    CHECK(text.find(bucket_line(labels, "0.001", 1)) != std::string::npos);
    text = render_one(1001us);
    CHECK(text.find(bucket_line(labels, "0.001", 0)) != std::string::npos);
    CHECK(text.find(bucket_line(labels, "0.0025", 1)) != std::string::npos);
    // Zero (and a clock that went backwards) lands in the first bucket, counted as 0.
    text = render_one(-5us);
    CHECK(text.find(bucket_line(labels, "0.0005", 1)) != std::string::npos);
    CHECK(text.find("rebound_attempt_duration_seconds_sum{" + labels + "} 0\n") !=
          std::string::npos);
    // Above the last bound (60s) only +Inf counts it.
    text = render_one(60s);
    CHECK(text.find(bucket_line(labels, "60", 1)) != std::string::npos);
    text = render_one(60s + 1us);
    CHECK(text.find(bucket_line(labels, "60", 0)) != std::string::npos);
    CHECK(text.find(bucket_line(labels, "+Inf", 1)) != std::string::npos);
    CHECK(text.find("rebound_attempt_duration_seconds_sum{" + labels + "} 60.000001\n") !=
          std::string::npos);
    CHECK(text.find("rebound_attempt_duration_seconds_count{" + labels + "} 1\n") !=
          std::string::npos);
}

TEST_CASE("a run of one successful attempt counts in both histograms beside longer runs",
          "[metrics][durations]") {
    rebound::RetryMetrics metrics;
    TimedExecutor timed({&metrics});
    auto& clock = timed.clock;
    const rebound::HandlerResolution resolution = resolution_of(fixed_policy(3));
    // Attempt 20ms, run 273ms (3ms, a wait of 250ms, 20ms); then one attempt of 5ms.
    timed.executor.run(resolution, "h", FailOnceThenSucceed{&clock});
    timed.executor.run(resolution, "h", [&clock] { clock.advance(5ms); });
    const std::string text = metrics.render();
    const std::string labels = "{handler=\"h\",outcome=\"succeeded\"";
    for (const std::string histogram : {"attempt", "run"}) {
        const std::string name = "rebound_" + histogram + "_duration_seconds";
        INFO(name);
        CHECK(text.find(name + "_bucket" + labels + ",le=\"0.005\"} 1\n") != std::string::npos);
        CHECK(text.find(name + "_count" + labels + "} 2\n") != std::string::npos);
    }
    CHECK(text.find("rebound_attempt_duration_seconds_sum" + labels + "} 0.025\n") !=
          std::string::npos);
    CHECK(text.find("rebound_run_duration_seconds_sum" + labels + "} 0.278\n") !=
          std::string::npos);
}

TEST_CASE("histogram labels are escaped and outcomes stay a fixed set", "[metrics][durations]") {
    rebound::RetryMetrics metrics;
    TimedExecutor timed({&metrics});
    const auto& executor = timed.executor;
    const rebound::HandlerResolution resolution = resolution_of(fixed_policy(1));
    // An exception nothing classifies: its attempt's outcome is the category `unknown`, never
    // the exception's text.
    executor.run(resolution, "orders.\"ship\"\n", [] { throw std::runtime_error("a \"b\""); });
    const std::string text = metrics.render();
    CHECK(text.find("rebound_attempt_duration_seconds_count{handler=\"orders.\\\"ship\\\"\\n\","
                    "outcome=\"unknown\"} 1\n") != std::string::npos);
    CHECK(text.find("rebound_run_duration_seconds_count{handler=\"orders.\\\"ship\\\"\\n\","
                    "outcome=\"non_retryable\"} 1\n") != std::string::npos);
    CHECK(text.find("a \\\"b") == std::string::npos);
}

TEST_CASE("metrics without durations render no histograms and read no clock",
          "[metrics][durations]") {
    rebound::RetryMetrics metrics({.durations = false});
    CHECK_FALSE(metrics.wants_durations());
    TimedExecutor timed({&metrics});
    auto& clock = timed.clock;
    const auto& executor = timed.executor;
    rebound::HandlerResolution resolution = resolution_of(fixed_policy(3));
    executor.run(resolution, "ApproveCase", FailOnceThenSucceed{&clock});
    CHECK(clock.reads() == 0);
    CHECK(metrics.runs("ApproveCase", rebound::RetryOutcome::Succeeded) == 1);
    const std::string text = metrics.render();
    CHECK(text.find("rebound_runs_total{handler=\"ApproveCase\",reason=\"succeeded\"} 1\n") !=
          std::string::npos);
    CHECK(text.find("duration_seconds") == std::string::npos);
}
