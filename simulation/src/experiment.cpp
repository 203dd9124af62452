#include "rebound/simulation/experiment.hpp"

#include <stdexcept>

#include "rebound/random_source.hpp"

namespace rebound::simulation {
namespace {

constexpr int kPublishedClientStep = 10;
constexpr int kPublishedClientMax = 190;

std::uint64_t split_mix64(std::uint64_t value) noexcept {
    value += 0x9e3779b97f4a7c15ULL;
    value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
    value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
    return value ^ (value >> 31);
}

void check_settings(const std::vector<Strategy>& strategies, const ExperimentSettings& settings) {
    if (strategies.empty()) {
        throw std::invalid_argument("no strategy to simulate");
    }
    if (settings.client_counts.empty()) {
        throw std::invalid_argument("no client count to simulate");
    }
    if (settings.runs < 1) {
        throw std::invalid_argument("the number of runs must be at least 1");
    }
    for (const int clients : settings.client_counts) {
        if (clients < 1) {
            throw std::invalid_argument("every client count must be at least 1");
        }
    }
}

ExperimentRow simulate_point(const Strategy& strategy, int clients,
                             const ExperimentSettings& settings) {
    double total_calls = 0.0;
    double total_time_ms = 0.0;
    for (int run = 0; run < settings.runs; ++run) {
        SeededRandomSource random(run_seed(settings.seed, clients, run));
        const RunOutcome outcome = simulate_contention(strategy, clients, settings.network, random);
        total_calls += static_cast<double>(outcome.write_calls);
        total_time_ms += to_milliseconds(outcome.completion_time);
    }
    const double runs = static_cast<double>(settings.runs);
    return ExperimentRow{strategy.name(), clients, settings.runs, total_calls / runs,
                         total_time_ms / runs};
}

}  // namespace

std::vector<int> published_client_counts() {
    std::vector<int> counts;
    for (int clients = kPublishedClientStep; clients <= kPublishedClientMax;
         clients += kPublishedClientStep) {
        counts.push_back(clients);
    }
    return counts;
}

std::uint64_t run_seed(std::uint64_t seed, int clients, int run) noexcept {
    std::uint64_t value = split_mix64(seed);
    value = split_mix64(value ^ static_cast<std::uint64_t>(clients));
    return split_mix64(value ^ static_cast<std::uint64_t>(run));
}

std::vector<ExperimentRow> run_experiment(const std::vector<Strategy>& strategies,
                                          const ExperimentSettings& settings) {
    check_settings(strategies, settings);
    std::vector<ExperimentRow> rows;
    rows.reserve(strategies.size() * settings.client_counts.size());
    for (const Strategy& strategy : strategies) {
        for (const int clients : settings.client_counts) {
            rows.push_back(simulate_point(strategy, clients, settings));
        }
    }
    return rows;
}

}  // namespace rebound::simulation
