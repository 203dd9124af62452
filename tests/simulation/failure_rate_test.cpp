// The failure-rate experiment (docs/simulate.md, "Failure rate"): the figures of "Fixing retries
// with token buckets and circuit breakers" (M. Brooker, 2022) through the engine's decision,
// retry budget and circuit breaker.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "rebound/simulation/failure_rate.hpp"

using namespace rebound::simulation;

namespace {

constexpr int kRetries = 3;
const rebound::BudgetSettings kBudget{100, 0.1};

const FailureRateRow& row_of(const std::vector<FailureRateRow>& rows, const std::string& strategy,
                             double failure_rate) {
    for (const FailureRateRow& row : rows) {
        if (row.strategy == strategy && row.failure_rate == failure_rate) {
            return row;
        }
    }
    FAIL("no row for " << strategy << " at " << failure_rate);
    return rows.front();
}

std::vector<ClientStrategy> chosen(const std::vector<std::string>& names) {
    std::vector<ClientStrategy> strategies;
    for (ClientStrategy& strategy : failure_rate_builtins(kRetries, kBudget)) {
        for (const std::string& name : names) {
            if (strategy.name == name) {
                strategies.push_back(strategy);
            }
        }
    }
    return strategies;
}

}  // namespace

TEST_CASE(
    "failure-rate: no retries and N retries agree with the closed forms at 100,000 "
    "requests per point",
    "[simulation][failure_rate]") {
    // Work within 1% of (1 - x^(N+1)) / (1 - x); success within 1% of the requests (one
    // percentage point) of 1 - x^(N+1). N = 0 for `none`.
    FailureRateSettings settings;
    settings.failure_rates = {0.0, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1.0};
    settings.requests = 100'000;
    const auto rows = run_failure_rate(chosen({"none", "retries"}), settings);
    REQUIRE(rows.size() == 2 * settings.failure_rates.size());
    for (const FailureRateRow& row : rows) {
        const int retries = row.strategy == "none" ? 0 : kRetries;
        INFO(row.strategy << " at failure rate " << row.failure_rate << ": success "
                          << row.success_rate << ", work " << row.work);
        CHECK(std::abs(row.work - closed_form_work(row.failure_rate, retries)) <=
              0.01 * closed_form_work(row.failure_rate, retries));
        CHECK(std::abs(row.success_rate - closed_form_success(row.failure_rate, retries)) <= 0.01);
    }
    CHECK(closed_form_work(0.5, 3) == Approx(1.875));
    CHECK(closed_form_work(1.0, 3) == 4.0);
    CHECK(closed_form_success(0.5, 3) == Approx(0.9375));
}

TEST_CASE(
    "failure-rate: at 100% failure retries multiply the load, the budget and the breaker "
    "do not",
    "[simulation][failure_rate]") {
    FailureRateSettings settings;
    settings.failure_rates = {1.0};
    settings.requests = 100'000;
    const auto rows = run_failure_rate(chosen({"retries", "budget", "breaker"}), settings);
    CHECK(row_of(rows, "retries", 1.0).work == Approx(1.0 + kRetries));
    CHECK(row_of(rows, "budget", 1.0).work <= 1.05);
    CHECK(row_of(rows, "budget", 1.0).work >= 1.0);
    CHECK(row_of(rows, "breaker", 1.0).work <= 1.1);  // once open it refuses before the call
    for (const FailureRateRow& row : rows) {
        CHECK(row.success_rate == 0.0);
    }
}

TEST_CASE("failure-rate: at 1% failure the budget behaves like N retries",
          "[simulation][failure_rate]") {
    FailureRateSettings settings;
    settings.failure_rates = {0.01};
    settings.requests = 100'000;
    const auto rows = run_failure_rate(chosen({"retries", "budget"}), settings);
    const FailureRateRow& retries = row_of(rows, "retries", 0.01);
    const FailureRateRow& budget = row_of(rows, "budget", 0.01);
    CHECK(std::abs(budget.success_rate - retries.success_rate) <= 0.01 * retries.success_rate);
    CHECK(std::abs(budget.work - retries.work) <= 0.01 * retries.work);
}

TEST_CASE("failure-rate: a budget is per client, so many clients allow more retries in total",
          "[simulation][failure_rate]") {
    // Each client's full budget allows 49 retries before it throttles (max_tokens 100: a retry
    // needs more than 50 tokens left after taking its own). 1,000 clients sharing 100,000
    // requests at 100% failure: 100 requests each, 1 + 49/100 calls per request.
    FailureRateSettings settings;
    settings.failure_rates = {1.0};
    settings.requests = 100'000;
    settings.clients = 1000;
    const auto rows = run_failure_rate(chosen({"budget"}), settings);
    CHECK(rows.at(0).clients == 1000);
    CHECK(rows.at(0).work == Approx(1.49));
}

TEST_CASE("failure-rate: reports as CSV and SVG", "[simulation][failure_rate]") {
    const std::vector<FailureRateRow> rows{{"retries", 0.5, 1, 0.9375, 1.875},
                                           {"a,b", 0.5, 1, 0.5, 1.0}};
    CHECK(format_failure_rate_csv(rows) ==
          "strategy,failure_rate,success_rate,work\n"
          "retries,0.5000,0.9375,1.8750\n"
          "\"a,b\",0.5000,0.5000,1.0000\n");
    const std::string svg = format_failure_rate_svg(rows);
    CHECK(svg.find("Success rate") != std::string::npos);
    CHECK(svg.find("Work") != std::string::npos);
    CHECK(svg.find("failure rate, %") != std::string::npos);
    CHECK(format_failure_rate_table(rows).find("93.75%") != std::string::npos);
}
