// Hedging policies built in code for the tests of the hedged run (engine and rebound::asio).
#pragma once

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include "rebound/policy.hpp"
#include "rebound/policy_set.hpp"

namespace rebound::test {

// A policy `catalog-read` that retries transient errors and hedges after `delay`.
inline PolicySpec hedging_spec(Duration delay, int max_attempts) {
    PolicySpec spec;
    spec.name = "catalog-read";
    spec.max_attempts = max_attempts;
    spec.retry_on = {Matcher::transient()};
    HedgeSettings hedge;
    hedge.fixed_delay = delay;
    spec.hedge = hedge;
    return spec;
}

inline std::shared_ptr<const Policy> compile_hedging(const PolicySpec& spec,
                                                     const PolicyCompileOptions& options = {}) {
    PolicyResult result = Policy::create(spec, options);
    REQUIRE(result);
    REQUIRE(result.policy->spec().hedge == spec.hedge);
    return std::move(result.policy);
}

// A resolution made in code for a handler declared idempotent (or not).
inline HandlerResolution resolution_of(std::shared_ptr<const Policy> policy,
                                       bool idempotent = true) {
    HandlerResolution resolution;
    resolution.policy = std::move(policy);
    resolution.via = ResolvedVia::Code;
    resolution.idempotent = idempotent;
    return resolution;
}

// The breaker `name`, opening at its first failure for 30s, as a file's `breakers:` declare it.
inline BreakerDirectory tripping_breaker(const std::string& name) {
    BreakerSettings settings;
    settings.name = name;
    settings.trip = BreakerTrip::Consecutive;
    settings.consecutive_failures = 1;
    settings.open_for = std::chrono::seconds(30);
    return {{name, std::make_shared<CircuitBreaker>(settings, Clock::TimePoint{})}};
}

}  // namespace rebound::test
