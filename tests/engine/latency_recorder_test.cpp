// The latency recorder of learned hedge delays (docs/hedging.md, "Learned delay"): quantiles
// against an exact sort of the same latencies, the sliding window, warmup and clamping.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "rebound/latency_recorder.hpp"
#include "rebound/random_source.hpp"

using namespace std::chrono_literals;
using rebound::Duration;
using rebound::LatencyRecorder;

namespace {

const LatencyRecorder::TimePoint kOrigin{std::chrono::hours(1000)};

// The smallest v such that at least q of `samples` are <= v, by sorting (q in (0, 1]).
Duration exact_quantile(std::vector<Duration> samples, double q) {
    std::sort(samples.begin(), samples.end());
    const auto n = static_cast<double>(samples.size());
    const auto rank =
        std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(q * n)), 1, samples.size());
    return samples[rank - 1];
}

// Whether `estimate` is within 5% of `exact`.
bool near(std::optional<Duration> estimate, Duration exact) {
    return estimate.has_value() &&
           std::abs(static_cast<double>(estimate->count() - exact.count())) <=
               0.05 * static_cast<double>(exact.count());
}

Duration clamped(Duration v) {
    return std::clamp(v, LatencyRecorder::kMinLatency, LatencyRecorder::kMaxLatency);
}

constexpr std::array kQuantiles{0.0001, 0.001, 0.01, 0.1,   0.25,   0.5,     0.75,
                                0.9,    0.95,  0.99, 0.999, 0.9999, 0.99999, 1.0};

// Records `samples` at one instant and checks every quantile of kQuantiles against the sort of
// the same samples (clamped to [1us, 1h] as the recorder clamps them): within 5%.
void check_against_sort(const std::vector<Duration>& samples) {
    LatencyRecorder recorder(30s, kOrigin);
    std::vector<Duration> expected;
    expected.reserve(samples.size());
    for (const Duration sample : samples) {
        recorder.record(sample, kOrigin + 1s);
        expected.push_back(clamped(sample));
    }
    REQUIRE(recorder.count(kOrigin + 1s) == samples.size());
    for (const double q : kQuantiles) {
        const Duration exact = exact_quantile(expected, q);
        const std::optional<Duration> estimate = recorder.quantile(q, kOrigin + 1s);
        REQUIRE(estimate.has_value());
        const double error = std::abs(static_cast<double>(estimate->count() - exact.count())) /
                             static_cast<double>(exact.count());
        INFO("q = " << q << ", exact " << exact.count() << "us, estimate " << estimate->count()
                    << "us");
        CHECK(error <= 0.05);
    }
}

std::vector<Duration> draw(int count, std::uint64_t seed,
                           const std::function<double(rebound::RandomSource&)>& microseconds) {
    rebound::SeededRandomSource random(seed);
    std::vector<Duration> samples;
    samples.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        samples.push_back(Duration{std::llround(microseconds(random))});
    }
    return samples;
}

}  // namespace

TEST_CASE("recorder quantiles agree with an exact sort within 5%", "[latency_recorder]") {
    using rebound::next_unit;
    SECTION("uniform from 1us to 1s") {
        check_against_sort(draw(50000, 1, [](auto& r) { return 1.0 + next_unit(r) * 1e6; }));
    }
    SECTION("1ms plus an exponential of mean 4ms, 1% at 100ms") {
        check_against_sort(draw(100000, 2, [](auto& r) {
            if (next_unit(r) < 0.01) {
                return 100000.0;
            }
            return 1000.0 - 4000.0 * std::log1p(-next_unit(r));
        }));
    }
    SECTION("log-uniform over the whole range, 1us to 1h") {
        check_against_sort(draw(50000, 3, [](auto& r) { return std::exp(next_unit(r) * 22.0); }));
    }
    SECTION("pareto tail") {
        check_against_sort(draw(
            50000, 4, [](auto& r) { return 500.0 / std::pow(1.0 - next_unit(r), 1.0 / 1.2); }));
    }
    SECTION("two clusters far apart") {
        check_against_sort(draw(20000, 5, [](auto& r) {
            return next_unit(r) < 0.7 ? 20.0 + next_unit(r) * 5.0 : 3e6 + next_unit(r) * 1e5;
        }));
    }
    SECTION("every whole microsecond below 64, many times") {
        check_against_sort(draw(6400, 6, [](auto& r) { return std::floor(next_unit(r) * 64.0); }));
    }
}

TEST_CASE("recorder quantiles of ties and of one latency", "[latency_recorder]") {
    SECTION("one latency answers every quantile") {
        check_against_sort({123456us});
    }
    SECTION("all equal") {
        check_against_sort(std::vector<Duration>(1000, 20ms));
    }
    SECTION("half and half: the median is the lower value, above it the upper") {
        std::vector<Duration> samples(500, 2ms);
        samples.insert(samples.end(), 500, 50ms);
        check_against_sort(samples);
        LatencyRecorder recorder(10s, kOrigin);
        for (const Duration sample : samples) {
            recorder.record(sample, kOrigin);
        }
        CHECK(near(recorder.quantile(0.5, kOrigin), 2ms));
        CHECK(near(recorder.quantile(0.5001, kOrigin), 50ms));
    }
}

TEST_CASE("recorder clamps latencies to 1us and 1h", "[latency_recorder]") {
    check_against_sort({0us, 1us, Duration{-5}, 1h, 2h, Duration::max(), 3599s, 1500ms});
    LatencyRecorder recorder(1h, kOrigin);
    recorder.record(Duration{0}, kOrigin);
    recorder.record(Duration{-1}, kOrigin);
    CHECK(recorder.quantile(1.0, kOrigin) == 1us);
    recorder.record(Duration::max(), kOrigin);
    recorder.record(24h, kOrigin);
    const Duration top = *recorder.quantile(1.0, kOrigin);
    CHECK(top <= 1h);
    CHECK(top >= 1h * 0.95);
    CHECK(recorder.quantile(0.5, kOrigin) == 1us);
    CHECK(recorder.count(kOrigin) == 4);
}

TEST_CASE("recorder quantile edges: empty, q below 0 or above 1, at_least", "[latency_recorder]") {
    LatencyRecorder recorder(10s, kOrigin);
    CHECK_FALSE(recorder.quantile(0.5, kOrigin).has_value());
    CHECK(recorder.count(kOrigin) == 0);
    for (int i = 1; i <= 10; ++i) {
        recorder.record(Duration{i}, kOrigin);
    }
    CHECK(recorder.quantile(0.0, kOrigin) == 1us);
    CHECK(recorder.quantile(-3.0, kOrigin) == 1us);
    CHECK(recorder.quantile(7.0, kOrigin) == 10us);
    CHECK(recorder.quantile(0.3, kOrigin) == 3us);
    CHECK(recorder.quantile(0.31, kOrigin) == 4us);
    CHECK(recorder.quantile(0.5, kOrigin, 10) == 5us);
    CHECK_FALSE(recorder.quantile(0.5, kOrigin, 11).has_value());
    CHECK_THROWS_AS(LatencyRecorder(9us, kOrigin), std::invalid_argument);
    CHECK(LatencyRecorder(10us, kOrigin).window() == 10us);
}

TEST_CASE("recorder window forgets a bucket exactly 10 bucket widths after it began",
          "[latency_recorder]") {
    // window 10s: buckets of 1s from the origin.
    LatencyRecorder recorder(10s, kOrigin);
    recorder.record(5ms, kOrigin + 500ms);      // bucket 0
    recorder.record(7ms, kOrigin + 3s);         // bucket 3
    recorder.record(9ms, kOrigin + 3999999us);  // bucket 3
    CHECK(recorder.count(kOrigin + 3s) == 3);
    CHECK(recorder.count(kOrigin + 10s - 1us) == 3);
    CHECK(recorder.count(kOrigin + 10s) == 2);  // bucket 0 has left
    CHECK(near(recorder.quantile(0.01, kOrigin + 10s), 7ms));
    CHECK(recorder.count(kOrigin + 13s - 1us) == 2);
    CHECK(recorder.count(kOrigin + 13s) == 0);
    // Times before the origin count as the origin.
    CHECK(recorder.count(kOrigin - 1h) == 1);
}

TEST_CASE("recorder reuses a bucket's slot without keeping its old latencies",
          "[latency_recorder]") {
    LatencyRecorder recorder(10s, kOrigin);
    for (int i = 0; i < 5; ++i) {
        recorder.record(1s, kOrigin);  // bucket 0
    }
    SECTION("after an idle stretch") {
        recorder.record(2ms, kOrigin + 50s);  // bucket 50
        CHECK(recorder.count(kOrigin + 50s) == 1);
        CHECK(near(recorder.quantile(1.0, kOrigin + 50s), 2ms));
        recorder.record(3ms, kOrigin + 61s);  // bucket 61: the same slot as bucket 50
        CHECK(recorder.count(kOrigin + 61s) == 1);
        CHECK(near(recorder.quantile(1.0, kOrigin + 61s), 3ms));
    }
    SECTION("bucket by bucket") {
        for (int second = 1; second <= 30; ++second) {
            recorder.record(Duration{std::chrono::milliseconds(second)},
                            kOrigin + std::chrono::seconds(second));
            const auto now = kOrigin + std::chrono::seconds(second);
            const auto expected =
                static_cast<std::uint64_t>((second < 10 ? 5 : 0) + std::min(second, 10));
            CHECK(recorder.count(now) == expected);
            CHECK(near(
                recorder.quantile(0.0001, now),
                second < 10 ? Duration{1ms} : Duration{std::chrono::milliseconds(second - 9)}));
        }
    }
    SECTION("a latency of a bucket whose slot was reused is dropped") {
        recorder.record(4ms, kOrigin + 15s);  // bucket 15, the slot of bucket 4
        recorder.record(8ms, kOrigin + 4s);   // bucket 4: gone from that slot
        CHECK(recorder.count(kOrigin + 15s) == 1);
        CHECK(near(recorder.quantile(1.0, kOrigin + 15s), 4ms));
    }
}

TEST_CASE("learned hedge delay waits for warmup, then clamps the quantile", "[latency_recorder]") {
    LatencyRecorder recorder(30s, kOrigin);
    const rebound::LearnedHedgeDelay delay{0.9, 2ms, 250ms};
    for (int i = 1; i <= 99; ++i) {
        recorder.record(Duration{i * 100}, kOrigin + 1s);  // 0.1ms .. 9.9ms
        CHECK_FALSE(rebound::learned_hedge_delay(recorder, delay, 100, kOrigin + 1s).has_value());
    }
    recorder.record(10ms, kOrigin + 1s);
    const std::optional<Duration> learned =
        rebound::learned_hedge_delay(recorder, delay, 100, kOrigin + 1s);
    REQUIRE(learned.has_value());
    CHECK(near(learned, 9ms));  // p90 of 0.1ms..10ms

    SECTION("below min: min") {
        const rebound::LearnedHedgeDelay low{0.1, 2ms, 250ms};
        CHECK(rebound::learned_hedge_delay(recorder, low, 100, kOrigin + 1s) == 2ms);
    }
    SECTION("above max: max") {
        const rebound::LearnedHedgeDelay capped{0.99, 0ms, 5ms};
        CHECK(rebound::learned_hedge_delay(recorder, capped, 100, kOrigin + 1s) == 5ms);
    }
    SECTION("the window moving on takes the delay back to none") {
        CHECK_FALSE(rebound::learned_hedge_delay(recorder, delay, 100, kOrigin + 31s).has_value());
    }
    SECTION("a warmup of 0 or 1 needs one latency") {
        LatencyRecorder empty(30s, kOrigin);
        CHECK_FALSE(rebound::learned_hedge_delay(empty, delay, 0, kOrigin).has_value());
        empty.record(40ms, kOrigin);
        CHECK(near(rebound::learned_hedge_delay(empty, delay, 0, kOrigin), 40ms));
        CHECK(near(rebound::learned_hedge_delay(empty, delay, 1, kOrigin), 40ms));
    }
}

TEST_CASE("recorder memory per handler is at most 64 KiB", "[latency_recorder]") {
    STATIC_REQUIRE(sizeof(LatencyRecorder) <= 64 * 1024);
}
