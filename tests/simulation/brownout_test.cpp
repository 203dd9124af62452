// The brownout experiment (docs/simulate.md, "Brownout"): retries without a budget keep the
// server overloaded after its capacity returns; the budget recovers about as fast as no retries.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "rebound/simulation/brownout.hpp"

using namespace rebound::simulation;

namespace {

const BrownoutResult& result_of(const std::vector<BrownoutResult>& results,
                                const std::string& strategy) {
    for (const BrownoutResult& result : results) {
        if (result.strategy == strategy) {
            return result;
        }
    }
    FAIL("no result for " << strategy);
    return results.front();
}

}  // namespace

TEST_CASE(
    "brownout: without a budget the retry storm is metastable, with it recovery takes at "
    "most 1.5x the no-retry time",
    "[simulation][brownout]") {
    const BrownoutSettings settings;  // 1000/s, arrivals 800/s, 400/s for 10 s, timeout 1 s
    const auto results = run_brownout(
        brownout_builtins(3, std::chrono::milliseconds(100), rebound::BudgetSettings{100, 0.1}),
        settings);
    REQUIRE(results.size() == 5);
    for (const BrownoutResult& result : results) {
        INFO(result.strategy << ": recovery "
                             << (result.recovery_s ? std::to_string(*result.recovery_s) : "never")
                             << ", peak amplification " << result.peak_amplification);
        CHECK(result.samples.size() == 80);
    }
    const BrownoutResult& none = result_of(results, "none");
    REQUIRE(none.recovery_s.has_value());
    CHECK(*none.recovery_s > 0.0);  // the backlog takes time to drain even without retries
    CHECK_FALSE(result_of(results, "immediate").recovery_s.has_value());
    CHECK_FALSE(result_of(results, "backoff").recovery_s.has_value());
    const BrownoutResult& budget = result_of(results, "backoff+budget");
    REQUIRE(budget.recovery_s.has_value());
    CHECK(*budget.recovery_s <= 1.5 * *none.recovery_s);
    CHECK(result_of(results, "backoff+breaker").recovery_s.has_value());
    // Before the brownout every strategy serves every request with one attempt.
    for (const BrownoutResult& result : results) {
        CHECK(result.samples[5].goodput == Approx(800.0).margin(1.0));
        CHECK(result.samples[5].amplification == Approx(1.0));
    }
}

TEST_CASE("brownout: CSV has one line per strategy and sample", "[simulation][brownout]") {
    BrownoutSettings settings;
    settings.run_length = std::chrono::seconds(30);
    const auto results = run_brownout(
        brownout_builtins(3, std::chrono::milliseconds(100), rebound::BudgetSettings{100, 0.1}),
        settings);
    const std::string csv = format_brownout_csv(results);
    CHECK(csv.rfind("strategy,time_s,arrivals,offered,goodput,amplification\n", 0) == 0);
    CHECK(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')) == 1 + 5 * 30);
    CHECK(csv.find("\nnone,5.000,800.00,800.00,800.00,1.00\n") != std::string::npos);
    const std::string svg = format_brownout_svg(results, settings);
    CHECK(svg.find("Goodput") != std::string::npos);
    CHECK(svg.find("Offered load") != std::string::npos);
    CHECK(format_brownout_table(results, settings).find("never (metastable)") != std::string::npos);
}

// The figures of measured counts (bench/brownout_experiment.cpp counts them against a real
// server): 10 samples of 1 s, the brownout from 2 s to 5 s.
TEST_CASE("brownout: summarize_brownout finds the peak inside the brownout and the recovery",
          "[simulation][brownout]") {
    BrownoutSettings settings;
    settings.brownout_start = std::chrono::seconds(2);
    settings.brownout_length = std::chrono::seconds(3);
    settings.run_length = std::chrono::seconds(10);
    settings.settle = 2;
    BrownoutCounts counts;
    counts.arrivals.assign(10, 80);
    // A peak of 3x outside the brownout (sample 1) does not count; inside, 2.5x at sample 3.
    counts.offered = {80, 240, 120, 200, 80, 160, 80, 80, 80, 80};
    // Back at 5 s; 76 of 80 is within 5%, 75 is not; one good sample is not yet settled.
    counts.goodput = {80, 80, 0, 0, 0, 75, 80, 75, 76, 80};
    const BrownoutResult result = summarize_brownout("measured", counts, settings);
    CHECK(result.strategy == "measured");
    REQUIRE(result.samples.size() == 10);
    CHECK(result.samples[3].amplification == Approx(2.5));
    CHECK(result.samples[3].offered == Approx(200.0));
    CHECK(result.peak_amplification == Approx(2.5));
    REQUIRE(result.recovery_s.has_value());
    CHECK(*result.recovery_s == Approx(3.0));  // samples 8 and 9: from 8 s, 3 s after 5 s
    CHECK(result.largest_queue == 0);

    counts.goodput[9] = 0;
    CHECK_FALSE(summarize_brownout("never", counts, settings).recovery_s.has_value());
}
