#include <catch2/catch.hpp>

#include <random>

#include "rebound/decision.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;
using rebound::AttemptContext;
using rebound::Backoff;
using rebound::decide;
using rebound::Decision;
using rebound::DecisionReason;
using rebound::ErrorCategory;
using rebound::ErrorDescription;
using rebound::Jitter;
using rebound::Matcher;
using rebound::PolicyBuilder;
using rebound::testing::ScriptedRandomSource;

namespace {

AttemptContext attempt(int n, rebound::Duration elapsed = 0ms) {
    AttemptContext c;
    c.attempt = n;
    c.elapsed = elapsed;
    return c;
}

ErrorDescription deadlock() {
    return ErrorDescription::of(ErrorCategory::Deadlock);
}

// The "interactive" tier of conformance/04-tiers.yaml.
std::shared_ptr<const rebound::Policy> interactive() {
    return PolicyBuilder("interactive")
        .max_attempts(3)
        .backoff(Backoff::exponential(50ms, 2.0, 200ms))
        .jitter(Jitter::equal())
        .deadline(3s)
        .min_attempt_budget(100ms)
        .attempt_timeout(1s)
        .retry_on(Matcher::of_category(ErrorCategory::Deadlock))
        .retry_on(Matcher::of_category(ErrorCategory::SerializationFailure))
        .never_retry_on(Matcher::sqlstate_class("23"))
        .build();
}

}  // namespace

TEST_CASE("a retryable error is retried after the jittered delay", "[decision]") {
    const auto policy = interactive();
    ScriptedRandomSource random{0.0, 0.999999999};
    const Decision first = decide(*policy, deadlock(), attempt(1), random);
    CHECK(first.retry);
    CHECK(first.reason == DecisionReason::Retry);
    CHECK(first.delay == 25ms);
    CHECK(first.next_attempt == 2);
    CHECK(first.category == ErrorCategory::Deadlock);
    CHECK(first.matched == "category:deadlock");
    CHECK(first.route.empty());
    const Decision second = decide(*policy, deadlock(), attempt(2), random);
    CHECK(second.delay == 100ms);
    CHECK(second.next_attempt == 3);
}

TEST_CASE("step 1: never_retry_on wins over everything", "[decision]") {
    const auto policy = interactive();
    ScriptedRandomSource random{0.5};
    ErrorDescription e = deadlock();
    e.sqlstate = "23505";
    const Decision d = decide(*policy, e, attempt(1), random);
    CHECK_FALSE(d.retry);
    CHECK(d.reason == DecisionReason::NonRetryable);
    CHECK(d.matched == "sqlstate_class:23");
    CHECK(d.delay == 0ms);
    CHECK(d.next_attempt == 0);
    // Even a commit_outcome_unknown that is excluded reports non_retryable (step 1 before 2).
    e.category = ErrorCategory::CommitOutcomeUnknown;
    CHECK(decide(*policy, e, attempt(1), random).reason == DecisionReason::NonRetryable);
}

TEST_CASE("step 2: commit_outcome_unknown stops unless the handler is idempotent", "[decision]") {
    const auto policy = PolicyBuilder("p")
                            .retry_on(Matcher::of_category(ErrorCategory::CommitOutcomeUnknown))
                            .build();
    ScriptedRandomSource random{0.5};
    const ErrorDescription e = ErrorDescription::of(ErrorCategory::CommitOutcomeUnknown);
    CHECK(decide(*policy, e, attempt(1), random).reason == DecisionReason::OutcomeUnknown);
    AttemptContext idempotent = attempt(1);
    idempotent.idempotent = true;
    CHECK(decide(*policy, e, idempotent, random).reason == DecisionReason::Retry);
    // Idempotent but not in retry_on: step 4 refuses it (conformance: RemoveReviewer).
    CHECK(decide(*interactive(), e, idempotent, random).reason == DecisionReason::NonRetryable);
    // Outcome unknown comes before the include list.
    CHECK(decide(*interactive(), e, attempt(1), random).reason == DecisionReason::OutcomeUnknown);
}

TEST_CASE("step 4: include rules admit only what they match, and none means everything",
          "[decision]") {
    ScriptedRandomSource random{0.5};
    const auto policy = interactive();
    const Decision d =
        decide(*policy, ErrorDescription::of(ErrorCategory::LockTimeout), attempt(1), random);
    CHECK(d.reason == DecisionReason::NonRetryable);
    CHECK(d.matched.empty());

    const auto everything = PolicyBuilder("all").build();
    CHECK(decide(*everything, ErrorDescription::of(ErrorCategory::SyntaxError), attempt(1), random)
              .reason == DecisionReason::Retry);
    CHECK(decide(*everything, ErrorDescription{}, attempt(1), random).reason ==
          DecisionReason::Retry);
}

TEST_CASE("step 4: retry_if predicates admit errors", "[decision]") {
    rebound::PredicateRegistry registry;
    registry.add("is_busy", [](const ErrorDescription& e) { return e.message == "busy"; });
    rebound::PolicyCompileOptions options;
    options.predicates = &registry;
    const auto policy = PolicyBuilder("p")
                            .retry_on(Matcher::of_category(ErrorCategory::Deadlock))
                            .retry_if("is_busy")
                            .options(options)
                            .build();
    ScriptedRandomSource random{0.5};
    ErrorDescription busy;
    busy.message = "busy";
    const Decision d = decide(*policy, busy, attempt(1), random);
    CHECK(d.reason == DecisionReason::Retry);
    CHECK(d.matched == "predicate:is_busy");
    ErrorDescription idle;
    idle.message = "idle";
    CHECK(decide(*policy, idle, attempt(1), random).reason == DecisionReason::NonRetryable);

    // Compiled without a registry, the predicate is unresolved and never matches.
    const auto unresolved = PolicyBuilder("p").retry_if("is_busy").build();
    CHECK(decide(*unresolved, busy, attempt(1), random).reason == DecisionReason::NonRetryable);
}

TEST_CASE("step 4: attempts run out at max_attempts", "[decision]") {
    const auto policy = interactive();
    ScriptedRandomSource random{0.5};
    CHECK(decide(*policy, deadlock(), attempt(2), random).retry);
    const Decision d = decide(*policy, deadlock(), attempt(3), random);
    CHECK(d.reason == DecisionReason::Exhausted);
    CHECK(d.matched == "category:deadlock");
    CHECK(decide(*policy, deadlock(), attempt(4), random).reason == DecisionReason::Exhausted);
    const auto once = PolicyBuilder("once").max_attempts(1).build();
    CHECK(decide(*once, deadlock(), attempt(1), random).reason == DecisionReason::Exhausted);
    // Exhaustion is checked before the deadline.
    CHECK(decide(*policy, deadlock(), attempt(3, 1h), random).reason == DecisionReason::Exhausted);
}

TEST_CASE("step 6: the deadline, with exactly reaching it allowed", "[decision]") {
    const auto policy = PolicyBuilder("p")
                            .max_attempts(5)
                            .backoff(Backoff::fixed(1s))
                            .jitter(Jitter::none())
                            .deadline(3500ms)
                            .min_attempt_budget(500ms)
                            .build();
    ScriptedRandomSource random{0.5};
    // 2s + 1s + 500ms = 3.5s: exactly the deadline, allowed.
    CHECK(decide(*policy, deadlock(), attempt(2, 2s), random).reason == DecisionReason::Retry);
    // One microsecond later it is not.
    const Decision late = decide(*policy, deadlock(), attempt(2, 2s + 1us), random);
    CHECK(late.reason == DecisionReason::Deadline);
    CHECK_FALSE(late.retry);
    // An absurd elapsed time saturates instead of wrapping around.
    CHECK(decide(*policy, deadlock(), attempt(2, rebound::kDurationInfinity), random).reason ==
          DecisionReason::Deadline);
}

TEST_CASE("without a deadline no elapsed time stops a retry, even with a budget", "[decision]") {
    // The budget turns on the late steps (7 to 9); without a deadline, step 7 never stops, even
    // when elapsed + delay would overflow.
    const auto policy = PolicyBuilder("p")
                            .max_attempts(5)
                            .backoff(Backoff::fixed(rebound::kMaxPolicyDuration))
                            .jitter(Jitter::none())
                            .budget({100, 0.5})
                            .build();
    ScriptedRandomSource random{0.5};
    for (const rebound::Duration elapsed :
         {rebound::Duration{0}, rebound::kDurationInfinity - 1us, rebound::kDurationInfinity}) {
        CHECK(decide(*policy, deadlock(), attempt(2, elapsed), random).reason ==
              DecisionReason::Retry);
    }
}

TEST_CASE("the deadline stops exactly where elapsed + delay + min_attempt_budget passes it",
          "[decision]") {
    // Against the rule as written, in saturating arithmetic: deadlines and budgets from 0 to 30
    // days (a budget over the deadline included), elapsed times near the deadline and far past
    // it, up to kDurationInfinity.
    std::mt19937_64 generator(20261127);
    const auto up_to = [&](std::int64_t limit) {
        return rebound::Duration{
            static_cast<std::int64_t>(generator() % static_cast<std::uint64_t>(limit + 1))};
    };
    const std::int64_t month = rebound::kMaxPolicyDuration.count();
    for (int round = 0; round < 3000; ++round) {
        const bool near = round % 2 == 0;  // values within a few microseconds of one another
        const rebound::Duration deadline = near ? 1000us + up_to(8) : up_to(month);
        const rebound::Duration budget = near ? 990us + up_to(20) : up_to(month);
        const rebound::Duration delay = near ? up_to(8) : up_to(month);
        const auto policy = PolicyBuilder("p")
                                .max_attempts(3)
                                .backoff(Backoff::fixed(delay))
                                .jitter(Jitter::none())
                                .deadline(deadline)
                                .min_attempt_budget(budget)
                                .try_build()
                                .policy;
        if (!policy) {
            continue;  // a combination validation refuses
        }
        for (const rebound::Duration elapsed :
             {up_to(near ? 16 : month), rebound::kDurationInfinity - up_to(month),
              rebound::Duration{-1}}) {
            const rebound::Duration next_start = rebound::saturating_add(
                rebound::saturating_add(std::max(elapsed, rebound::Duration{0}), delay), budget);
            ScriptedRandomSource random{0.0};
            INFO("deadline " << deadline.count() << " budget " << budget.count() << " delay "
                             << delay.count() << " elapsed " << elapsed.count());
            REQUIRE(decide(*policy, deadlock(), attempt(1, elapsed), random).reason ==
                    (next_start > deadline ? DecisionReason::Deadline : DecisionReason::Retry));
        }
    }
}

TEST_CASE("the deadline check uses the jittered delay actually drawn", "[decision]") {
    const auto policy = interactive();  // equal jitter: retry 2 waits 50..100ms
    ScriptedRandomSource low{0.0};
    ScriptedRandomSource high{0.999999999};
    // 2800 + 50 + 100 = 2950 <= 3000; 2800 + 100 + 100 = 3000 <= 3000; 2801 + 100 + 100 > 3000.
    CHECK(decide(*policy, deadlock(), attempt(2, 2800ms), low).retry);
    CHECK(decide(*policy, deadlock(), attempt(2, 2800ms), high).retry);
    CHECK(decide(*policy, deadlock(), attempt(2, 2801ms), high).reason == DecisionReason::Deadline);
    // Conformance: ApproveCase, attempt 2 at 2950ms stops on the deadline whatever the draw.
    CHECK(decide(*policy, deadlock(), attempt(2, 2950ms), low).reason == DecisionReason::Deadline);
}

TEST_CASE("step 8: the budget throttles once half the tokens are gone", "[decision][budget]") {
    const auto policy =
        PolicyBuilder("p").max_attempts(10).jitter(Jitter::none()).budget({4, 0.5}).build();
    ScriptedRandomSource random{0.5};
    // 4 tokens, threshold 2: the first failure leaves 3 (> 2, retry), the second leaves 2
    // (throttled).
    CHECK(decide(*policy, deadlock(), attempt(1), random).reason == DecisionReason::Retry);
    CHECK(policy->budget()->tokens() == 3.0);
    CHECK(decide(*policy, deadlock(), attempt(1), random).reason == DecisionReason::Throttled);
    CHECK(policy->budget()->tokens() == 2.0);
    policy->record_success();
    CHECK(policy->budget()->tokens() == 2.5);
    // 2.5 - 1 = 1.5: still throttled; three successes bring 3.0, and 3.0 - 1 is not above 2.
    CHECK(decide(*policy, deadlock(), attempt(1), random).reason == DecisionReason::Throttled);
    policy->record_success();
    policy->record_success();
    policy->record_success();
    CHECK(policy->budget()->tokens() == 3.0);
    CHECK(decide(*policy, deadlock(), attempt(1), random).reason == DecisionReason::Throttled);
    CHECK(policy->budget()->tokens() == 2.0);
}

TEST_CASE("budget steps are only taken by failures that reach step 8", "[decision][budget]") {
    const auto policy = PolicyBuilder("p")
                            .max_attempts(2)
                            .jitter(Jitter::none())
                            .retry_on(Matcher::of_category(ErrorCategory::Deadlock))
                            .budget({10, 0.1})
                            .build();
    ScriptedRandomSource random{0.5};
    (void)decide(*policy, ErrorDescription::of(ErrorCategory::SyntaxError), attempt(1), random);
    (void)decide(*policy, deadlock(), attempt(2), random);  // exhausted
    CHECK(policy->budget()->tokens() == 10.0);
    (void)decide(*policy, deadlock(), attempt(1), random);
    CHECK(policy->budget()->tokens() == 9.0);
}

TEST_CASE("the retry budget caps tokens at max and never goes below zero", "[budget]") {
    rebound::RetryBudget budget({3, 1000.0});
    budget.record_success();
    CHECK(budget.tokens() == 3.0);
    for (int i = 0; i < 10; ++i) {
        (void)budget.record_failure_and_check();
    }
    CHECK(budget.tokens() == 0.0);
    budget.record_success();
    CHECK(budget.tokens() == 3.0);
    rebound::RetryBudget fine({1, 0.001});
    CHECK_FALSE(fine.record_failure_and_check());
    fine.record_success();
    CHECK(fine.tokens() == Approx(0.001));
}

TEST_CASE("step 9: the route is the first whose up_to covers the delay, else the last",
          "[decision]") {
    const auto policy = PolicyBuilder("p")
                            .max_attempts(6)
                            .backoff(Backoff::exponential(1s, 3.0, 1min))
                            .jitter(Jitter::none())
                            .route(10s, "retry.10s")
                            .route(30s, "retry.30s")
                            .build();
    ScriptedRandomSource random{0.5};
    CHECK(decide(*policy, deadlock(), attempt(1), random).route == "retry.10s");  // 1s
    CHECK(decide(*policy, deadlock(), attempt(3), random).route == "retry.10s");  // 9s
    CHECK(decide(*policy, deadlock(), attempt(4), random).route == "retry.30s");  // 27s
    CHECK(decide(*policy, deadlock(), attempt(5), random).route == "retry.30s");  // 60s: last
    CHECK(decide(*policy, deadlock(), attempt(6), random).route.empty());         // exhausted
}

TEST_CASE("decorrelated jitter uses the previous delay from the context", "[decision]") {
    const auto policy = PolicyBuilder("p")
                            .max_attempts(5)
                            .backoff(Backoff::exponential(100ms, 2.0, 10s))
                            .jitter(Jitter::decorrelated())
                            .build();
    ScriptedRandomSource random{0.999999999};
    AttemptContext c = attempt(1);
    const Decision first = decide(*policy, deadlock(), c, random);
    CHECK(first.delay == 300ms);
    c.attempt = 2;
    c.previous_delay = first.delay;
    CHECK(decide(*policy, deadlock(), c, random).delay == 900ms);
}

TEST_CASE("a fixed seed reproduces the same schedule", "[decision]") {
    const auto policy = PolicyBuilder("p").max_attempts(10).build();
    rebound::SeededRandomSource a(42);
    rebound::SeededRandomSource b(42);
    rebound::SeededRandomSource c(43);
    bool any_different = false;
    for (int n = 1; n < 10; ++n) {
        const auto da = decide(*policy, deadlock(), attempt(n), a);
        const auto db = decide(*policy, deadlock(), attempt(n), b);
        const auto dc = decide(*policy, deadlock(), attempt(n), c);
        CHECK(da.delay == db.delay);
        any_different = any_different || da.delay != dc.delay;
    }
    CHECK(any_different);
}

namespace {

ErrorDescription unavailable_with_hint(rebound::Duration hint) {
    ErrorDescription e = ErrorDescription::of(ErrorCategory::ServiceUnavailable);
    e.server_delay = hint;
    return e;
}

std::shared_ptr<const rebound::Policy> hinted(rebound::ServerDelaySettings settings) {
    return PolicyBuilder("hinted")
        .max_attempts(3)
        .backoff(Backoff::fixed(100ms))
        .jitter(Jitter::none())
        .retry_on(Matcher::transient())
        .server_delay(settings)
        .build();
}

}  // namespace

TEST_CASE("step 3: a server refusal stops even a retryable error and takes a budget token",
          "[decision][server_delay]") {
    const auto policy = PolicyBuilder("refused")
                            .retry_on(Matcher::transient())
                            .budget(rebound::BudgetSettings{10, 0.1})
                            .build();
    ScriptedRandomSource random{0.5};
    ErrorDescription e = ErrorDescription::of(ErrorCategory::ServiceUnavailable);
    e.server_refused = true;
    const Decision d = decide(*policy, e, attempt(1), random);
    CHECK_FALSE(d.retry);
    CHECK(d.reason == DecisionReason::ServerRefused);
    CHECK(to_string(d.reason) == "server_refused");
    CHECK(policy->budget()->tokens() == Approx(9.0));
    // never_retry_on still wins (step 1), and commit_outcome_unknown too (step 2).
    const auto excluded = PolicyBuilder("x").never_retry_on(Matcher::transient()).build();
    CHECK(decide(*excluded, e, attempt(1), random).reason == DecisionReason::NonRetryable);
}

TEST_CASE("step 6: a hint longer than the backoff delay wins, a shorter one changes nothing",
          "[decision][server_delay]") {
    const auto policy = hinted({});
    ScriptedRandomSource random{0.5};
    CHECK(decide(*policy, unavailable_with_hint(1500ms), attempt(1), random).delay == 1500ms);
    CHECK(decide(*policy, unavailable_with_hint(10ms), attempt(1), random).delay == 100ms);
    CHECK(decide(*policy, deadlock(), attempt(1), random).delay == 100ms);
}

TEST_CASE("step 6: a hint over the cap stops, waits the cap or is ignored, as over_cap says",
          "[decision][server_delay]") {
    ScriptedRandomSource random{0.5};
    rebound::ServerDelaySettings s;
    s.cap = 2s;
    const Decision stop = decide(*hinted(s), unavailable_with_hint(2500ms), attempt(1), random);
    CHECK_FALSE(stop.retry);
    CHECK(stop.reason == DecisionReason::ServerDelayTooLong);
    CHECK(decide(*hinted(s), unavailable_with_hint(2s), attempt(1), random).delay == 2s);
    s.over_cap = rebound::OverCapAction::Cap;
    CHECK(decide(*hinted(s), unavailable_with_hint(1h), attempt(1), random).delay == 2s);
    s.over_cap = rebound::OverCapAction::Ignore;
    CHECK(decide(*hinted(s), unavailable_with_hint(1h), attempt(1), random).delay == 100ms);
}

TEST_CASE("step 6: the backoff's max never clamps a hint, and use: ignore drops it",
          "[decision][server_delay]") {
    ScriptedRandomSource random{0.5};
    const auto capped = PolicyBuilder("capped")
                            .backoff(Backoff::exponential(10ms, 2.0, 30ms))
                            .jitter(Jitter::none())
                            .build();
    CHECK(decide(*capped, unavailable_with_hint(90s), attempt(1), random).delay == 90s);
    rebound::ServerDelaySettings s;
    s.use = rebound::ServerDelayUse::Ignore;
    CHECK(decide(*hinted(s), unavailable_with_hint(1s), attempt(1), random).delay == 100ms);
}

TEST_CASE("step 6: spread draws the hint from [h, h * (1 + spread)]", "[decision][server_delay]") {
    rebound::ServerDelaySettings s;
    s.spread = 0.1;
    ScriptedRandomSource lowest{0.0};
    CHECK(decide(*hinted(s), unavailable_with_hint(1s), attempt(1), lowest).delay == 1s);
    ScriptedRandomSource highest{0.999999999};
    CHECK(decide(*hinted(s), unavailable_with_hint(1s), attempt(1), highest).delay == 1100ms);
}

TEST_CASE(
    "step 6: a breaker hint applies whatever use says, uncapped, and the deadline still rules",
    "[decision][server_delay]") {
    rebound::ServerDelaySettings s;
    s.use = rebound::ServerDelayUse::Ignore;
    s.cap = 1s;
    ErrorDescription refusal = ErrorDescription::of(ErrorCategory::CircuitOpen);
    refusal.server_delay = 5s;
    ScriptedRandomSource random{0.5};
    CHECK(decide(*hinted(s), refusal, attempt(1), random).delay == 5s);
    const auto short_deadline =
        PolicyBuilder("fast").retry_on(Matcher::transient()).deadline(2s).build();
    CHECK(decide(*short_deadline, refusal, attempt(1), random).reason == DecisionReason::Deadline);
}

namespace {

void check_same_decision(const Decision& a, const Decision& b) {
    CHECK(a.retry == b.retry);
    CHECK(a.reason == b.reason);
    CHECK(a.delay == b.delay);
    CHECK(a.next_attempt == b.next_attempt);
    CHECK(a.category == b.category);
    CHECK(a.matched == b.matched);
    CHECK(a.route == b.route);
}

}  // namespace

TEST_CASE("the path without calls decides as the path with calls", "[decision]") {
    // Policies that decide without calls: category rules only, no draw, no late step. The backoff
    // caps below some bases, so that the delay's clamp is exercised too.
    const std::vector<std::shared_ptr<const rebound::Policy>> policies{
        PolicyBuilder("exponential")
            .max_attempts(6)
            .backoff(Backoff::exponential(40ms, 3.0, 500ms))
            .jitter(Jitter::none())
            .retry_on(Matcher::of_category(ErrorCategory::Deadlock))
            .retry_on(Matcher::transient())
            .never_retry_on(Matcher::of_category(ErrorCategory::LockTimeout))
            .build(),
        PolicyBuilder("fixed_retrying_everything")
            .max_attempts(3)
            .backoff(Backoff::fixed(70ms))
            .jitter(Jitter::none())
            .never_retry_on(Matcher::of_category(ErrorCategory::SyntaxError))
            .build(),
        PolicyBuilder("one_attempt").max_attempts(1).jitter(Jitter::none()).build(),
        PolicyBuilder("no_backoff")
            .max_attempts(4)
            .backoff(Backoff::none())
            .jitter(Jitter::full())  // a range of one point, [0, 0]: nothing to draw
            .retry_on(Matcher::of_category(ErrorCategory::ConnectionLost))
            .build(),
    };
    ScriptedRandomSource random{0.5};
    for (const auto& policy : policies) {
        INFO("policy " << policy->name());
        for (const auto& entry : rebound::kCategoryTable) {
            const ErrorDescription error = ErrorDescription::of(entry.category);
            REQUIRE(policy->decides_without_calls(error));
            for (int n = 0; n <= 7; ++n) {
                for (const bool idempotent : {false, true}) {
                    INFO(entry.wire_name << ", attempt " << n << ", idempotent " << idempotent);
                    AttemptContext context = attempt(n);
                    context.idempotent = idempotent;
                    check_same_decision(
                        rebound::detail::decide_without_calls(*policy, error, context),
                        rebound::detail::decide_with_calls(*policy, error, context, random));
                }
            }
        }
    }
}

TEST_CASE("only decisions that call nothing take the path without calls", "[decision]") {
    const auto plain = [] {
        return PolicyBuilder("plain")
            .max_attempts(3)
            .backoff(Backoff::fixed(10ms))
            .jitter(Jitter::none())
            .retry_on(Matcher::of_category(ErrorCategory::Deadlock));
    };
    CHECK(plain().build()->decides_without_calls(deadlock()));

    ErrorDescription with_hint = deadlock();
    with_hint.server_delay = 50ms;
    CHECK_FALSE(plain().build()->decides_without_calls(with_hint));
    ErrorDescription refused = deadlock();
    refused.server_refused = true;
    CHECK_FALSE(plain().build()->decides_without_calls(refused));

    CHECK_FALSE(plain().jitter(Jitter::full()).build()->decides_without_calls(deadlock()));
    CHECK_FALSE(plain()
                    .backoff(Backoff::exponential(10ms))
                    .jitter(Jitter::decorrelated())
                    .build()
                    ->decides_without_calls(deadlock()));
    CHECK_FALSE(plain().deadline(1s).build()->decides_without_calls(deadlock()));
    CHECK_FALSE(plain()
                    .budget(rebound::BudgetSettings{.max_tokens = 10, .token_ratio = 0.1})
                    .build()
                    ->decides_without_calls(deadlock()));
    CHECK_FALSE(plain().retry_if("custom").build()->decides_without_calls(deadlock()));
    CHECK_FALSE(
        plain().retry_on(Matcher::sqlstate("40001")).build()->decides_without_calls(deadlock()));
    CHECK_FALSE(plain()
                    .never_retry_on(Matcher::error_type("io.timeout"))
                    .build()
                    ->decides_without_calls(deadlock()));
}
