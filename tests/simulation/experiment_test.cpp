// Repeated runs: determinism with a seed, the rows' order, the settings' checks.
#include <catch2/catch.hpp>
#include <set>

#include "rebound/simulation/experiment.hpp"

using rebound::simulation::builtin_strategies;
using rebound::simulation::builtin_strategy;
using rebound::simulation::ExperimentRow;
using rebound::simulation::ExperimentSettings;
using rebound::simulation::published_client_counts;
using rebound::simulation::run_experiment;
using rebound::simulation::run_seed;

namespace {

ExperimentSettings small_settings(std::uint64_t seed) {
    ExperimentSettings settings;
    settings.client_counts = {5, 15, 30};
    settings.runs = 4;
    settings.seed = seed;
    return settings;
}

bool same_rows(const std::vector<ExperimentRow>& a, const std::vector<ExperimentRow>& b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].strategy != b[i].strategy || a[i].clients != b[i].clients ||
            a[i].runs != b[i].runs || a[i].mean_calls != b[i].mean_calls ||
            a[i].mean_time_ms != b[i].mean_time_ms) {
            return false;
        }
    }
    return true;
}

}  // namespace

TEST_CASE("the published grid is 10, 20, ..., 190 clients") {
    const auto counts = published_client_counts();
    REQUIRE(counts.size() == 19);
    CHECK(counts.front() == 10);
    CHECK(counts.back() == 190);
    CHECK(ExperimentSettings{}.runs == 100);
}

TEST_CASE("an experiment is deterministic with a seed") {
    const auto strategies = builtin_strategies();
    const auto first = run_experiment(strategies, small_settings(11));
    const auto again = run_experiment(strategies, small_settings(11));
    const auto other = run_experiment(strategies, small_settings(12));
    CHECK(same_rows(first, again));
    CHECK_FALSE(same_rows(first, other));
}

TEST_CASE("rows come strategy by strategy, then by client count, and do not depend on each other") {
    const auto strategies = builtin_strategies();
    const auto all = run_experiment(strategies, small_settings(3));
    REQUIRE(all.size() == strategies.size() * 3);
    CHECK(all[0].strategy == "exponential");
    CHECK(all[0].clients == 5);
    CHECK(all[2].clients == 30);
    CHECK(all[3].strategy == "full");
    CHECK(all.back().strategy == "none");

    ExperimentSettings one_point = small_settings(3);
    one_point.client_counts = {15};
    const auto alone = run_experiment({*builtin_strategy("equal")}, one_point);
    REQUIRE(alone.size() == 1);
    CHECK(same_rows(alone, {all[2 * 3 + 1]}));
}

TEST_CASE("run seeds differ between runs and client counts") {
    std::set<std::uint64_t> seeds;
    for (int clients = 1; clients <= 50; ++clients) {
        for (int run = 0; run < 50; ++run) {
            seeds.insert(run_seed(1, clients, run));
        }
    }
    CHECK(seeds.size() == 2500);
    CHECK(run_seed(1, 10, 0) != run_seed(2, 10, 0));
}

TEST_CASE("an experiment refuses empty or invalid settings") {
    const auto strategies = builtin_strategies();
    ExperimentSettings settings = small_settings(1);
    settings.runs = 0;
    CHECK_THROWS_AS(run_experiment(strategies, settings), std::invalid_argument);
    settings = small_settings(1);
    settings.client_counts = {10, 0};
    CHECK_THROWS_AS(run_experiment(strategies, settings), std::invalid_argument);
    settings.client_counts.clear();
    CHECK_THROWS_AS(run_experiment(strategies, settings), std::invalid_argument);
    CHECK_THROWS_AS(run_experiment({}, small_settings(1)), std::invalid_argument);
}
