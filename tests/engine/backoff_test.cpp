#include <catch2/catch.hpp>

#include "rebound/backoff.hpp"

using namespace std::chrono_literals;
using rebound::Backoff;
using rebound::Duration;

TEST_CASE("fixed backoff waits the same delay before every retry", "[backoff]") {
    const Backoff b = Backoff::fixed(5s);
    CHECK(b.base_delay(1) == 5s);
    CHECK(b.base_delay(2) == 5s);
    CHECK(b.base_delay(1000) == 5s);
    CHECK_FALSE(b.cap().has_value());
}

TEST_CASE("linear backoff adds the increment per retry and stops at max", "[backoff]") {
    const Backoff b = Backoff::linear(2s, 2s, 60s);
    CHECK(b.base_delay(1) == 2s);
    CHECK(b.base_delay(2) == 4s);
    CHECK(b.base_delay(5) == 10s);
    CHECK(b.base_delay(30) == 60s);
    CHECK(b.base_delay(31) == 60s);
    CHECK(b.base_delay(1000) == 60s);
    CHECK(b.cap() == Duration(60s));
}

TEST_CASE("linear backoff saturates with a huge increment", "[backoff]") {
    const Backoff b =
        Backoff::linear(0ms, std::chrono::hours(24 * 30), std::chrono::hours(24 * 30));
    CHECK(b.base_delay(1) == 0ms);
    CHECK(b.base_delay(2) == std::chrono::hours(24 * 30));
    CHECK(b.base_delay(1000) == std::chrono::hours(24 * 30));
}

TEST_CASE("exponential backoff multiplies per retry and stops at max", "[backoff]") {
    const Backoff b = Backoff::exponential(50ms, 2.0, 200ms);
    CHECK(b.base_delay(1) == 50ms);
    CHECK(b.base_delay(2) == 100ms);
    CHECK(b.base_delay(3) == 200ms);
    CHECK(b.base_delay(4) == 200ms);

    const Backoff by_three = Backoff::exponential(1s, 3.0, 1min);
    CHECK(by_three.base_delay(1) == 1s);
    CHECK(by_three.base_delay(2) == 3s);
    CHECK(by_three.base_delay(3) == 9s);
    CHECK(by_three.base_delay(4) == 27s);
    CHECK(by_three.base_delay(5) == 60s);
}

TEST_CASE("exponential backoff with a fractional multiplier rounds to whole microseconds",
          "[backoff]") {
    const Backoff b = Backoff::exponential(Duration(1000), 1.5, 30s);
    CHECK(b.base_delay(1) == Duration(1000));
    CHECK(b.base_delay(2) == Duration(1500));
    CHECK(b.base_delay(3) == Duration(2250));
    CHECK(b.base_delay(4) == Duration(3375));
}

TEST_CASE("exponential backoff saturates at attempt 1000 with multiplier 100", "[backoff]") {
    const Backoff b =
        Backoff::exponential(std::chrono::hours(24 * 30), 100.0, std::chrono::hours(24 * 30));
    CHECK(b.base_delay(1000) == std::chrono::hours(24 * 30));
    const Backoff small = Backoff::exponential(1ms, 100.0, 30s);
    for (int k = 1; k <= 1000; ++k) {
        const Duration d = small.base_delay(k);
        REQUIRE(d >= 0ms);
        REQUIRE(d <= 30s);
    }
    CHECK(small.base_delay(1000) == 30s);
    CHECK(small.base_delay(std::numeric_limits<int>::max()) == 30s);
}

TEST_CASE("exponential backoff from zero stays at zero", "[backoff]") {
    const Backoff b = Backoff::exponential(0ms, 100.0, 30s);
    CHECK(b.base_delay(1) == 0ms);
    CHECK(b.base_delay(1000) == 0ms);
}

TEST_CASE("no backoff is zero, and retry numbers below 1 count as the first retry", "[backoff]") {
    CHECK(Backoff::none().base_delay(1) == 0ms);
    CHECK(Backoff::none().base_delay(1000) == 0ms);
    CHECK(Backoff::exponential(50ms).base_delay(0) == 50ms);
    CHECK(Backoff::exponential(50ms).base_delay(-7) == 50ms);
}

TEST_CASE("default backoff is exponential 100ms x2 max 30s", "[backoff]") {
    const Backoff b;
    CHECK(b.type == rebound::BackoffType::Exponential);
    CHECK(b.initial == 100ms);
    CHECK(b.multiplier == 2.0);
    CHECK(b.max == 30s);
}
