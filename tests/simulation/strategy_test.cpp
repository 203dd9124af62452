// The built-in strategies reproduce the delays of aws-samples/aws-arch-backoff-simulator through
// the engine's backoff and jitter.
#include <catch2/catch.hpp>
#include <chrono>

#include "rebound/simulation/strategy.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;
using rebound::Duration;
using rebound::simulation::builtin_strategies;
using rebound::simulation::builtin_strategy;
using rebound::simulation::Strategy;
using rebound::testing::ScriptedRandomSource;

namespace {

// The simulator's exponential: min(cap, base * 2^n), n = 1 for the first retry.
Duration simulator_exponential(int n) {
    const Duration value = Duration{5000 * (std::int64_t{1} << n)};
    return value < Duration{2'000'000} ? value : Duration{2'000'000};
}

constexpr double kHighest = 0.999999999;

}  // namespace

TEST_CASE("built-in strategies are the five of the published experiment, in report order") {
    const auto strategies = builtin_strategies();
    REQUIRE(strategies.size() == 5);
    CHECK(strategies[0].name() == "exponential");
    CHECK(strategies[1].name() == "full");
    CHECK(strategies[2].name() == "equal");
    CHECK(strategies[3].name() == "decorrelated");
    CHECK(strategies[4].name() == "none");
    CHECK_FALSE(builtin_strategy("fulljitter"));
}

TEST_CASE("exponential waits min(cap, base * 2^n) with n = 1 for the first retry") {
    const Strategy strategy = *builtin_strategy("exponential");
    ScriptedRandomSource random{0.5};
    for (int retry = 1; retry <= 12; ++retry) {
        CHECK(strategy.delay_before_retry(retry, Duration{0}, random) ==
              simulator_exponential(retry));
    }
    CHECK(strategy.delay_before_retry(1, Duration{0}, random) == 10ms);
    CHECK(strategy.delay_before_retry(9, Duration{0}, random) == 2000ms);
    CHECK(random.draws() == 0);
}

TEST_CASE("full and equal jitter draw below the simulator's exponential") {
    const Strategy full = *builtin_strategy("full");
    const Strategy equal = *builtin_strategy("equal");
    for (int retry = 1; retry <= 10; ++retry) {
        ScriptedRandomSource lowest{0.0};
        ScriptedRandomSource highest{kHighest};
        CHECK(full.delay_before_retry(retry, Duration{0}, lowest) == Duration{0});
        CHECK(full.delay_before_retry(retry, Duration{0}, highest) == simulator_exponential(retry));
        CHECK(equal.delay_before_retry(retry, Duration{0}, lowest) ==
              simulator_exponential(retry) / 2);
        CHECK(equal.delay_before_retry(retry, Duration{0}, highest) ==
              simulator_exponential(retry));
    }
}

TEST_CASE("decorrelated jitter draws from [base, 3 * previous sleep], starting from base") {
    const Strategy strategy = *builtin_strategy("decorrelated");
    ScriptedRandomSource highest{kHighest};
    Duration previous{0};
    const Duration expected[] = {15ms, 45ms, 135ms, 405ms, 1215ms, 2000ms, 2000ms};
    int retry = 1;
    for (const Duration delay : expected) {
        previous = strategy.delay_before_retry(retry++, previous, highest);
        CHECK(previous == delay);
    }
    ScriptedRandomSource lowest{0.0};
    CHECK(strategy.delay_before_retry(7, 2000ms, lowest) == 5ms);
}

TEST_CASE("no backoff never waits") {
    const Strategy strategy = *builtin_strategy("none");
    ScriptedRandomSource random{kHighest};
    for (int retry = 1; retry <= 20; ++retry) {
        CHECK(strategy.delay_before_retry(retry, 100ms, random) == Duration{0});
    }
}

TEST_CASE("a strategy needs a policy") {
    CHECK_THROWS_AS(Strategy("empty", nullptr), std::invalid_argument);
}
