// Experiment: the contention simulation repeated over strategies, client counts and runs, reduced
// to the means the published figures plot (write calls and completion time against clients).
//
// Run `r` (0-based) with `n` clients draws from a SeededRandomSource seeded with
// run_seed(seed, n, r), whatever the strategy: every strategy meets the same random streams, and
// a row does not depend on which other strategies or client counts are simulated with it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rebound/simulation/contention_simulator.hpp"
#include "rebound/simulation/strategy.hpp"

namespace rebound::simulation {

// 10, 20, ..., 190: the client counts of the published figures.
std::vector<int> published_client_counts();

struct ExperimentSettings {
    std::vector<int> client_counts = published_client_counts();
    int runs = 100;
    std::uint64_t seed = 1;
    NetworkModel network;
};

// The means over `runs` runs of one strategy with one client count.
struct ExperimentRow {
    std::string strategy;
    int clients = 0;
    int runs = 0;
    double mean_calls = 0.0;    // write calls
    double mean_time_ms = 0.0;  // completion time in milliseconds
};

// The seed of run `run` with `clients` clients (SplitMix64 over the three values).
std::uint64_t run_seed(std::uint64_t seed, int clients, int run) noexcept;

// One row per strategy and client count: strategies in the given order, then client counts in
// the given order. Throws std::invalid_argument when runs < 1, a client count is below 1, or
// `strategies` or `client_counts` is empty.
std::vector<ExperimentRow> run_experiment(const std::vector<Strategy>& strategies,
                                          const ExperimentSettings& settings);

}  // namespace rebound::simulation
