// CircuitBreaker: the state machine of docs/resilience.md at its boundaries, in virtual time.
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "rebound/circuit_breaker.hpp"

using namespace std::chrono_literals;
using rebound::BreakerPermit;
using rebound::BreakerSettings;
using rebound::BreakerState;
using rebound::BreakerTrip;
using rebound::CircuitBreaker;
using rebound::ErrorCategory;
using rebound::ErrorDescription;

namespace {

const CircuitBreaker::TimePoint t0{};

CircuitBreaker::TimePoint at(rebound::Duration d) {
    return t0 + d;
}

BreakerSettings ratio(int minimum_calls, double failure_ratio, rebound::Duration window = 1s) {
    BreakerSettings s;
    s.name = "db";
    s.minimum_calls = minimum_calls;
    s.failure_ratio = failure_ratio;
    s.window = window;
    s.open_for = 100ms;
    s.max_open_for = 350ms;
    return s;
}

BreakerSettings consecutive(int n) {
    BreakerSettings s;
    s.name = "api";
    s.trip = BreakerTrip::Consecutive;
    s.consecutive_failures = n;
    s.open_for = 100ms;
    return s;
}

const ErrorDescription kFailure = ErrorDescription::of(ErrorCategory::Deadlock);
const ErrorDescription kNotCounted = ErrorDescription::of(ErrorCategory::ConstraintViolation);

void fail(CircuitBreaker& b, rebound::Duration when) {
    const BreakerPermit p = b.acquire(at(when));
    REQUIRE(p.admitted);
    b.record_error(p, kFailure, at(when));
}

void succeed(CircuitBreaker& b, rebound::Duration when) {
    const BreakerPermit p = b.acquire(at(when));
    REQUIRE(p.admitted);
    b.record_success(p, 1ms, at(when));
}

BreakerState state(const CircuitBreaker& b, rebound::Duration when) {
    return b.snapshot(at(when)).state;
}

// Trips `b` (ratio 1 of 1 call) at `when`.
void trip(CircuitBreaker& b, rebound::Duration when) {
    fail(b, when);
    REQUIRE(state(b, when) == BreakerState::Open);
}

}  // namespace

TEST_CASE("a ratio breaker opens only once minimum_calls are in the window", "[breaker]") {
    CircuitBreaker b(ratio(4, 0.5), t0);
    fail(b, 0ms);
    fail(b, 1ms);
    fail(b, 2ms);
    CHECK(state(b, 2ms) == BreakerState::Closed);  // 3 calls < 4
    succeed(b, 3ms);                               // 4 calls, 3 failures: a success trips it
    CHECK(state(b, 3ms) == BreakerState::Open);
}

TEST_CASE("the ratio compares exactly: 3 failures of 30 calls meet 0.1", "[breaker]") {
    CircuitBreaker b(ratio(30, 0.1), t0);
    for (int i = 0; i < 27; ++i) {
        succeed(b, 0ms);
    }
    fail(b, 0ms);
    fail(b, 0ms);
    CHECK(state(b, 0ms) == BreakerState::Closed);
    fail(b, 0ms);
    CHECK(state(b, 0ms) == BreakerState::Open);
}

TEST_CASE("outcomes leave the window bucket by bucket, aligned to creation", "[breaker]") {
    // Window 1s: ten buckets of 100ms. Two failures in bucket 0 ([0, 100ms)).
    CircuitBreaker b(ratio(3, 1.0), t0);
    fail(b, 0ms);
    fail(b, 99ms);
    SECTION("at 999ms bucket 0 is still in the window") {
        fail(b, 999ms);
        CHECK(state(b, 999ms) == BreakerState::Open);
    }
    SECTION("at 1000ms bucket 0 has left it") {
        fail(b, 1000ms);
        CHECK(state(b, 1000ms) == BreakerState::Closed);
        CHECK(b.snapshot(at(1000ms)).calls_in_window == 1);
    }
    SECTION("a long idle gap empties the window") {
        fail(b, 5s);
        CHECK(state(b, 5s) == BreakerState::Closed);
        CHECK(b.snapshot(at(5s)).failures_in_window == 1);
    }
}

TEST_CASE("errors the failures matchers do not match are ignored", "[breaker]") {
    CircuitBreaker b(ratio(1, 1.0), t0);
    const BreakerPermit p = b.acquire(at(0ms));
    b.record_error(p, kNotCounted, at(0ms));
    CHECK(state(b, 0ms) == BreakerState::Closed);
    CHECK(b.snapshot(at(0ms)).calls_in_window == 0);
    CHECK_FALSE(b.counts_as_failure(kNotCounted));
    CHECK(b.counts_as_failure(kFailure));
}

TEST_CASE("a slow success counts as a failure, one at the limit does not", "[breaker]") {
    BreakerSettings s = ratio(1, 0.5);
    s.slow_call = 50ms;
    CircuitBreaker b(s, t0);
    BreakerPermit p = b.acquire(at(0ms));
    b.record_success(p, 50ms, at(0ms));
    CHECK(state(b, 0ms) == BreakerState::Closed);
    p = b.acquire(at(1ms));
    b.record_success(p, 51ms, at(1ms));
    CHECK(state(b, 1ms) == BreakerState::Open);
}

TEST_CASE("an open breaker refuses with the time left and half-opens at the exact instant",
          "[breaker]") {
    CircuitBreaker b(ratio(1, 1.0), t0);
    trip(b, 10ms);  // open until 110ms
    const BreakerPermit refused = b.acquire(at(109ms));
    CHECK_FALSE(refused.admitted);
    REQUIRE(refused.retry_after);
    CHECK(*refused.retry_after == 1ms);
    CHECK(b.snapshot(at(50ms)).until_half_open == 60ms);
    const BreakerPermit probe = b.acquire(at(110ms));
    CHECK(probe.admitted);
    CHECK(state(b, 110ms) == BreakerState::HalfOpen);
    CHECK(b.snapshot(at(110ms)).refused == 1);
}

TEST_CASE("half-open admits half_open_calls at once and refuses others without a hint",
          "[breaker]") {
    BreakerSettings s = ratio(1, 1.0);
    s.half_open_calls = 2;
    CircuitBreaker b(s, t0);
    trip(b, 0ms);
    const BreakerPermit first = b.acquire(at(100ms));
    const BreakerPermit second = b.acquire(at(100ms));
    const BreakerPermit third = b.acquire(at(100ms));
    CHECK(first.admitted);
    CHECK(second.admitted);
    CHECK_FALSE(third.admitted);
    CHECK_FALSE(third.retry_after);
    CHECK(b.snapshot(at(100ms)).half_open_permits_in_use == 2);

    SECTION("an ignored outcome frees its permit and changes nothing else") {
        b.release(first, at(101ms));
        CHECK(state(b, 101ms) == BreakerState::HalfOpen);
        CHECK(b.acquire(at(101ms)).admitted);
    }
    SECTION("mixed outcomes: one success then a failure opens it again, doubled") {
        b.record_success(first, 1ms, at(101ms));
        CHECK(state(b, 101ms) == BreakerState::HalfOpen);
        b.record_error(second, kFailure, at(102ms));
        CHECK(state(b, 102ms) == BreakerState::Open);
        CHECK(b.snapshot(at(102ms)).until_half_open == 200ms);
    }
    SECTION("half_open_calls successes close it, with an empty window") {
        b.record_success(first, 1ms, at(101ms));
        b.record_success(second, 1ms, at(102ms));
        CHECK(state(b, 102ms) == BreakerState::Closed);
        CHECK(b.snapshot(at(102ms)).calls_in_window == 0);
        CHECK(b.snapshot(at(102ms)).open_period == 100ms);
    }
}

TEST_CASE("probes of an earlier half-open state count against half_open_calls until given back",
          "[breaker]") {
    BreakerSettings s = ratio(1, 1.0);  // open_for 100ms, max 350ms
    s.half_open_calls = 3;
    CircuitBreaker b(s, t0);
    trip(b, 0ms);
    const BreakerPermit first = b.acquire(at(100ms));
    const BreakerPermit second = b.acquire(at(100ms));
    const BreakerPermit third = b.acquire(at(100ms));
    REQUIRE(first.admitted);
    REQUIRE(second.admitted);
    REQUIRE(third.admitted);
    b.record_error(first, kFailure, at(101ms));  // open again for 200ms
    REQUIRE(state(b, 101ms) == BreakerState::Open);
    CHECK(b.snapshot(at(101ms)).half_open_permits_in_use == 2);  // second and third still out

    // Half-open again: the two earlier probes in flight leave room for one new probe.
    const BreakerPermit fourth = b.acquire(at(301ms));
    CHECK(fourth.admitted);
    CHECK(state(b, 301ms) == BreakerState::HalfOpen);
    CHECK_FALSE(b.acquire(at(301ms)).admitted);
    CHECK(b.snapshot(at(301ms)).half_open_permits_in_use == 3);

    // An earlier probe's outcome is ignored but frees its place, and only its own.
    b.record_success(second, 1ms, at(302ms));
    CHECK(b.snapshot(at(302ms)).half_open_permits_in_use == 2);
    const BreakerPermit fifth = b.acquire(at(302ms));
    CHECK(fifth.admitted);
    CHECK_FALSE(b.acquire(at(302ms)).admitted);
    b.release(third, at(303ms));
    const BreakerPermit sixth = b.acquire(at(303ms));
    CHECK(sixth.admitted);
    CHECK_FALSE(b.acquire(at(303ms)).admitted);

    // The three successes of this state close it; the earlier one did not count.
    b.record_success(fourth, 1ms, at(304ms));
    b.record_success(fifth, 1ms, at(304ms));
    CHECK(state(b, 304ms) == BreakerState::HalfOpen);
    b.record_success(sixth, 1ms, at(305ms));
    CHECK(state(b, 305ms) == BreakerState::Closed);
    CHECK(b.snapshot(at(305ms)).half_open_permits_in_use == 0);
}

TEST_CASE("a probe still out when the breaker closes counts when it half-opens, until a reset",
          "[breaker]") {
    BreakerSettings s = ratio(1, 1.0);
    s.half_open_calls = 2;
    CircuitBreaker b(s, t0);
    trip(b, 0ms);
    const BreakerPermit first = b.acquire(at(100ms));
    b.record_success(first, 1ms, at(100ms));
    const BreakerPermit slow = b.acquire(at(100ms));
    const BreakerPermit second = b.acquire(at(100ms));
    REQUIRE(slow.admitted);
    REQUIRE(second.admitted);
    b.record_success(second, 1ms, at(101ms));  // two successes: closed, `slow` still out
    REQUIRE(state(b, 101ms) == BreakerState::Closed);
    CHECK(b.snapshot(at(101ms)).half_open_permits_in_use == 1);

    trip(b, 200ms);
    CHECK(b.acquire(at(300ms)).admitted);
    CHECK_FALSE(b.acquire(at(300ms)).admitted);  // `slow` and the new probe

    b.reset();
    CHECK(b.snapshot(at(301ms)).half_open_permits_in_use == 0);
    trip(b, 400ms);
    CHECK(b.acquire(at(500ms)).admitted);
    CHECK(b.acquire(at(500ms)).admitted);
    b.release(slow, at(501ms));  // from before the reset: frees none of the new probes
    CHECK_FALSE(b.acquire(at(501ms)).admitted);
    CHECK(b.snapshot(at(501ms)).half_open_permits_in_use == 2);
}

TEST_CASE("re-open periods double up to max_open_for", "[breaker]") {
    CircuitBreaker b(ratio(1, 1.0), t0);  // open_for 100ms, max 350ms
    trip(b, 0ms);
    rebound::Duration now = 0ms;
    for (const auto expected : {200ms, 350ms, 350ms}) {
        now += b.snapshot(at(now)).until_half_open.value();
        const BreakerPermit probe = b.acquire(at(now));
        REQUIRE(probe.admitted);
        b.record_error(probe, kFailure, at(now));
        CHECK(b.snapshot(at(now)).until_half_open == expected);
    }
}

TEST_CASE("an outcome of a permit from an earlier state is ignored", "[breaker]") {
    CircuitBreaker b(consecutive(1), t0);
    const BreakerPermit early = b.acquire(at(0ms));
    trip(b, 1ms);
    const BreakerPermit probe = b.acquire(at(101ms));
    REQUIRE(probe.admitted);
    b.record_error(early, kFailure, at(102ms));  // admitted while closed: ignored
    CHECK(state(b, 102ms) == BreakerState::HalfOpen);
    b.record_success(probe, 1ms, at(103ms));
    CHECK(state(b, 103ms) == BreakerState::Closed);
    b.record_error(probe, kFailure, at(104ms));  // a second outcome of a spent permit
    CHECK(state(b, 104ms) == BreakerState::Closed);
}

TEST_CASE("the consecutive rule counts a run that ignored outcomes do not break", "[breaker]") {
    CircuitBreaker b(consecutive(3), t0);
    fail(b, 0ms);
    fail(b, 1ms);
    const BreakerPermit p = b.acquire(at(2ms));
    b.record_error(p, kNotCounted, at(2ms));
    succeed(b, 3ms);  // resets the run
    fail(b, 4ms);
    fail(b, 5ms);
    CHECK(state(b, 5ms) == BreakerState::Closed);
    fail(b, 6ms);
    CHECK(state(b, 6ms) == BreakerState::Open);
}

TEST_CASE("isolate refuses everything without a hint until reset", "[breaker]") {
    CircuitBreaker b(ratio(1, 1.0), t0);
    b.isolate();
    const BreakerPermit p = b.acquire(at(1h));
    CHECK_FALSE(p.admitted);
    CHECK_FALSE(p.retry_after);
    CHECK(b.snapshot(at(1h)).isolated);
    b.reset();
    CHECK(b.acquire(at(1h)).admitted);
    CHECK(state(b, 1h) == BreakerState::Closed);
}

TEST_CASE("new settings take effect at the next change of state", "[breaker]") {
    CircuitBreaker b(consecutive(2), t0);
    b.update_settings(consecutive(5));
    fail(b, 0ms);
    fail(b, 1ms);
    CHECK(state(b, 1ms) == BreakerState::Open);     // still the old rule
    CHECK(b.settings().consecutive_failures == 5);  // the transition applied the new ones
}

TEST_CASE("invalid settings are refused with every problem", "[breaker]") {
    BreakerSettings s = ratio(0, 1.5, 50ms);
    s.half_open_calls = 0;
    s.max_open_for = 50ms;  // below open_for 100ms
    const auto problems = rebound::validate_breaker(s);
    CHECK(problems.size() == 5);
    CHECK_THROWS_WITH(CircuitBreaker(s, t0),
                      Catch::Contains("minimum_calls must be between 1 and 1000000, got 0"));
    BreakerSettings c = consecutive(1001);
    CHECK(rebound::validate_breaker(c).size() == 1);
}

TEST_CASE("transitions are counted by target state", "[breaker]") {
    CircuitBreaker b(consecutive(1), t0);
    trip(b, 0ms);
    succeed(b, 100ms);
    const auto snapshot = b.snapshot(at(100ms));
    CHECK(snapshot.transitions_to[static_cast<std::size_t>(BreakerState::Open)] == 1);
    CHECK(snapshot.transitions_to[static_cast<std::size_t>(BreakerState::HalfOpen)] == 1);
    CHECK(snapshot.transitions_to[static_cast<std::size_t>(BreakerState::Closed)] == 1);
}

// Calls are counted per thread (each thread in a stripe of its own); the ratio rule must still see
// the whole window. Threads run one after another here, so the outcome is exact.
TEST_CASE("the ratio rule counts the calls of every thread", "[breaker]") {
    CircuitBreaker b(ratio(20, 0.5), t0);
    const auto on_new_thread = [](auto work) { std::thread(work).join(); };
    SECTION("failures on one thread, successes on another") {
        on_new_thread([&] {
            for (int i = 0; i < 10; ++i) {
                succeed(b, 10ms);
            }
        });
        on_new_thread([&] {
            for (int i = 0; i < 9; ++i) {
                fail(b, 20ms);
            }
        });
        CHECK(state(b, 20ms) == BreakerState::Closed);  // 19 calls: below minimum_calls
        on_new_thread([&] { fail(b, 30ms); });
        CHECK(state(b, 30ms) == BreakerState::Open);  // 10 of 20
    }
    SECTION("a window settled by one thread's successes still trips on another's failures") {
        on_new_thread([&] {
            for (int i = 0; i < 20; ++i) {
                succeed(b, 10ms);
            }
        });
        on_new_thread([&] {
            for (int i = 0; i < 19; ++i) {
                fail(b, 20ms);
            }
            succeed(b, 20ms);  // 40 calls, 19 failures: a success in a settled bucket
        });
        CHECK(state(b, 20ms) == BreakerState::Closed);
        on_new_thread([&] { fail(b, 30ms); });  // 41 calls, 20 failures: below half
        CHECK(state(b, 30ms) == BreakerState::Closed);
        on_new_thread([&] { fail(b, 40ms); });  // 42 calls, 21 failures: half
        CHECK(state(b, 40ms) == BreakerState::Open);
    }
}
