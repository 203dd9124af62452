// One service's latency recorders, one per handler (rebound/handler_latencies.hpp): the learned
// delay a hedged run reads, per handler, with its policy's window and warmup.
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>
#include <string>

#include "rebound/handler_latencies.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;
using rebound::Duration;
using rebound::HandlerLatencies;
using rebound::HedgeSettings;

namespace {

HedgeSettings learned(double quantile, int warmup, Duration window = 30s) {
    HedgeSettings hedge;
    hedge.learned = rebound::LearnedHedgeDelay{quantile, 1ms, 1s};
    hedge.warmup = warmup;
    hedge.window = window;
    return hedge;
}

bool near(std::optional<Duration> value, Duration expected) {
    return value.has_value() && std::abs(static_cast<double>((*value - expected).count())) <=
                                    0.05 * static_cast<double>(expected.count());
}

}  // namespace

TEST_CASE("handler latencies learn a delay per handler", "[latency_recorder]") {
    rebound::testing::ManualClock clock;
    HandlerLatencies latencies(clock);
    const HedgeSettings hedge = learned(0.5, 10);

    // No recorder before a learned delay is read: records are dropped.
    latencies.record("search", 40ms);
    CHECK(latencies.recorder("search") == nullptr);
    CHECK_FALSE(latencies.hedge_delay("search", hedge).has_value());  // makes it, empty
    REQUIRE(latencies.recorder("search") != nullptr);
    CHECK(latencies.recorder("search")->window() == 30s);

    for (int i = 0; i < 9; ++i) {
        latencies.record("search", 20ms);
        latencies.record("catalog", 20ms);  // no recorder: dropped
    }
    CHECK_FALSE(latencies.hedge_delay("search", hedge).has_value());  // 9 < warmup 10
    latencies.record("search", 20ms);
    CHECK(near(latencies.hedge_delay("search", hedge), 20ms));
    CHECK_FALSE(latencies.hedge_delay("catalog", hedge).has_value());
    CHECK(latencies.recorder("catalog")->count(clock.now()) == 0);

    SECTION("clamped to the policy's [min, max]") {
        for (int i = 0; i < 30; ++i) {
            latencies.record("search", 5s);
        }
        CHECK(latencies.hedge_delay("search", hedge) == 1s);
    }
    SECTION("the window slides with the clock") {
        clock.advance(31s);
        CHECK_FALSE(latencies.hedge_delay("search", hedge).has_value());
    }
    SECTION("a changed window starts the handler afresh") {
        const HedgeSettings reloaded = learned(0.5, 10, 10s);
        CHECK_FALSE(latencies.hedge_delay("search", reloaded).has_value());
        CHECK(latencies.recorder("search")->window() == 10s);
        CHECK(latencies.recorder("search")->count(clock.now()) == 0);
    }
    SECTION("a fixed delay reads nothing") {
        HedgeSettings fixed;
        fixed.fixed_delay = 20ms;
        CHECK_FALSE(latencies.hedge_delay("other", fixed).has_value());
        CHECK(latencies.recorder("other") == nullptr);
    }
}
