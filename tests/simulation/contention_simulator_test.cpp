// Invariants of the optimistic-concurrency model, and the ordering of the published curves.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "rebound/random_source.hpp"
#include "rebound/simulation/contention_simulator.hpp"
#include "rebound/simulation/experiment.hpp"

using namespace std::chrono_literals;
using rebound::Duration;
using rebound::SeededRandomSource;
using rebound::simulation::builtin_strategy;
using rebound::simulation::ExperimentRow;
using rebound::simulation::ExperimentSettings;
using rebound::simulation::NetworkModel;
using rebound::simulation::run_experiment;
using rebound::simulation::RunOutcome;
using rebound::simulation::simulate_contention;

namespace {

// Means of `runs` runs of one built-in strategy at each client count.
std::vector<ExperimentRow> means(const std::string& strategy, std::vector<int> clients, int runs) {
    ExperimentSettings settings;
    settings.client_counts = std::move(clients);
    settings.runs = runs;
    settings.seed = 2015;
    return run_experiment({*builtin_strategy(strategy)}, settings);
}

}  // namespace

TEST_CASE("every client writes successfully exactly once") {
    const auto name =
        GENERATE(as<std::string>{}, "exponential", "full", "equal", "decorrelated", "none");
    const int clients = GENERATE(1, 2, 10, 60);
    SeededRandomSource random(42);
    const RunOutcome outcome =
        simulate_contention(*builtin_strategy(name), clients, NetworkModel{}, random);
    INFO(name << " with " << clients << " clients");
    REQUIRE(outcome.clients.size() == static_cast<std::size_t>(clients));
    CHECK(outcome.final_version == clients);
    CHECK(outcome.write_calls >= clients);
    std::int64_t calls = 0;
    Duration last_finish{0};
    for (const auto& client : outcome.clients) {
        CHECK(client.successful_writes == 1);
        CHECK(client.write_calls >= 1);
        CHECK(client.write_calls <= clients);
        calls += client.write_calls;
        last_finish = std::max(last_finish, client.finish_time);
    }
    CHECK(calls == outcome.write_calls);
    CHECK(outcome.completion_time == last_finish);
}

TEST_CASE("one client needs one write and four network messages") {
    SeededRandomSource random(7);
    NetworkModel exact;
    exact.deviation = Duration{0};
    const RunOutcome outcome = simulate_contention(*builtin_strategy("full"), 1, exact, random);
    CHECK(outcome.write_calls == 1);
    CHECK(outcome.completion_time == 40ms);
}

TEST_CASE("with no backoff the completion time grows linearly with the clients") {
    // Without backoff the server accepts about one write per write round trip (two network
    // messages), whoever wins it: time ~ a + clients * ~20 ms, a straight line.
    const auto rows = means("none", {25, 50, 100, 150}, 10);
    REQUIRE(rows.size() == 4);
    const double overall = (rows[3].mean_time_ms - rows[0].mean_time_ms) / 125.0;
    CHECK(overall > 10.0);
    CHECK(overall < 25.0);
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const double slope = (rows[i].mean_time_ms - rows[i - 1].mean_time_ms) /
                             (rows[i].clients - rows[i - 1].clients);
        INFO("slope from " << rows[i - 1].clients << " to " << rows[i].clients << " clients");
        CHECK(slope == Approx(overall).epsilon(0.2));
    }
    // ... while the calls grow with the square: every client retries after every success.
    CHECK(rows[2].mean_calls / rows[1].mean_calls > 3.0);
}

TEST_CASE("at 100 clients full jitter makes less than half the calls of plain exponential") {
    const auto exponential = means("exponential", {100}, 10);
    const auto full = means("full", {100}, 10);
    const auto none = means("none", {100}, 10);
    CHECK(full[0].mean_calls < 0.5 * exponential[0].mean_calls);
    // As in the published figures: no jitter loses on time too, and backoff of any kind saves
    // calls over none.
    CHECK(full[0].mean_time_ms < exponential[0].mean_time_ms);
    CHECK(exponential[0].mean_calls < none[0].mean_calls);
}

TEST_CASE("the jittered strategies keep the published ordering of work") {
    const auto full = means("full", {100}, 10);
    const auto equal = means("equal", {100}, 10);
    const auto decorrelated = means("decorrelated", {100}, 10);
    const auto exponential = means("exponential", {100}, 10);
    CHECK(full[0].mean_calls < equal[0].mean_calls);
    CHECK(equal[0].mean_calls < exponential[0].mean_calls);
    CHECK(decorrelated[0].mean_calls < exponential[0].mean_calls);
}

TEST_CASE("a run is a pure function of its random source") {
    const auto strategy = *builtin_strategy("decorrelated");
    SeededRandomSource first(99);
    SeededRandomSource second(99);
    SeededRandomSource other(100);
    const RunOutcome a = simulate_contention(strategy, 50, NetworkModel{}, first);
    const RunOutcome b = simulate_contention(strategy, 50, NetworkModel{}, second);
    const RunOutcome c = simulate_contention(strategy, 50, NetworkModel{}, other);
    CHECK(a.write_calls == b.write_calls);
    CHECK(a.completion_time == b.completion_time);
    CHECK((a.write_calls != c.write_calls || a.completion_time != c.completion_time));
}

TEST_CASE("invalid runs are refused") {
    SeededRandomSource random(1);
    CHECK_THROWS_AS(simulate_contention(*builtin_strategy("full"), 0, NetworkModel{}, random),
                    std::invalid_argument);
    NetworkModel negative;
    negative.deviation = Duration{-1};
    CHECK_THROWS_AS(simulate_contention(*builtin_strategy("full"), 5, negative, random),
                    std::invalid_argument);
}
