#include "rebound/decision.hpp"

#include <algorithm>

namespace rebound {
namespace {

Decision stop(Decision decision, DecisionReason reason) noexcept {
    decision.retry = false;
    decision.reason = reason;
    decision.delay = Duration{0};
    decision.next_attempt = 0;
    return decision;
}

// Step 3 for an error no retry_on rule matched: the first retry_if predicate that admits it, or
// false. Sets `matched` to the predicate's text.
bool admitted_by_predicate(const Policy& policy, const ErrorDescription& error,
                           std::string_view& matched) noexcept {
    const auto& predicates = policy.predicates();
    for (std::size_t i = 0; i < predicates.size(); ++i) {
        if (predicates[i] && predicates[i](error)) {
            matched = policy.retry_if_text(i);
            return true;
        }
    }
    return false;
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

Decision decide(const Policy& policy, const ErrorDescription& error, const AttemptContext& context,
                RandomSource& random) noexcept {
    const PolicySpec& spec = policy.spec();
    const int attempt = std::max(context.attempt, 1);
    Decision decision;
    decision.category = error.effective_category();

    const RuleMatch match = policy.rules().find(error);
    if (match.never_retry_on != RuleMatch::kNone) {
        decision.matched = policy.never_retry_on_text(match.never_retry_on);
        return stop(decision, DecisionReason::NonRetryable);
    }
    if (decision.category == ErrorCategory::CommitOutcomeUnknown && !context.idempotent) {
        return stop(decision, DecisionReason::OutcomeUnknown);
    }
    if (policy.has_include_rules()) {
        if (match.retry_on != RuleMatch::kNone) {
            decision.matched = policy.retry_on_text(match.retry_on);
        } else if (!admitted_by_predicate(policy, error, decision.matched)) {
            return stop(decision, DecisionReason::NonRetryable);
        }
    }
    if (attempt >= spec.max_attempts) {
        return stop(decision, DecisionReason::Exhausted);
    }
    const Duration delay = policy.retry_delay(attempt, context.previous_delay, random);
    if (spec.deadline) {
        const Duration elapsed = std::max(context.elapsed, Duration{0});
        const Duration next_start =
            saturating_add(saturating_add(elapsed, delay), spec.min_attempt_budget);
        if (next_start > *spec.deadline) {
            return stop(decision, DecisionReason::Deadline);
        }
    }
    if (RetryBudget* budget = policy.budget();
        budget != nullptr && !budget->record_failure_and_check()) {
        return stop(decision, DecisionReason::Throttled);
    }
    decision.retry = true;
    decision.reason = DecisionReason::Retry;
    decision.delay = delay;
    decision.next_attempt = attempt + 1;
    decision.route = choose_route(spec.routes, delay);
    return decision;
}

}  // namespace rebound
