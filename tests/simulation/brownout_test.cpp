// The brownout experiment (docs/simulate.md, "Brownout"): retries without a budget keep the
// server overloaded after its capacity returns; the budget recovers about as fast as no retries.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <stdexcept>
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
    const auto results = run_brownout(brownout_builtins(), settings);
    REQUIRE(results.size() == 8);
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
    for (const char* guarded : {"backoff.budget", "backoff.default-budget", "backoff.breaker",
                                "backoff.budget.breaker"}) {
        INFO(guarded);
        const BrownoutResult& result = result_of(results, guarded);
        REQUIRE(result.recovery_s.has_value());
        CHECK(*result.recovery_s <= 1.5 * *none.recovery_s);
    }
    // Before the brownout every strategy serves every request with one attempt.
    for (const BrownoutResult& result : results) {
        CHECK(result.samples[5].goodput == Approx(800.0).margin(1.0));
        CHECK(result.samples[5].amplification == Approx(1.0));
    }
}

// The goal the real experiment measures (docs/performance.md), here in the model at the real
// experiment's scale: 100 requests/s, where a budget's burst weighs 10 times what it does at
// 1000/s. The default budget (50 retries in the first second of failures, 1 + 50 / 80) misses it.
TEST_CASE("brownout: at 100 requests/s the sized budget and the breaker keep the peak under 1.3x",
          "[simulation][brownout]") {
    BrownoutSettings settings;
    settings.capacity = 100.0;
    settings.run_length = std::chrono::seconds(40);
    const auto results = run_brownout(brownout_builtins(), settings);
    for (const char* guarded : {"backoff.budget", "backoff.breaker", "backoff.budget.breaker"}) {
        INFO(guarded);
        CHECK(result_of(results, guarded).peak_amplification <= 1.3);
    }
    // The comparison rows: the default budget's burst, and the default breaker's 10 s window
    // still full of the successes from before the brownout.
    CHECK(result_of(results, "backoff.default-budget").peak_amplification > 1.5);
    CHECK(result_of(results, "backoff.default-breaker").peak_amplification > 2.0);
    CHECK(result_of(results, "backoff").peak_amplification > 3.0);
}

TEST_CASE("brownout: the strategies are the handlers of simulation/policies/brownout.yaml",
          "[simulation][brownout]") {
    const auto strategies = brownout_builtins();
    std::vector<std::string> names;
    for (const ClientStrategy& strategy : strategies) {
        names.push_back(strategy.name);
    }
    CHECK(names == std::vector<std::string>{"none", "immediate", "backoff", "backoff.budget",
                                            "backoff.default-budget", "backoff.breaker",
                                            "backoff.default-breaker", "backoff.budget.breaker"});
    CHECK(brownout_policy_file().find("backoff.budget.breaker: backoff_budget_breaker") !=
          std::string_view::npos);
    const auto policy_of = [&](const std::string& name) {
        const auto found = std::find_if(strategies.begin(), strategies.end(),
                                        [&](const ClientStrategy& s) { return s.name == name; });
        REQUIRE(found != strategies.end());
        return found->make_policy();
    };
    CHECK(policy_of("none")->max_attempts() == 1);
    CHECK(policy_of("backoff")->max_attempts() == 4);
    CHECK_FALSE(policy_of("backoff")->spec().budget.has_value());
    CHECK(policy_of("backoff.budget")->spec().budget == rebound::BudgetSettings{20, 0.1});
    CHECK(policy_of("backoff.default-budget")->spec().budget == rebound::BudgetSettings{100, 0.1});
    CHECK(policy_of("backoff.breaker")->breaker() != nullptr);
    CHECK(policy_of("backoff.default-breaker")->breaker()->settings().window ==
          std::chrono::seconds(10));
    CHECK_FALSE(policy_of("backoff.breaker")->spec().budget.has_value());
    // Cumulative: backoff, plus the budget, plus the breaker.
    const auto both = policy_of("backoff.budget.breaker");
    CHECK(both->spec().budget == rebound::BudgetSettings{20, 0.1});
    REQUIRE(both->breaker() != nullptr);
    const rebound::BreakerSettings& breaker = both->breaker()->settings();
    CHECK(breaker.window == std::chrono::seconds(1));
    CHECK(breaker.minimum_calls == 20);
    CHECK(breaker.slow_call == std::chrono::milliseconds(500));
    CHECK(both->spec().attempt_timeout == std::chrono::seconds(1));
    // Each copy is one client: its own breaker.
    CHECK(policy_of("backoff.breaker")->breaker() != policy_of("backoff.breaker")->breaker());
}

TEST_CASE("brownout: overrides change only the policies they apply to", "[simulation][brownout]") {
    const auto strategies = brownout_builtins({.retries = 1,
                                               .max_tokens = 6,
                                               .token_ratio = 0.5,
                                               .attempt_timeout = std::chrono::milliseconds(300)});
    for (const ClientStrategy& strategy : strategies) {
        INFO(strategy.name);
        const auto policy = strategy.make_policy();
        CHECK(policy->max_attempts() == (strategy.name == "none" ? 1 : 2));
        CHECK(policy->spec().attempt_timeout == std::chrono::milliseconds(300));
        if (strategy.name.find("budget") != std::string::npos) {
            CHECK(policy->spec().budget == rebound::BudgetSettings{6, 0.5});
        } else {
            CHECK_FALSE(policy->spec().budget.has_value());
        }
    }
    BrownoutOverrides too_fine;
    too_fine.token_ratio = 0.0001;  // below 0.001
    CHECK_THROWS_AS(brownout_builtins(too_fine), std::invalid_argument);
}

TEST_CASE("brownout: CSV has one line per strategy and sample", "[simulation][brownout]") {
    BrownoutSettings settings;
    settings.run_length = std::chrono::seconds(30);
    const auto results = run_brownout(brownout_builtins(), settings);
    const std::string csv = format_brownout_csv(results);
    CHECK(csv.rfind("strategy,time_s,arrivals,offered,goodput,amplification\n", 0) == 0);
    CHECK(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')) == 1 + 8 * 30);
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
