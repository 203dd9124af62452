// ClientStrategy: how the simulated clients of the failure-rate and brownout experiments retry,
// as an engine Policy that each client compiles for itself.
//
// Budgets and breakers are per process (docs/scaling.md): a client of the simulation is one
// process, so it gets a fresh copy of the strategy's policy, with its own full budget and its own
// closed breaker. The experiments drive the copies through rebound::decide, so they exercise the
// code a real caller runs.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "rebound/circuit_breaker.hpp"
#include "rebound/policy.hpp"

namespace rebound::simulation {

// Makes a fresh copy of one policy (the state of one client).
using PolicyFactory = std::function<std::shared_ptr<const Policy>()>;

struct ClientStrategy {
    std::string name;
    PolicyFactory make_policy;
};

// Compiles `spec` against `breakers` (may be null). Throws std::invalid_argument with the first
// problem when it does not compile.
std::shared_ptr<const Policy> compile_policy(PolicySpec spec, const BreakerDirectory* breakers);

// Fresh copies of `policy`: its spec compiled again, with a new full budget when it has one and
// a new closed breaker (created at time zero) with the same settings when it has one.
PolicyFactory copies_of(std::shared_ptr<const Policy> policy);

}  // namespace rebound::simulation
