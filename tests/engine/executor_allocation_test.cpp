// Measures what the executor allocates per run and per attempt, by counting the global operator
// new (replaced in tests/support/allocation_counter.cpp, linked only into this executable).
#include <catch2/catch.hpp>

#include <stdexcept>

#include "allocation_counter.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/retry_metrics.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;

namespace {

class InstantSleeper final : public rebound::Sleeper {
  public:
    bool sleep_for(rebound::Duration, std::stop_token stop) override {
        return !stop.stop_requested();
    }
};

}  // namespace

TEST_CASE("a run allocates nothing of its own, on success, retry and stop",
          "[executor][allocation]") {
    rebound::testing::ManualClock clock;
    InstantSleeper sleeper;
    rebound::SeededRandomSource random(7);
    rebound::RetryMetrics metrics;
    const rebound::RetryExecutor executor(
        {.clock = &clock, .sleeper = &sleeper, .random = &random, .listeners = {&metrics}});
    rebound::HandlerResolution resolution;
    resolution.policy = rebound::PolicyBuilder("p")
                            .max_attempts(5)
                            .backoff(rebound::Backoff::exponential(10ms))
                            .jitter(rebound::Jitter::full())
                            .deadline(10s)
                            .retry_on(rebound::Matcher::transient())
                            .budget({1000, 1.0})
                            .build();
    // Errors are made before counting: making one is the work's cost, not the executor's.
    const rebound::Error deadlock(rebound::ErrorCategory::Deadlock, "victim");
    std::stop_source stop;
    const rebound::RunOptions options{.command_id = "cmd", .stop = stop.get_token()};
    const auto returns_errors = [&](const rebound::AttemptInfo&) -> std::optional<rebound::Error> {
        return deadlock;
    };
    const auto succeeds = [](const rebound::AttemptInfo&) {};
    // The metrics listener allocates once per new handler: warm it up.
    executor.run(resolution, "job", succeeds, options);

    std::size_t before = rebound::testing::allocations_on_this_thread();
    auto result = executor.run(resolution, "job", returns_errors, options);
    CHECK(rebound::testing::allocations_on_this_thread() - before == 0);
    CHECK(result.outcome == rebound::RetryOutcome::Exhausted);
    CHECK(result.attempts == 5);

    before = rebound::testing::allocations_on_this_thread();
    result = executor.run(resolution, "job", succeeds, options);
    CHECK(rebound::testing::allocations_on_this_thread() - before == 0);
    CHECK(result.succeeded());

    // Thrown errors: the runtime allocates each exception object itself (malloc, not operator
    // new); the executor adds nothing: std::current_exception() takes a reference and the
    // classification rethrows the exception in place.
    before = rebound::testing::allocations_on_this_thread();
    result = executor.run(
        resolution, "job", [&] { throw deadlock; }, options);
    CHECK(rebound::testing::allocations_on_this_thread() - before == 0);
    CHECK(result.attempts == 5);

    // An exception that is not a rebound::Error carries no description: the failure keeps the
    // one classification made in a block of its own, once per failed attempt (failure.hpp).
    const std::runtime_error plain("plain");  // its copies share their text
    before = rebound::testing::allocations_on_this_thread();
    result = executor.run(
        resolution, "job", [&] { throw plain; }, options);
    CHECK(rebound::testing::allocations_on_this_thread() - before == 1);
    CHECK(result.outcome == rebound::RetryOutcome::NonRetryable);
}
