#include <catch2/catch.hpp>

#include <limits>
#include <random>

#include "rebound/jitter.hpp"
#include "rebound/policy.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;
using rebound::Backoff;
using rebound::DelayRange;
using rebound::Duration;
using rebound::Jitter;
using rebound::jittered_delay;
using rebound::testing::ScriptedRandomSource;

namespace {
constexpr Backoff kExponential = Backoff::exponential(100ms, 2.0, 1s);
constexpr Backoff kFixed = Backoff::fixed(1s);
}  // namespace

TEST_CASE("no jitter returns the base delay without drawing", "[jitter]") {
    ScriptedRandomSource random{0.7};
    CHECK(jittered_delay(Jitter::none(), kExponential, 400ms, 0ms, random) == 400ms);
    CHECK(random.draws() == 0);
}

TEST_CASE("full jitter draws uniformly from [0, d]", "[jitter]") {
    ScriptedRandomSource random{0.0, 0.5, 0.999999999};
    CHECK(jittered_delay(Jitter::full(), kExponential, 100ms, 0ms, random) == 0ms);
    // floor(0.5 * 100001) = 50000
    CHECK(jittered_delay(Jitter::full(), kExponential, 100ms, 0ms, random) == Duration(50000));
    CHECK(jittered_delay(Jitter::full(), kExponential, 100ms, 0ms, random) == 100ms);
}

TEST_CASE("equal jitter draws uniformly from [d/2, d]", "[jitter]") {
    ScriptedRandomSource random{0.0, 0.5, 0.999999999};
    CHECK(jittered_delay(Jitter::equal(), kExponential, 100ms, 0ms, random) == 50ms);
    // 50000 + floor(0.5 * 50001) = 75000
    CHECK(jittered_delay(Jitter::equal(), kExponential, 100ms, 0ms, random) == Duration(75000));
    CHECK(jittered_delay(Jitter::equal(), kExponential, 100ms, 0ms, random) == 100ms);
}

TEST_CASE("equal jitter of an odd delay never goes below half of it", "[jitter]") {
    ScriptedRandomSource random{0.0};
    CHECK(jittered_delay(Jitter::equal(), kExponential, Duration(25001), 0ms, random) ==
          Duration(12501));
}

TEST_CASE("decorrelated jitter draws from [initial, 3 * previous], capped at max", "[jitter]") {
    ScriptedRandomSource random{0.0, 0.5, 0.999999999};
    // First retry: previous = initial = 100ms, range [100ms, 300ms].
    CHECK(jittered_delay(Jitter::decorrelated(), kExponential, 100ms, 0ms, random) == 100ms);
    // previous 200ms: [100ms, 600ms]; 100000 + floor(0.5 * 500001) = 350000
    CHECK(jittered_delay(Jitter::decorrelated(), kExponential, 200ms, 200ms, random) ==
          Duration(350000));
    // previous 900ms: [100ms, 2700ms] capped at 1s.
    CHECK(jittered_delay(Jitter::decorrelated(), kExponential, 800ms, 900ms, random) == 1s);
    CHECK(rebound::jitter_range(Jitter::decorrelated(), kExponential, 800ms, 900ms) ==
          DelayRange{100ms, 1s});
}

TEST_CASE("jitter draws from the whole interval, then clamps the result to max", "[jitter]") {
    // previous 900ms: decorrelated draws from [100ms, 2700ms]; the middle, 1400ms, is clamped to
    // 1s. Drawing from the clamped interval [100ms, 1s] instead would give 550ms.
    ScriptedRandomSource middle{0.5};
    CHECK(jittered_delay(Jitter::decorrelated(), kExponential, 800ms, 900ms, middle) == 1s);
    // A quarter of the way: 100ms + 0.25 * 2600ms = 750ms, below max, kept.
    ScriptedRandomSource quarter{0.25};
    CHECK(jittered_delay(Jitter::decorrelated(), kExponential, 800ms, 900ms, quarter) ==
          Duration(750000));
}

TEST_CASE("bounded jitter draws from [max(0, d - D), d + D], clamped to the backoff max",
          "[jitter]") {
    ScriptedRandomSource random{0.0, 0.999999999};
    const Jitter j = Jitter::bounded(1s);
    const Backoff b = Backoff::exponential(2s, 2.0, 60s);
    CHECK(jittered_delay(j, b, 2s, 0ms, random) == 1s);
    CHECK(jittered_delay(j, b, 2s, 0ms, random) == 3s);
    CHECK(rebound::jitter_range(j, b, 500ms, 0ms) == DelayRange{0ms, 1500ms});
    CHECK(rebound::jitter_range(j, b, 60s, 0ms) == DelayRange{59s, 60s});
    // A fixed backoff has no max: the upper bound is d + D.
    CHECK(rebound::jitter_range(j, kFixed, 1s, 0ms) == DelayRange{0ms, 2s});
}

TEST_CASE("proportional jitter draws from [d(1-f), d(1+f)]", "[jitter]") {
    ScriptedRandomSource random{0.0, 0.5};
    const Jitter j = Jitter::proportional(0.2);
    CHECK(jittered_delay(j, kFixed, 1s, 0ms, random) == 800ms);
    // 800000 + floor(0.5 * 400001) = 1000000
    CHECK(jittered_delay(j, kFixed, 1s, 0ms, random) == 1s);
    CHECK(rebound::jitter_range(j, kFixed, 1s, 0ms) == DelayRange{800ms, 1200ms});
    CHECK(rebound::jitter_range(j, kExponential, 1s, 0ms) == DelayRange{800ms, 1s});
    CHECK(rebound::jitter_range(Jitter::proportional(1.0), kFixed, 1s, 0ms) == DelayRange{0ms, 2s});
}

TEST_CASE("schedule ranges of decorrelated jitter grow by three per retry up to max", "[jitter]") {
    const Jitter j = Jitter::decorrelated();
    CHECK(rebound::schedule_range(j, kExponential, 1) == DelayRange{100ms, 300ms});
    CHECK(rebound::schedule_range(j, kExponential, 2) == DelayRange{100ms, 900ms});
    CHECK(rebound::schedule_range(j, kExponential, 3) == DelayRange{100ms, 1s});
    CHECK(rebound::schedule_range(j, kExponential, 1000) == DelayRange{100ms, 1s});
}

TEST_CASE("jitter saturates instead of overflowing", "[jitter]") {
    ScriptedRandomSource random{0.999999999};
    const Duration huge = rebound::kDurationInfinity;
    const Jitter bounded = Jitter::bounded(std::chrono::hours(24 * 30));
    const Duration from_bounded = jittered_delay(bounded, kFixed, huge, 0ms, random);
    CHECK(from_bounded >= huge - std::chrono::hours(24 * 30));
    CHECK(from_bounded <= huge);
    CHECK(rebound::jitter_range(bounded, kFixed, huge, 0ms).max == huge);
    CHECK(rebound::jitter_range(Jitter::proportional(1.0), kFixed, huge, 0ms).max == huge);
    const Backoff wide =
        Backoff::exponential(std::chrono::hours(24 * 30), 100.0, std::chrono::hours(24 * 30));
    CHECK(jittered_delay(Jitter::decorrelated(), wide, wide.base_delay(1000), huge, random) ==
          std::chrono::hours(24 * 30));
}

TEST_CASE("every jittered delay lies within the spec's bounds for random policies",
          "[jitter][property]") {
    std::mt19937_64 policy_random(20261122);
    rebound::SeededRandomSource draws(7);
    std::uniform_int_distribution<std::int64_t> micros(0, std::chrono::microseconds(60s).count());
    std::uniform_real_distribution<double> multipliers(1.0001, 100.0);
    std::uniform_real_distribution<double> factors(0.0001, 1.0);
    std::uniform_int_distribution<int> retries(1, 1000);
    std::uniform_int_distribution<int> kinds(0, 5);

    for (int trial = 0; trial < 20000; ++trial) {
        const Duration initial{micros(policy_random)};
        const Duration max = initial + Duration{micros(policy_random)};
        const Backoff backoff =
            (trial % 2 == 0) ? Backoff::exponential(initial, multipliers(policy_random), max)
                             : Backoff::linear(initial, Duration{micros(policy_random)}, max);
        Jitter jitter;
        switch (kinds(policy_random)) {
            case 0:
                jitter = Jitter::none();
                break;
            case 1:
                jitter = Jitter::full();
                break;
            case 2:
                jitter = Jitter::equal();
                break;
            case 3:
                jitter = Jitter::decorrelated();
                break;
            case 4:
                jitter = Jitter::bounded(Duration{micros(policy_random)});
                break;
            default:
                jitter = Jitter::proportional(factors(policy_random));
                break;
        }
        const int k = retries(policy_random);
        const Duration base = backoff.base_delay(k);
        REQUIRE(base >= initial);
        REQUIRE(base <= max);
        const Duration previous{micros(policy_random)};
        const Duration d = jittered_delay(jitter, backoff, base, previous, draws);
        INFO("trial " << trial << " jitter " << rebound::to_string(jitter.type));
        REQUIRE(d >= 0ms);
        REQUIRE(d <= max);
        const DelayRange widest = rebound::schedule_range(jitter, backoff, k);
        switch (jitter.type) {
            case rebound::JitterType::None:
                REQUIRE(d == base);
                break;
            case rebound::JitterType::Full:
                REQUIRE(d <= base);
                break;
            case rebound::JitterType::Equal:
                REQUIRE(2 * d.count() >= base.count());
                REQUIRE(d <= base);
                break;
            case rebound::JitterType::Decorrelated:
                REQUIRE(d >= initial);
                REQUIRE(d.count() <=
                        std::max(3 * std::max(previous, initial).count(), initial.count()));
                break;
            case rebound::JitterType::Bounded:
                REQUIRE(d >= base - jitter.amount);
                REQUIRE(d <= base + jitter.amount);
                REQUIRE(d >= widest.min);
                REQUIRE(d <= widest.max);
                break;
            case rebound::JitterType::Proportional:
                REQUIRE(static_cast<double>(d.count()) >=
                        static_cast<double>(base.count()) * (1.0 - jitter.factor) - 1.0);
                REQUIRE(static_cast<double>(d.count()) <=
                        static_cast<double>(base.count()) * (1.0 + jitter.factor) + 1.0);
                REQUIRE(d >= widest.min);
                REQUIRE(d <= widest.max);
                break;
        }
    }
}

TEST_CASE("a compiled policy draws the delays jittered_delay draws", "[jitter][property]") {
    // Policy::retry_delay draws from the interval and count precomputed at compile time
    // (decorrelated: from the previous delay); jittered_delay computes the interval per draw.
    // The same seed must give the same delays, and the same number of draws.
    std::mt19937_64 policy_random(20261127);
    std::uniform_int_distribution<std::int64_t> micros(0, std::chrono::microseconds(60s).count());
    std::uniform_int_distribution<std::int64_t> small_micros(0, 3);
    std::uniform_real_distribution<double> factors(0.0001, 1.0);
    std::uniform_int_distribution<int> kinds(0, 5);
    int compared = 0;
    for (int trial = 0; trial < 5000; ++trial) {
        // Some intervals of one point or none (initial 0, amounts of a few microseconds).
        const bool tiny = trial % 4 == 0;
        const Duration initial{tiny ? small_micros(policy_random) : micros(policy_random)};
        const Duration max = initial + Duration{micros(policy_random)};
        const Jitter jitter = [&] {
            switch (kinds(policy_random)) {
                case 0:
                    return Jitter::none();
                case 1:
                    return Jitter::full();
                case 2:
                    return Jitter::equal();
                case 3:
                    return Jitter::decorrelated();
                case 4:
                    return Jitter::bounded(
                        Duration{tiny ? small_micros(policy_random) : micros(policy_random)});
                default:
                    return Jitter::proportional(factors(policy_random));
            }
        }();
        const auto policy = rebound::PolicyBuilder("random")
                                .max_attempts(10)
                                .backoff(Backoff::exponential(initial, 2.0, max))
                                .jitter(jitter)
                                .try_build()
                                .policy;
        if (!policy) {
            continue;  // a combination validation refuses
        }
        ++compared;
        rebound::SeededRandomSource policy_draws(static_cast<std::uint64_t>(trial));
        rebound::SeededRandomSource reference_draws(static_cast<std::uint64_t>(trial));
        for (int k = 1; k < 10; ++k) {
            const Duration previous{tiny ? small_micros(policy_random) : micros(policy_random)};
            INFO("trial " << trial << " jitter " << rebound::to_string(jitter.type) << " retry "
                          << k);
            REQUIRE(policy->retry_delay(k, previous, policy_draws) ==
                    jittered_delay(jitter, policy->spec().backoff, policy->base_delay(k), previous,
                                   reference_draws));
        }
        REQUIRE(policy_draws.next() == reference_draws.next());  // as many draws on each side
    }
    CHECK(compared > 4000);
}

TEST_CASE("uniform_between maps a draw onto any interval, the whole of int64 included",
          "[jitter]") {
    constexpr std::int64_t kLowest = std::numeric_limits<std::int64_t>::min();
    constexpr std::int64_t kHighest = std::numeric_limits<std::int64_t>::max();
    ScriptedRandomSource random{0.0, 0.5, 0.75};
    // The whole range: the draw itself is the offset.
    CHECK(rebound::uniform_between(random, kLowest, kHighest) == kLowest);
    CHECK(rebound::uniform_between(random, kLowest, kHighest) == 0);
    CHECK(rebound::uniform_between(random, kLowest, kHighest) == kHighest / 2 + 1);
    // One point or none: no draw.
    CHECK(rebound::uniform_between(random, 7, 7) == 7);
    CHECK(rebound::uniform_between(random, 7, 3) == 7);
    CHECK(random.draws() == 3);
    CHECK(rebound::uniform_between(random, -10, 9) == -10);  // 0.0
    CHECK(rebound::uniform_between(random, -10, 9) == 0);    // 0.5 of 20 values
    CHECK(rebound::uniform_between(random, -10, 9) == 5);    // 0.75 of 20 values
    CHECK(rebound::uniform_below(random, 4) == 0);
    CHECK(rebound::uniform_below(random, 4) == 2);
    CHECK(rebound::uniform_below(random, 4) == 3);
}
