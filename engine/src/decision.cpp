#include "rebound/decision.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "rule_index_find.hpp"

namespace rebound {
namespace {

// decide() builds its result only at the end: stores into the caller's Decision before the
// budget's compare-and-swap would have to drain from the store buffer first (a locked
// instruction waits for earlier stores), which cost several nanoseconds per budgeted decision.
Decision stop(ErrorCategory category, std::string_view matched, DecisionReason reason) noexcept {
    Decision decision;
    decision.reason = reason;
    decision.category = category;
    decision.matched = matched;
    return decision;
}

// Step 4 for an error no retry_on rule matched: the index of the first retry_if predicate that
// admits it, or RuleMatch::kNone.
std::uint32_t admitting_predicate(const Policy& policy, const ErrorDescription& error) noexcept {
    const auto& predicates = policy.predicates();
    for (std::size_t i = 0; i < predicates.size(); ++i) {
        if (predicates[i] && predicates[i](error)) {
            return static_cast<std::uint32_t>(i);
        }
    }
    return RuleMatch::kNone;
}

std::string_view choose_route(const std::vector<Route>& routes, Duration delay) noexcept {
    if (routes.empty()) {
        return {};
    }
    const auto it = std::find_if(routes.begin(), routes.end(),
                                 [delay](const Route& r) { return r.up_to >= delay; });
    return it != routes.end() ? std::string_view(it->target)
                              : std::string_view(routes.back().target);
}

}  // namespace

// The decision steps of docs/semantics.md, stated once for both of decide()'s paths. The common
// path (a retry without a hint, under a policy without a deadline, budget or routes) is kept short:
// the matched rule's text is looked up only when the result is built, so one pointer to it is all
// that crosses the random draw; table reads skip the checks that RuleIndex and step 5 already
// guarantee; steps 7 to 9 are one test when the policy has none of them.
//
// kMayCall false is the path without calls (Policy::decides_without_calls): the steps that would
// call out (the search beyond categories, retry_if predicates, the budget, the random draw, the
// hint) cannot apply there and are compiled out, so that the compiler builds that path without
// saving and restoring registers, about a quarter of a jitter-free decision's instructions
// (docs/performance.md, Decision).
class DecisionSteps {
  public:
    // `random` is null without calls.
    template <bool kMayCall>
    static Decision run(const Policy& policy, const ErrorDescription& error,
                        const AttemptContext& context, RandomSource* random) noexcept;
};

template <bool kMayCall>
[[gnu::always_inline]] inline Decision DecisionSteps::run(const Policy& policy,
                                                          const ErrorDescription& error,
                                                          const AttemptContext& context,
                                                          RandomSource* random) noexcept {
    const PolicySpec& spec = policy.spec_;
    const ErrorCategory category = error.effective_category();

    const RuleMatch match =
        kMayCall ? policy.rules_.find_inline(error) : policy.rules_.find_by_category(error);
    if (match.never_retry_on != RuleMatch::kNone) {
        return stop(category, policy.never_retry_on_text(match.never_retry_on),
                    DecisionReason::NonRetryable);
    }
    if (category == ErrorCategory::CommitOutcomeUnknown && !context.idempotent) {
        return stop(category, {}, DecisionReason::OutcomeUnknown);
    }
    if constexpr (kMayCall) {
        if (error.server_refused) {
            if (RetryBudget* budget = policy.budget(); budget != nullptr) {
                static_cast<void>(budget->record_failure_and_check());  // counts as a failure
            }
            return stop(category, {}, DecisionReason::ServerRefused);
        }
    }
    // Step 4: the text of the retry_on rule or retry_if predicate that admits the error; none
    // without include rules (match.retry_on is then kNone: retry_on is empty). A pointer, so that
    // one register carries it across the random draw; RuleIndex reports only indices of the
    // policy's own retry_on rules, and predicate indices are those of retry_if.
    const std::string* matched_text = nullptr;
    if (match.retry_on != RuleMatch::kNone) {
        matched_text = &policy.retry_on_texts_[match.retry_on];
    } else if (policy.has_include_rules_) {
        const std::uint32_t predicate =
            kMayCall ? admitting_predicate(policy, error) : RuleMatch::kNone;  // no retry_if
        if (predicate == RuleMatch::kNone) {
            return stop(category, {}, DecisionReason::NonRetryable);
        }
        matched_text = &policy.retry_if_texts_[predicate];
    }
    const auto matched = [matched_text]() noexcept {
        return matched_text != nullptr ? std::string_view(*matched_text) : std::string_view{};
    };
    const int attempt = std::max(context.attempt, 1);
    if (attempt >= spec.max_attempts) {
        return stop(category, matched(), DecisionReason::Exhausted);
    }
    // 1 <= attempt < max_attempts: retries_ holds max_attempts - 1 entries. Without calls, the
    // range is one point, which is what the draw would give.
    const Policy::RetryDelay& retry = policy.retries_[static_cast<std::size_t>(attempt) - 1];
    Duration delay = kMayCall ? policy.draw_delay(retry, context.previous_delay, *random)
                              : std::min(retry.draw.min, policy.delay_cap_);
    std::string_view route;
    if constexpr (kMayCall) {
        if (error.server_delay && !combine_server_delay(spec.server_delay, error, delay, *random)) {
            return stop(category, matched(), DecisionReason::ServerDelayTooLong);
        }
        if (policy.has_late_steps_) {
            // elapsed + delay + min_attempt_budget > deadline, with the policy's side precomputed
            // (Policy::retry_start_limit_). Unsigned: both terms are at least 0, so the sum
            // cannot wrap, and no add can saturate.
            const auto elapsed =
                static_cast<std::uint64_t>(std::max(context.elapsed.count(), std::int64_t{0}));
            if (elapsed + static_cast<std::uint64_t>(delay.count()) >= policy.retry_start_limit_) {
                return stop(category, matched(), DecisionReason::Deadline);
            }
            if (RetryBudget* budget = policy.budget();
                budget != nullptr && !budget->record_failure_and_check()) {
                return stop(category, matched(), DecisionReason::Throttled);
            }
            route = choose_route(spec.routes, delay);
        }
    }
    Decision decision;
    decision.retry = true;
    decision.reason = DecisionReason::Retry;
    decision.delay = delay;
    decision.next_attempt = attempt + 1;
    decision.category = category;
    decision.matched = matched();
    decision.route = route;
    return decision;
}

namespace detail {

Decision decide_without_calls(const Policy& policy, const ErrorDescription& error,
                              const AttemptContext& context) noexcept {
    return DecisionSteps::run<false>(policy, error, context, nullptr);
}

Decision decide_with_calls(const Policy& policy, const ErrorDescription& error,
                           const AttemptContext& context, RandomSource& random) noexcept {
    return DecisionSteps::run<true>(policy, error, context, &random);
}

}  // namespace detail

}  // namespace rebound
