#include <catch2/catch.hpp>

#include "rebound/policy.hpp"
#include "rebound/retry_schedule.hpp"

using namespace std::chrono_literals;
using rebound::Backoff;
using rebound::Jitter;
using rebound::PolicyBuilder;

// The schedules below are those of the spec's conformance vectors, built in code.

TEST_CASE("schedule of conformance 03: exponential with bounded jitter", "[schedule]") {
    const auto policy = PolicyBuilder("exponential")
                            .max_retries(7)
                            .backoff(Backoff::exponential(2s, 2.0, 60s))
                            .jitter(Jitter::bounded(1s))
                            .build();
    const auto rows = rebound::retry_schedule(policy->spec());
    REQUIRE(rows.size() == 7);
    CHECK(rows[0].base == 2s);
    CHECK(rows[0].min == 1s);
    CHECK(rows[0].max == 3s);
    CHECK(rows[4].base == 32s);
    CHECK(rows[4].cumulative_min == 57s);
    CHECK(rows[4].cumulative_max == 67s);
    CHECK(rows[5].base == 60s);
    CHECK(rows[5].min == 59s);
    CHECK(rows[5].max == 60s);
    CHECK(rows[6].cumulative_min == 175s);
    CHECK(rows[6].cumulative_max == 187s);
    for (const auto& row : rows) {
        CHECK(row.within_deadline);
    }
}

TEST_CASE("schedule of conformance 05: retries past the deadline are flagged", "[schedule]") {
    const auto policy = PolicyBuilder("bounded_by_deadline")
                            .max_attempts(6)
                            .backoff(Backoff::fixed(1s))
                            .jitter(Jitter::none())
                            .deadline(3500ms)
                            .min_attempt_budget(500ms)
                            .build();
    const auto rows = rebound::retry_schedule(policy->spec());
    REQUIRE(rows.size() == 5);
    CHECK(rows[2].cumulative_min == 3s);
    CHECK(rows[2].within_deadline);  // 3s + 500ms == 3.5s: exactly reaching it is allowed
    CHECK_FALSE(rows[3].within_deadline);
    CHECK_FALSE(rows[4].within_deadline);
}

TEST_CASE("schedule of the outbox tier: full jitter, multiplier 3", "[schedule]") {
    const auto policy = PolicyBuilder("outbox_publish")
                            .max_attempts(6)
                            .backoff(Backoff::exponential(1s, 3.0, 1min))
                            .build();
    const auto rows = rebound::retry_schedule(policy->spec());
    REQUIRE(rows.size() == 5);
    CHECK(rows[3].base == 27s);
    CHECK(rows[3].min == 0s);
    CHECK(rows[4].base == 60s);
    CHECK(rows[4].cumulative_max == 100s);
    CHECK(rebound::retry_schedule(PolicyBuilder("one").max_attempts(1).build()->spec()).empty());
}
