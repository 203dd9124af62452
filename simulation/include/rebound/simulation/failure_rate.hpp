// The failure-rate experiment of "Fixing retries with token buckets and circuit breakers"
// (M. Brooker, 2022), run through the engine's own decision, retry budget and circuit breaker.
//
// Each call to the downstream fails independently with probability x. A request makes attempts
// as its client's policy decides (rebound::decide, the policy's budget and breaker), until one
// succeeds or the policy stops. For each failure rate and strategy the experiment reports the
// share of requests that succeeded and the work: calls that reached the downstream per request.
//
// Model (docs/simulate.md, "Failure rate"):
//   - requests arrive every `interval` of virtual time, spread round-robin over `clients`
//     independent clients; each client compiles its own copy of the strategy's policy, so it
//     has its own budget and breaker (as every process of a fleet has);
//   - an attempt takes no time and a request's retry delays do not move the clock (the clock is
//     the breaker's); they count towards the request's elapsed time for the deadline;
//   - an attempt the breaker refuses does not reach the downstream and ends the request as a
//     failure (waiting out the open period inside one request would only delay that answer).
//
// Without a budget or breaker the results have closed forms, with N retries:
// work = (1 - x^(N+1)) / (1 - x) and success = 1 - x^(N+1) (`closed_form_*` below).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rebound/circuit_breaker.hpp"
#include "rebound/duration.hpp"
#include "rebound/policy.hpp"
#include "rebound/retry_budget.hpp"
#include "rebound/simulation/client_strategy.hpp"

namespace rebound::simulation {

// The built-in strategies, in this order:
//   none     1 attempt;
//   retries  1 + `retries` attempts, retried at once;
//   budget   the same under a retry budget with `budget`;
//   breaker  the same under a circuit breaker with `breaker` settings.
// All retry the downstream's failure (category service_unavailable).
std::vector<ClientStrategy> failure_rate_builtins(int retries, const BudgetSettings& budget,
                                                  const BreakerSettings& breaker = {});

struct FailureRateSettings {
    std::vector<double> failure_rates{0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
    int requests = 100'000;  // per point
    int clients = 1;
    Duration interval = std::chrono::milliseconds(1);  // between requests
    std::uint64_t seed = 1;
};

struct FailureRateRow {
    std::string strategy;
    double failure_rate = 0.0;
    int clients = 1;
    double success_rate = 0.0;  // requests that succeeded / requests
    double work = 0.0;          // calls that reached the downstream / requests
};

// One row per failure rate and strategy (rates outer, strategies in the order given). Every
// point starts from fresh clients and the seed, so a row does not depend on the others.
// Preconditions: rates in [0, 1], requests >= 1, clients >= 1.
std::vector<FailureRateRow> run_failure_rate(const std::vector<ClientStrategy>& strategies,
                                             const FailureRateSettings& settings);

// The closed forms for N retries and nothing throttling them, at failure rate x.
double closed_form_work(double x, int retries) noexcept;
double closed_form_success(double x, int retries) noexcept;

// Text table (one line per failure rate, success and work per strategy); CSV with the header
// `strategy,failure_rate,success_rate,work` (fractions, four decimals); SVG with two panels,
// success rate and work against failure rate.
std::string format_failure_rate_table(const std::vector<FailureRateRow>& rows);
std::string format_failure_rate_csv(const std::vector<FailureRateRow>& rows);
std::string format_failure_rate_svg(const std::vector<FailureRateRow>& rows);

}  // namespace rebound::simulation
