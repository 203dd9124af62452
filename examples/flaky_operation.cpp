// Drives a flaky operation through a retry policy and prints what happened.
//
// The operation fails twice (a deadlock, then a serialization failure) and then succeeds. The
// loop below is the essence of what the executor does: run, classify, decide, wait, run again.
//
//   rebound_example_flaky_operation [--seed N]
#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include "common/command_line.hpp"
#include "rebound/clock.hpp"
#include "rebound/decision.hpp"
#include "rebound/sleeper.hpp"

namespace {

using namespace std::chrono_literals;

// The operation: returns the error of a failed attempt, or nullopt on success.
std::optional<rebound::ErrorDescription> flaky_operation(int attempt) {
    if (attempt == 1) {
        rebound::ErrorDescription e =
            rebound::ErrorDescription::of(rebound::ErrorCategory::Deadlock);
        e.sqlstate = "40P01";
        e.vendor = rebound::Vendor::PostgreSql;
        e.message = "deadlock detected";
        return e;
    }
    if (attempt == 2) {
        rebound::ErrorDescription e =
            rebound::ErrorDescription::of(rebound::ErrorCategory::SerializationFailure);
        e.sqlstate = "40001";
        e.message = "could not serialize access due to concurrent update";
        return e;
    }
    return std::nullopt;
}

double milliseconds(rebound::Duration d) {
    return rebound::to_milliseconds(d);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Drives a flaky operation through a retry policy and prints what happened."};
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // last wins
    std::uint64_t seed = 1;
    app.add_option("--seed", seed, "Seed of the random source that draws the jitter")
        ->check(examples::decimal_whole_number<std::uint64_t>())
        ->capture_default_str();
    if (const std::optional<int> status = examples::parse_command_line(app, argc, argv)) {
        return *status;
    }

    const auto policy =
        rebound::PolicyBuilder("interactive")
            .max_attempts(4)
            .backoff(rebound::Backoff::exponential(20ms, 2.0, 200ms))
            .jitter(rebound::Jitter::equal())
            .deadline(2s)
            .retry_on(rebound::Matcher::of_category(rebound::ErrorCategory::Deadlock))
            .retry_on(rebound::Matcher::of_category(rebound::ErrorCategory::SerializationFailure))
            .never_retry_on(rebound::Matcher::sqlstate_class("23"))
            .build();
    rebound::SeededRandomSource random(seed);
    rebound::Clock& clock = rebound::default_clock();
    rebound::Sleeper& sleeper = rebound::default_sleeper();

    std::printf(
        "policy '%s': up to %d attempts, exponential 20ms x2 max 200ms, equal jitter, "
        "deadline 2s (seed %llu)\n",
        policy->name().c_str(), policy->max_attempts(), static_cast<unsigned long long>(seed));
    const auto start = clock.now();
    rebound::AttemptContext context;
    for (context.attempt = 1;; ++context.attempt) {
        const auto error = flaky_operation(context.attempt);
        if (!error) {
            policy->record_success();
            std::printf("attempt %d: ok\nsucceeded after %d attempts\n", context.attempt,
                        context.attempt);
            return 0;
        }
        context.elapsed = std::chrono::duration_cast<rebound::Duration>(clock.now() - start);
        const rebound::Decision decision = rebound::decide(*policy, *error, context, random);
        std::printf("attempt %d: failed with %s (SQLSTATE %.*s): %s, rule %.*s", context.attempt,
                    std::string(rebound::to_string(decision.category)).c_str(),
                    static_cast<int>(error->sqlstate.size()), error->sqlstate.data(),
                    std::string(rebound::to_string(decision.reason)).c_str(),
                    static_cast<int>(decision.matched.size()), decision.matched.data());
        if (!decision.retry) {
            std::printf("\ngave up after %d attempts\n", context.attempt);
            return 1;
        }
        std::printf(", waiting %.3f ms\n", milliseconds(decision.delay));
        if (!sleeper.sleep_for(decision.delay, std::stop_token{})) {
            std::printf("cancelled\n");
            return 1;
        }
        context.previous_delay = decision.delay;
    }
}
