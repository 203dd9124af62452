// The hedging experiment (docs/simulate.md, "Hedging"): its closed form with one hedge at a fixed
// delay, the learned delay's warmup, the hedge tokens, determinism and the strategy names.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "rebound/simulation/hedging.hpp"

using namespace std::chrono_literals;
using rebound::simulation::attempt_survival;
using rebound::simulation::HedgingSettings;
using rebound::simulation::HedgingStrategy;
using rebound::simulation::parse_hedging_strategy;
using rebound::simulation::simulate_hedging;

namespace {

HedgingStrategy strategy(const std::string& name) {
    std::string error;
    const auto parsed = parse_hedging_strategy(name, error);
    REQUIRE(parsed.has_value());
    return *parsed;
}

// Whether the observed share of `n` trials is within 5 standard deviations of `p` (and of a
// floor of 1 / n, for shares near 0).
bool within_sampling_error(double observed, double p, int n) {
    const double sigma = std::sqrt(p * (1.0 - p) / static_cast<double>(n));
    return std::abs(observed - p) <= 5.0 * sigma + 1.0 / static_cast<double>(n);
}

double share_above(const std::vector<double>& latencies, double t) {
    const auto above = std::count_if(latencies.begin(), latencies.end(),
                                     [t](double latency) { return latency > t; });
    return static_cast<double>(above) / static_cast<double>(latencies.size());
}

}  // namespace

TEST_CASE("one hedge at a fixed delay agrees with the closed form", "[hedging]") {
    HedgingSettings settings;
    settings.requests = 400000;
    settings.seed = 11;
    const double d = GENERATE(2.0, 5.0, 20.0);
    const auto outcome =
        simulate_hedging(strategy("hedge:" + std::to_string(static_cast<int>(d)) + "ms"), settings);
    REQUIRE(outcome.latencies_ms.size() == 400000);
    const double extra_load = static_cast<double>(outcome.hedges) / settings.requests;
    INFO("d = " << d << "ms, extra load " << extra_load << ", S(d) "
                << attempt_survival(settings, d));
    CHECK(within_sampling_error(extra_load, attempt_survival(settings, d), settings.requests));
    for (const double t : {0.5, 1.5, 3.0, 4.9, 5.1, 8.0, 12.0, 19.0, 21.0, 30.0, 60.0, 99.0, 101.0,
                           103.0, 110.0, 150.0}) {
        const double closed_form =
            t < d ? attempt_survival(settings, t)
                  : attempt_survival(settings, t) * attempt_survival(settings, t - d);
        INFO("t = " << t << "ms: P(T > t) " << share_above(outcome.latencies_ms, t)
                    << ", closed form " << closed_form);
        CHECK(within_sampling_error(share_above(outcome.latencies_ms, t), closed_form,
                                    settings.requests));
    }
}

TEST_CASE("without hedges the latency is one attempt's", "[hedging]") {
    HedgingSettings settings;
    settings.requests = 200000;
    const auto outcome = simulate_hedging(strategy("none"), settings);
    CHECK(outcome.hedges == 0);
    for (const double t : {0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 99.0, 100.0}) {
        CHECK(within_sampling_error(share_above(outcome.latencies_ms, t),
                                    attempt_survival(settings, t), settings.requests));
    }
}

TEST_CASE("hedges only shorten a request: every strategy sees the same attempts", "[hedging]") {
    HedgingSettings settings;
    settings.requests = 20000;
    settings.attempts = 3;
    const auto none = simulate_hedging(strategy("none"), settings);
    for (const std::string name : {"hedge:3ms", "hedge:p90"}) {
        const auto hedged = simulate_hedging(strategy(name), settings);
        REQUIRE(hedged.latencies_ms.size() == none.latencies_ms.size());
        bool never_longer = true;
        for (std::size_t i = 0; i < none.latencies_ms.size(); ++i) {
            never_longer = never_longer && hedged.latencies_ms[i] <= none.latencies_ms[i];
        }
        CHECK(never_longer);
        CHECK(rebound::simulation::latency_quantile(hedged.latencies_ms, 0.999) <
              rebound::simulation::latency_quantile(none.latencies_ms, 0.999));
        CHECK(hedged.hedges > 0);
    }
}

TEST_CASE("a learned delay starts no hedge before 100 latencies", "[hedging]") {
    HedgingSettings settings;
    settings.requests = 100;
    settings.slow_fraction = 0.5;  // many slow first attempts: a hedge would be due for many
    CHECK(simulate_hedging(strategy("hedge:p50"), settings).hedges == 0);
    settings.requests = 2000;
    const auto warmed = simulate_hedging(strategy("hedge:p50"), settings);
    CHECK(warmed.hedges > 0);
    // A fixed delay hedges from the first request.
    settings.requests = 100;
    CHECK(simulate_hedging(strategy("hedge:2ms"), settings).hedges > 0);
}

TEST_CASE("hedge tokens bound the hedges by burst + max_extra_load per request", "[hedging]") {
    HedgingSettings settings;
    settings.requests = 50000;
    settings.attempts = 4;
    settings.max_extra_load = 0.05;
    const auto limited = simulate_hedging(strategy("hedge:1ms"), settings);
    CHECK(static_cast<double>(limited.hedges) <= 10.0 + 0.05 * settings.requests);
    CHECK(static_cast<double>(limited.hedges) >= 0.9 * 0.05 * settings.requests);
    settings.max_extra_load.reset();
    CHECK(simulate_hedging(strategy("hedge:1ms"), settings).hedges > 50000U);
}

TEST_CASE("the hedging experiment is deterministic with a seed", "[hedging]") {
    HedgingSettings settings;
    settings.requests = 5000;
    settings.seed = 3;
    const auto a = simulate_hedging(strategy("hedge:p95"), settings);
    const auto b = simulate_hedging(strategy("hedge:p95"), settings);
    CHECK(a.latencies_ms == b.latencies_ms);
    CHECK(a.hedges == b.hedges);
    settings.seed = 4;
    CHECK(simulate_hedging(strategy("hedge:p95"), settings).latencies_ms != a.latencies_ms);
}

TEST_CASE("hedging strategy names", "[hedging]") {
    CHECK(strategy("none").name == "none");
    CHECK(strategy("hedge:20ms").delay == 20ms);
    CHECK(strategy("hedge:1.5s").delay == 1500ms);
    CHECK(strategy("hedge:p95").quantile == Approx(0.95));
    CHECK(strategy("hedge:p99.9").quantile == Approx(0.999));
    for (const std::string bad :
         {"", "nonee", "hedge", "hedge:", "hedge:0ms", "hedge:2h", "hedge:20", "hedge:-5ms",
          "hedge:p", "hedge:p0", "hedge:p100", "hedge:p.5", "hedge:p95.", "hedge:p9x", "hedge:p1e1",
          "hedge:p50.5.1", "HEDGE:10ms"}) {
        std::string error;
        INFO("'" << bad << "'");
        CHECK_FALSE(parse_hedging_strategy(bad, error).has_value());
        CHECK_FALSE(error.empty());
    }
}

TEST_CASE("the hedging CSV has the documented header", "[hedging]") {
    HedgingSettings settings;
    settings.requests = 1000;
    const auto rows =
        rebound::simulation::run_hedging({strategy("none"), strategy("hedge:4ms")}, settings);
    const std::string csv = rebound::simulation::format_hedging_csv(rows);
    CHECK(csv.substr(0, csv.find('\n')) == "strategy,p50_ms,p90_ms,p99_ms,p999_ms,extra_load");
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].extra_load == 0.0);
    CHECK(rows[1].p999_ms <= rows[0].p999_ms);
    CHECK(rows[0].p50_ms <= rows[0].p90_ms);
    CHECK(rows[0].p90_ms <= rows[0].p99_ms);
    CHECK(rows[0].p99_ms <= rows[0].p999_ms);
}
