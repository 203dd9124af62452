#include <catch2/catch.hpp>

#include <algorithm>

#include "rebound/policy.hpp"

using namespace std::chrono_literals;
using rebound::Backoff;
using rebound::FieldProblems;
using rebound::Jitter;
using rebound::Matcher;
using rebound::PolicyBuilder;

namespace {

// The fields named by the problems of `builder`, which must fail.
std::vector<std::string> failing_fields(const PolicyBuilder& builder) {
    const rebound::PolicyResult result = builder.try_build();
    REQUIRE_FALSE(result);
    REQUIRE(result.policy == nullptr);
    std::vector<std::string> fields;
    for (const auto& p : result.problems) {
        fields.push_back(p.path());
    }
    return fields;
}

std::string first_message(const PolicyBuilder& builder) {
    const rebound::PolicyResult result = builder.try_build();
    REQUIRE_FALSE(result.problems.empty());
    return result.problems.front().message;
}

}  // namespace

TEST_CASE("a builder with only a name gives the built-in defaults", "[policy]") {
    const auto policy = PolicyBuilder("plain").build();
    REQUIRE(policy != nullptr);
    CHECK(policy->name() == "plain");
    CHECK(policy->max_attempts() == 3);
    CHECK(policy->spec().backoff == Backoff::exponential(100ms, 2.0, 30s));
    CHECK(policy->spec().jitter == Jitter::full());
    CHECK_FALSE(policy->spec().deadline);
    CHECK(policy->spec().min_attempt_budget == 0ms);
    CHECK(policy->spec().on_exhausted == rebound::ExhaustedAction::Fail);
    CHECK(policy->budget() == nullptr);
    CHECK(policy->base_delay(1) == 100ms);
    CHECK(policy->base_delay(2) == 200ms);
}

TEST_CASE("max_retries counts without the first attempt, and both at once is an error",
          "[policy]") {
    CHECK(PolicyBuilder("p").max_retries(5).build()->max_attempts() == 6);
    CHECK(failing_fields(PolicyBuilder("p").max_attempts(3).max_retries(2)) ==
          std::vector<std::string>{"max_retries"});
    CHECK(failing_fields(PolicyBuilder("p").max_retries(std::numeric_limits<int>::max())) ==
          std::vector<std::string>{"max_attempts"});
}

TEST_CASE("invalid values are refused with the field named", "[policy]") {
    CHECK(failing_fields(PolicyBuilder("p").max_attempts(0)) ==
          std::vector<std::string>{"max_attempts"});
    CHECK(failing_fields(PolicyBuilder("p").max_attempts(1001)) ==
          std::vector<std::string>{"max_attempts"});
    CHECK(failing_fields(PolicyBuilder("p").backoff(Backoff::exponential(100ms, 1.0))) ==
          std::vector<std::string>{"backoff.multiplier"});
    CHECK(failing_fields(PolicyBuilder("p").backoff(Backoff::exponential(100ms, 0.5))) ==
          std::vector<std::string>{"backoff.multiplier"});
    CHECK(failing_fields(PolicyBuilder("p").backoff(Backoff::exponential(100ms, 100.5))) ==
          std::vector<std::string>{"backoff.multiplier"});
    CHECK(failing_fields(PolicyBuilder("p").backoff(
              Backoff::exponential(100ms, std::numeric_limits<double>::quiet_NaN()))) ==
          std::vector<std::string>{"backoff.multiplier"});
    CHECK(failing_fields(PolicyBuilder("p").backoff(Backoff::exponential(1s, 2.0, 500ms))) ==
          std::vector<std::string>{"backoff.max"});
    CHECK(failing_fields(PolicyBuilder("p").backoff(Backoff::linear(1s, 1s, 500ms))) ==
          std::vector<std::string>{"backoff.max"});
    CHECK(failing_fields(PolicyBuilder("p").backoff(Backoff::fixed(-5ms))) ==
          std::vector<std::string>{"backoff.delay"});
    CHECK(failing_fields(PolicyBuilder("p").backoff(Backoff::fixed(std::chrono::hours(24 * 31)))) ==
          std::vector<std::string>{"backoff.delay"});
    CHECK(failing_fields(PolicyBuilder("p").backoff(Backoff::linear(1s, -1s))) ==
          std::vector<std::string>{"backoff.increment"});
    CHECK(failing_fields(PolicyBuilder("p").jitter(Jitter::proportional(0.0))) ==
          std::vector<std::string>{"jitter.factor"});
    CHECK(failing_fields(PolicyBuilder("p").jitter(Jitter::proportional(1.5))) ==
          std::vector<std::string>{"jitter.factor"});
    CHECK(failing_fields(PolicyBuilder("p").jitter(Jitter::bounded(-1s))) ==
          std::vector<std::string>{"jitter.amount"});
    CHECK(failing_fields(
              PolicyBuilder("p").backoff(Backoff::fixed(1s)).jitter(Jitter::decorrelated())) ==
          std::vector<std::string>{"jitter"});
    CHECK(failing_fields(PolicyBuilder("p").deadline(0ms)) == std::vector<std::string>{"deadline"});
    CHECK(failing_fields(PolicyBuilder("p").attempt_timeout(-1ms)) ==
          std::vector<std::string>{"attempt_timeout"});
    CHECK(failing_fields(PolicyBuilder("p").min_attempt_budget(-1ms)) ==
          std::vector<std::string>{"min_attempt_budget"});
    CHECK(failing_fields(PolicyBuilder("p").budget({0, 0.1})) ==
          std::vector<std::string>{"budget.max_tokens"});
    CHECK(failing_fields(PolicyBuilder("p").budget({10, 0.0001})) ==
          std::vector<std::string>{"budget.token_ratio"});
    CHECK(failing_fields(PolicyBuilder("p").budget({10, 0.1234})) ==
          std::vector<std::string>{"budget.token_ratio"});
    CHECK(failing_fields(PolicyBuilder("p").route(10s, "a").route(10s, "b")) ==
          std::vector<std::string>{"routes[1].up_to"});
    CHECK(failing_fields(PolicyBuilder("p").route(10s, "")) ==
          std::vector<std::string>{"routes[0].target"});
    // A route target is a name, as a policy's is: no control characters, spaces or free text.
    CHECK(failing_fields(PolicyBuilder("p").route(10s, "ok.retry").route(1min, "a\x1b[2Jb")) ==
          std::vector<std::string>{"routes[1].target"});
    CHECK(failing_fields(PolicyBuilder("p").route(10s, "retry 10s")) ==
          std::vector<std::string>{"routes[0].target"});
    CHECK(failing_fields(PolicyBuilder("9lives")) == std::vector<std::string>{"name"});
    CHECK(failing_fields(PolicyBuilder("p").retry_on(Matcher::sqlstate("4000"))) ==
          std::vector<std::string>{"retry_on[0]"});
    CHECK(failing_fields(PolicyBuilder("p").never_retry_on(Matcher::sqlstate_class("0"))) ==
          std::vector<std::string>{"never_retry_on[0]"});
    CHECK(failing_fields(PolicyBuilder("p").retry_on(Matcher::http_status(99))) ==
          std::vector<std::string>{"retry_on[0]"});
    CHECK(failing_fields(PolicyBuilder("p").retry_on(Matcher::http_class(6))) ==
          std::vector<std::string>{"retry_on[0]"});
    CHECK(failing_fields(PolicyBuilder("p").retry_on(Matcher::message(""))) ==
          std::vector<std::string>{"retry_on[0]"});
    CHECK(failing_fields(PolicyBuilder("p").retry_on(Matcher::error_type("io..x!"))) ==
          std::vector<std::string>{"retry_on[0]"});
    CHECK(failing_fields(PolicyBuilder("p").retry_on(Matcher::native(
              rebound::Vendor::Generic, 5))) == std::vector<std::string>{"retry_on[0]"});
}

TEST_CASE("problem messages state the numbers and what would be right", "[policy]") {
    CHECK(first_message(PolicyBuilder("p").backoff(Backoff::exponential(1s, 2.0, 500ms))) ==
          "max (500ms) is below initial (1s)");
    CHECK(first_message(PolicyBuilder("p").backoff(Backoff::exponential(100ms, 1.0))) ==
          "multiplier must be greater than 1.0 and at most 100, got 1");
    CHECK(first_message(PolicyBuilder("p").max_attempts(0)) ==
          "max_attempts must be between 1 and 1000, got 0");
    CHECK(first_message(PolicyBuilder("p").deadline(std::chrono::hours(24 * 40))) ==
          "deadline of 960h exceeds the limit of 30 days (720h)");
}

TEST_CASE("every problem is collected, and build() throws them all", "[policy]") {
    const PolicyBuilder bad = PolicyBuilder("p")
                                  .max_attempts(0)
                                  .backoff(Backoff::exponential(1s, 1.0, 500ms))
                                  .deadline(-1s);
    CHECK(failing_fields(bad) == std::vector<std::string>{"max_attempts", "backoff.multiplier",
                                                          "backoff.max", "deadline"});
    try {
        (void)bad.build();
        FAIL("build() accepted an invalid policy");
    } catch (const rebound::InvalidPolicyError& e) {
        CHECK(e.problems().size() == 4);
        const std::string what = e.what();
        CHECK(what.find("invalid policy 'p'") != std::string::npos);
        CHECK(what.find("backoff.multiplier") != std::string::npos);
    }
}

TEST_CASE("unknown predicates are errors only when a registry is given", "[policy]") {
    CHECK(PolicyBuilder("p").retry_if("is_read").try_build());
    rebound::PredicateRegistry registry;
    registry.add("is_read", [](const rebound::ErrorDescription&) { return true; });
    rebound::PolicyCompileOptions options;
    options.predicates = &registry;
    CHECK(PolicyBuilder("p").retry_if("is_read").options(options).try_build());
    CHECK(failing_fields(PolicyBuilder("p").retry_if("is_write").options(options)) ==
          std::vector<std::string>{"retry_if[0]"});
    CHECK_THROWS_AS(registry.add("is_read", [](const rebound::ErrorDescription&) { return false; }),
                    std::invalid_argument);
    CHECK_THROWS_AS(registry.add("empty", rebound::RetryPredicate{}), std::invalid_argument);
}

TEST_CASE("the builtin policy is the built-in defaults retrying transient errors", "[policy]") {
    const auto result = rebound::Policy::create(rebound::builtin_policy_spec());
    REQUIRE(result);
    CHECK(result.policy->name() == "builtin");
    CHECK(result.policy->spec().retry_on == std::vector<Matcher>{Matcher::transient()});
    CHECK(result.policy->retry_on_text(0) == "category:transient");
}
