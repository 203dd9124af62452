#include <catch2/catch.hpp>

#include "rebound/handler_registry.hpp"

using namespace std::chrono_literals;
using rebound::ResolvedVia;

namespace {

std::shared_ptr<const rebound::Policy> named(std::string name) {
    return rebound::PolicyBuilder(std::move(name)).build();
}

// payments: policies interactive, background, fast; bindings ApproveCase, orders.*; default fast.
std::shared_ptr<const rebound::PolicySet> payments(bool with_default = true) {
    return std::make_shared<const rebound::PolicySet>(
        "payments",
        std::vector<std::shared_ptr<const rebound::Policy>>{named("interactive"),
                                                            named("background"), named("fast")},
        std::vector<rebound::HandlerBinding>{{"ApproveCase", "interactive", false},
                                             {"orders.*", "background", true}},
        with_default ? std::optional<std::string>("fast") : std::nullopt);
}

struct ApproveCase {
    REBOUND_HANDLER("ApproveCase", "background");
};
struct RiskBackfill {
    REBOUND_HANDLER("RiskBackfill", "background");
    static constexpr bool rebound_idempotent = true;
};
struct NightlyExport {
    static constexpr std::string_view rebound_handler_name = "NightlyExport";
    static std::shared_ptr<const rebound::Policy> retry_policy() { return named("export"); }
};
struct Unannotated {
    REBOUND_RETRY_TIER("no_such_tier");
};
class ReportJob final : public rebound::RetryPolicyProvider {
  public:
    std::shared_ptr<const rebound::Policy> retry_policy() const override { return named("report"); }
};

}  // namespace

TEST_CASE("annotation-like, code and explicit registrations are recorded", "[registry]") {
    rebound::HandlerRegistry registry;
    registry.add<ApproveCase>();
    registry.add<RiskBackfill>();
    registry.add<NightlyExport>();
    registry.add<Unannotated>("Unannotated");
    registry.add("ReportJob", ReportJob{});
    registry.add({.name = "legacy.import", .tier = "interactive"});
    CHECK(registry.size() == 6);
    CHECK(registry.find("ApproveCase")->tier == "background");
    CHECK(registry.find("RiskBackfill")->idempotent);
    CHECK(registry.find("NightlyExport")->policy->name() == "export");
    CHECK(registry.find("Unannotated")->tier == "no_such_tier");
    CHECK(registry.find("ReportJob")->policy->name() == "report");
    CHECK(registry.find("nobody") == nullptr);
}

TEST_CASE("registering one handler name twice is an error at registration", "[registry]") {
    rebound::HandlerRegistry registry;
    registry.add<ApproveCase>();
    CHECK_THROWS_AS(registry.add<ApproveCase>(), rebound::HandlerRegistrationError);
    CHECK_THROWS_WITH(registry.add({.name = "ApproveCase"}),
                      "handler 'ApproveCase' is already registered");
    CHECK_THROWS_AS(registry.add({.name = "bad name"}), rebound::HandlerRegistrationError);
    CHECK_THROWS_AS(registry.add({.name = "both", .tier = "fast", .policy = named("p")}),
                    rebound::HandlerRegistrationError);
    CHECK(registry.size() == 1);
}

TEST_CASE("resolution takes code, binding, annotation, default, builtin in that order",
          "[registry]") {
    const auto set = payments();
    const auto no_default = payments(false);
    rebound::HandlerRegistry registry;
    // 1. code beats the binding of the same name.
    registry.add({.name = "ApproveCase", .policy = named("from_code")});
    // 2. binding beats the annotation tier.
    registry.add({.name = "orders.ship", .tier = "fast"});
    // 3. annotation beats the default.
    registry.add<RiskBackfill>();
    // 3 skipped: an unknown tier falls through to the default.
    registry.add<Unannotated>("Unannotated");

    const auto check = [&](std::string_view handler, const rebound::PolicySet* s,
                           std::string_view policy, ResolvedVia via) {
        const auto r = registry.resolve(handler, s);
        INFO(handler);
        CHECK(r.policy->name() == policy);
        CHECK(r.via == via);
        return r;
    };
    check("ApproveCase", set.get(), "from_code", ResolvedVia::Code);
    const auto bound = check("orders.ship", set.get(), "background", ResolvedVia::Binding);
    CHECK(bound.binding_key == "orders.*");
    CHECK(bound.idempotent);  // from the binding
    const auto tier = check("RiskBackfill", set.get(), "background", ResolvedVia::Annotation);
    CHECK(tier.idempotent);  // from the registration
    check("Unannotated", set.get(), "fast", ResolvedVia::Default);
    check("never.registered", set.get(), "fast", ResolvedVia::Default);
    check("never.registered", no_default.get(), "builtin", ResolvedVia::Builtin);
    check("RiskBackfill", nullptr, "builtin", ResolvedVia::Builtin);
    check("ApproveCase", nullptr, "from_code", ResolvedVia::Code);
}

TEST_CASE("explain names the policy and the rule that chose it", "[registry]") {
    const auto set = payments();
    rebound::HandlerRegistry registry;
    registry.add<RiskBackfill>();
    registry.add({.name = "orders.ship", .tier = "fast"});

    const auto tier = registry.explain("RiskBackfill", set.get());
    CHECK(tier.policy == "background");
    CHECK(tier.via == ResolvedVia::Annotation);
    CHECK(rebound::to_string(tier) ==
          "handler 'RiskBackfill' uses policy 'background' (via annotation: tier 'background' "
          "registered in code), idempotent: true (handler code)\n"
          "  passed over code: the handler's code gives no policy\n"
          "  passed over binding: no handlers: key of service 'payments' matches 'RiskBackfill'");

    const auto binding = registry.explain("orders.ship", set.get());
    CHECK(binding.rule == "binding 'orders.*' of service 'payments'");
    CHECK(binding.passed_over.size() == 1);

    const auto fallback = registry.explain("nobody", payments(false).get());
    CHECK(fallback.via == ResolvedVia::Builtin);
    CHECK(
        fallback.passed_over ==
        std::vector<std::string>{"code: the handler is not registered in code",
                                 "binding: no handlers: key of service 'payments' matches 'nobody'",
                                 "annotation: no tier registered in code",
                                 "default: service 'payments' has no default"});
}

TEST_CASE("a binding that says nothing about idempotency keeps the code's value", "[registry]") {
    // capture: unstated; refund: stated false; settle: stated true.
    const auto set = std::make_shared<const rebound::PolicySet>(
        "payments", std::vector<std::shared_ptr<const rebound::Policy>>{named("interactive")},
        std::vector<rebound::HandlerBinding>{{"payments.capture", "interactive", std::nullopt},
                                             {"payments.refund", "interactive", false},
                                             {"payments.settle", "interactive", true}},
        std::nullopt);
    rebound::HandlerRegistry registry;
    registry.add({.name = "payments.capture", .idempotent = true});
    registry.add({.name = "payments.refund", .idempotent = true});
    registry.add({.name = "payments.settle", .idempotent = false});
    const auto check = [&](std::string_view handler, bool idempotent,
                           rebound::IdempotenceSource source) {
        INFO(handler);
        const auto choice = registry.choose(handler, set.get());
        CHECK(choice.idempotent == idempotent);
        CHECK(choice.idempotent_source == source);
        const auto resolution = registry.resolve(handler, set.get());
        CHECK(resolution.idempotent == idempotent);
        CHECK(resolution.idempotent_source == source);
        CHECK(resolution.via == ResolvedVia::Binding);
    };
    check("payments.capture", true, rebound::IdempotenceSource::Code);
    check("payments.refund", false, rebound::IdempotenceSource::Binding);  // explicit false wins
    check("payments.settle", true, rebound::IdempotenceSource::Binding);
    // The same when some handler gives a policy in code (the registry is probed differently).
    registry.add({.name = "other", .policy = named("from_code")});
    check("payments.capture", true, rebound::IdempotenceSource::Code);
    check("payments.refund", false, rebound::IdempotenceSource::Binding);

    CHECK_THAT(rebound::to_string(registry.explain("payments.capture", set.get())),
               Catch::Contains("idempotent: true (handler code)"));
    CHECK_THAT(rebound::to_string(registry.explain("payments.refund", set.get())),
               Catch::Contains("idempotent: false (file binding)"));
    CHECK_THAT(rebound::to_string(registry.explain("unregistered", set.get())),
               Catch::Contains("idempotent: false (default)"));
    // The file alone: only a stated value counts.
    CHECK(set->resolve("payments.capture").idempotent_source ==
          rebound::IdempotenceSource::Default);
    CHECK_FALSE(set->resolve("payments.capture").idempotent);
    CHECK(set->resolve("payments.settle").idempotent_source == rebound::IdempotenceSource::Binding);
}

TEST_CASE("unknown annotation tiers are listed with the handler name", "[registry]") {
    rebound::HandlerRegistry registry;
    registry.add<RiskBackfill>();
    registry.add<Unannotated>("Unannotated");
    registry.add({.name = "z.job", .tier = "missing"});
    const auto unknown = registry.unknown_tiers(*payments());
    REQUIRE(unknown.size() == 2);
    CHECK(unknown[0].handler == "Unannotated");
    CHECK(unknown[0].tier == "no_such_tier");
    CHECK(unknown[1].handler == "z.job");
}

TEST_CASE("a binding wins the same way whether or not any handler gives a policy in code",
          "[registry]") {
    const auto set = payments();
    rebound::HandlerRegistry registry;
    // Registered idempotent with a tier; the file binds it (orders.*, idempotent) and
    // ApproveCase (exact, not idempotent).
    registry.add({.name = "orders.ship", .tier = "fast", .idempotent = false});
    registry.add({.name = "ApproveCase", .tier = "fast", .idempotent = true});
    const auto expect_bindings = [&] {
        const auto ship = registry.choose("orders.ship", set.get());
        CHECK((*ship.policy)->name() == "background");
        CHECK(ship.via == ResolvedVia::Binding);
        CHECK(ship.idempotent);
        CHECK(ship.binding_key == "orders.*");
        const auto approve = registry.choose("ApproveCase", set.get());
        CHECK((*approve.policy)->name() == "interactive");
        CHECK(approve.via == ResolvedVia::Binding);
        CHECK_FALSE(approve.idempotent);  // the binding's, not the registration's
        CHECK(approve.binding_key == "ApproveCase");
    };
    expect_bindings();  // no registration gives a policy in code
    registry.add({.name = "orders.refund", .policy = named("from_code")});
    expect_bindings();  // one does, for another handler
    const auto refund = registry.choose("orders.refund", set.get());
    CHECK((*refund.policy)->name() == "from_code");
    CHECK(refund.via == ResolvedVia::Code);
    CHECK(refund.idempotent);  // from the orders.* binding
}

TEST_CASE("unknown tiers are listed in name order whatever the registration order", "[registry]") {
    const auto set = payments();
    rebound::HandlerRegistry registry;
    registry.add({.name = "zeta", .tier = "missing_z"});
    registry.add({.name = "alpha", .tier = "missing_a"});
    registry.add({.name = "mid", .tier = "fast"});
    const auto unknown = registry.unknown_tiers(*set);
    REQUIRE(unknown.size() == 2);
    CHECK(unknown[0].handler == "alpha");
    CHECK(unknown[1].handler == "zeta");
    CHECK(unknown[1].tier == "missing_z");
}
