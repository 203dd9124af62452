// ResilienceRegistry: budgets and breakers outlive the policy snapshots that use them.
#include <catch2/catch.hpp>
#include <chrono>

#include "rebound/breaker_metrics.hpp"
#include "rebound/budget_metrics.hpp"
#include "rebound/decision.hpp"
#include "rebound/resilience_registry.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;
using rebound::BreakerSettings;
using rebound::BreakerState;
using rebound::BudgetSettings;
using rebound::ErrorCategory;
using rebound::ErrorDescription;
using rebound::ResilienceRegistry;

namespace {

const rebound::Clock::TimePoint t0{};

BreakerSettings breaker_settings(int consecutive) {
    BreakerSettings s;
    s.name = "ledger-db";
    s.trip = rebound::BreakerTrip::Consecutive;
    s.consecutive_failures = consecutive;
    s.open_for = 30s;
    return s;
}

// One "snapshot": the policy a reload compiles, taking its budget and breaker from `registry`.
std::shared_ptr<const rebound::Policy> compile(ResilienceRegistry& registry, int max_tokens,
                                               int consecutive) {
    const BudgetSettings budget{max_tokens, 0.1};
    rebound::BreakerDirectory breakers{
        {"ledger-db", registry.breaker("payments", breaker_settings(consecutive), t0)}};
    rebound::PolicySpec spec;
    spec.name = "interactive";
    spec.retry_on = {rebound::Matcher::transient()};
    spec.budget = budget;
    spec.breaker = "ledger-db";
    rebound::PolicyCompileOptions options;
    options.breakers = &breakers;
    options.budget = registry.budget("payments", "interactive", budget);
    auto result = rebound::Policy::create(spec, options);
    REQUIRE(result);
    return result.policy;
}

void drain(const rebound::Policy& policy, int failures) {
    rebound::testing::ScriptedRandomSource random{0.5};
    for (int i = 0; i < failures; ++i) {
        static_cast<void>(rebound::decide(policy, ErrorDescription::of(ErrorCategory::Deadlock),
                                          rebound::AttemptContext{}, random));
    }
}

}  // namespace

TEST_CASE("a reload in the middle of an outage neither refills the budget nor closes the breaker",
          "[resilience]") {
    ResilienceRegistry registry;
    const auto before = compile(registry, 10, 1);
    drain(*before, 6);  // 10 -> 4 tokens: retries refused
    REQUIRE(before->budget()->tokens() == Approx(4.0));
    const auto permit = before->breaker()->acquire(t0 + 1s);
    before->breaker()->record_error(permit, ErrorDescription::of(ErrorCategory::ConnectionLost),
                                    t0 + 1s);
    REQUIRE(before->breaker()->snapshot(t0 + 1s).state == BreakerState::Open);

    SECTION("unchanged settings: the same budget and breaker") {
        const auto after = compile(registry, 10, 1);
        CHECK(after->budget() == before->budget());
        CHECK(after->breaker() == before->breaker());
        CHECK(after->budget()->tokens() == Approx(4.0));
        CHECK_FALSE(after->breaker()->acquire(t0 + 2s).admitted);
    }
    SECTION("a new max_tokens scales the tokens; new breaker settings wait for a transition") {
        const auto after = compile(registry, 20, 5);
        CHECK(after->budget()->tokens() == Approx(8.0));   // 4 * 20 / 10
        CHECK(before->budget()->tokens() == Approx(4.0));  // the old snapshot keeps its own
        CHECK(after->breaker() == before->breaker());
        CHECK(after->breaker()->snapshot(t0 + 2s).state == BreakerState::Open);
        CHECK(after->breaker()->settings().consecutive_failures == 1);
    }
}

TEST_CASE("what the files no longer declare is dropped and starts fresh when it returns",
          "[resilience]") {
    ResilienceRegistry registry;
    const auto first = compile(registry, 10, 1);
    drain(*first, 6);
    CHECK(registry.breakers().size() == 1);
    registry.retain("payments", {}, {});
    CHECK(registry.breakers().empty());
    const auto again = compile(registry, 10, 1);
    CHECK(again->budget() != first->budget());
    CHECK(again->budget()->tokens() == Approx(10.0));
    CHECK(again->breaker() != first->breaker());
}

TEST_CASE("services keep separate state under equal names", "[resilience]") {
    ResilienceRegistry registry;
    const auto a = registry.budget("payments", "interactive", {10, 0.1});
    const auto b = registry.budget("orders", "interactive", {10, 0.1});
    CHECK(a != b);
    const std::string kept[] = {"interactive"};
    registry.retain("orders", {}, kept);
    CHECK(registry.budget("payments", "interactive", {10, 0.1}) == a);
    CHECK(registry.budget("orders", "interactive", {10, 0.1}) == b);
}

TEST_CASE("breaker metrics render state, transitions and refusals per service and breaker",
          "[resilience][metrics]") {
    ResilienceRegistry registry;
    const auto breaker = registry.breaker("payments", breaker_settings(1), t0);
    registry.breaker("orders", breaker_settings(1), t0);
    const auto permit = breaker->acquire(t0);
    breaker->record_error(permit, ErrorDescription::of(ErrorCategory::Deadlock), t0);
    CHECK_FALSE(breaker->acquire(t0 + 1s).admitted);
    const std::string text = rebound::render_breaker_metrics(registry, t0 + 1s);
    CHECK(text.find("# TYPE rebound_breaker_state gauge\n") != std::string::npos);
    CHECK(text.find("rebound_breaker_state{service=\"payments\",breaker=\"ledger-db\"} 1\n") !=
          std::string::npos);
    CHECK(text.find("rebound_breaker_state{service=\"orders\",breaker=\"ledger-db\"} 0\n") !=
          std::string::npos);
    CHECK(text.find("rebound_breaker_transitions_total{service=\"payments\",breaker=\"ledger-db\","
                    "to=\"open\"} 1\n") != std::string::npos);
    CHECK(text.find("rebound_breaker_refused_total{service=\"payments\",breaker=\"ledger-db\"} "
                    "1\n") != std::string::npos);
}

TEST_CASE("the breaker state gauge reads 0 closed, 1 open, 2 half-open", "[resilience][metrics]") {
    ResilienceRegistry registry;
    registry.breaker("orders", breaker_settings(1), t0);
    BreakerSettings cache = breaker_settings(1);
    cache.name = "cache";
    const auto probing = registry.breaker("payments", cache, t0);
    const auto open = registry.breaker("payments", breaker_settings(1), t0);
    // `cache` opens at t0 and half-opens at the first call after its 30s; `ledger-db` opens
    // 20s later and is still open then.
    probing->record_error(probing->acquire(t0), ErrorDescription::of(ErrorCategory::Deadlock), t0);
    open->record_error(open->acquire(t0 + 20s), ErrorDescription::of(ErrorCategory::Deadlock),
                       t0 + 20s);
    REQUIRE(probing->acquire(t0 + 30s).admitted);
    const std::string text = rebound::render_breaker_metrics(registry, t0 + 30s);
    CHECK(text.substr(0, text.find("# HELP rebound_breaker_transitions_total")) ==
          "# HELP rebound_breaker_state Circuit breaker state: 0 closed, 1 open, 2 half-open.\n"
          "# TYPE rebound_breaker_state gauge\n"
          "rebound_breaker_state{service=\"orders\",breaker=\"ledger-db\"} 0\n"
          "rebound_breaker_state{service=\"payments\",breaker=\"cache\"} 2\n"
          "rebound_breaker_state{service=\"payments\",breaker=\"ledger-db\"} 1\n");
}

TEST_CASE("budget gauges render every budget's tokens and max_tokens exactly",
          "[resilience][metrics]") {
    ResilienceRegistry registry;
    const auto policy = compile(registry, 10, 5);
    drain(*policy, 3);         // 10 -> 7 tokens
    policy->record_success();  // + 0.1
    REQUIRE(policy->budget()->tokens() == Approx(7.1));
    registry.budget("orders \"eu\"\n", "bulk\\", {100, 1.0});
    CHECK(rebound::render_budget_metrics(registry) ==
          "# HELP rebound_budget_tokens Tokens a retry budget holds: a failure takes one, a "
          "success gives back token_ratio.\n"
          "# TYPE rebound_budget_tokens gauge\n"
          "rebound_budget_tokens{service=\"orders \\\"eu\\\"\\n\",policy=\"bulk\\\\\"} 100\n"
          "rebound_budget_tokens{service=\"payments\",policy=\"interactive\"} 7.1\n"
          "# HELP rebound_budget_max_tokens A retry budget's max_tokens: retries are allowed "
          "while more than half remain.\n"
          "# TYPE rebound_budget_max_tokens gauge\n"
          "rebound_budget_max_tokens{service=\"orders \\\"eu\\\"\\n\",policy=\"bulk\\\\\"} 100\n"
          "rebound_budget_max_tokens{service=\"payments\",policy=\"interactive\"} 10\n");
    CHECK(rebound::render_budget_metrics(ResilienceRegistry{}) ==
          "# HELP rebound_budget_tokens Tokens a retry budget holds: a failure takes one, a "
          "success gives back token_ratio.\n"
          "# TYPE rebound_budget_tokens gauge\n"
          "# HELP rebound_budget_max_tokens A retry budget's max_tokens: retries are allowed "
          "while more than half remain.\n"
          "# TYPE rebound_budget_max_tokens gauge\n");
}
