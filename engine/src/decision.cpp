#include "rebound/decision.hpp"

#include <algorithm>

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

// Step 6: combines `delay` (the jittered backoff) with the error's hint, in place. Returns false
// when the hint is over the cap and the policy says to stop. Not std::optional<Duration>: GCC
// builds the optional with an 8-byte and a 1-byte store and reads it back with one 16-byte load,
// a store-forwarding stall that cost about 14 ns per decision (docs/performance.md).
bool combine_with_hint(const ServerDelaySettings& settings, const ErrorDescription& error,
                       Duration& delay, RandomSource& random) noexcept {
    Duration hint = std::max(*error.server_delay, Duration{0});
    if (error.category == ErrorCategory::CircuitOpen) {
        delay = std::max(delay, hint);  // the breaker's own knowledge: always, uncapped
        return true;
    }
    if (settings.use == ServerDelayUse::Ignore) {
        return true;
    }
    if (hint > settings.cap) {
        switch (settings.over_cap) {
            case OverCapAction::Stop:
                return false;
            case OverCapAction::Ignore:
                return true;
            case OverCapAction::Cap:
                hint = settings.cap;
                break;
        }
    }
    if (settings.spread > 0.0) {
        const Duration widest = saturating_scale(hint, 1.0 + settings.spread, kDurationInfinity);
        hint = Duration{uniform_between(random, hint.count(), widest.count())};
    }
    delay = std::max(delay, hint);
    return true;
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
    const ErrorCategory category = error.effective_category();
    std::string_view matched;

    const RuleMatch match = policy.rules().find(error);
    if (match.never_retry_on != RuleMatch::kNone) {
        return stop(category, policy.never_retry_on_text(match.never_retry_on),
                    DecisionReason::NonRetryable);
    }
    if (category == ErrorCategory::CommitOutcomeUnknown && !context.idempotent) {
        return stop(category, matched, DecisionReason::OutcomeUnknown);
    }
    if (error.server_refused) {
        if (RetryBudget* budget = policy.budget(); budget != nullptr) {
            static_cast<void>(budget->record_failure_and_check());  // counts as a failure
        }
        return stop(category, matched, DecisionReason::ServerRefused);
    }
    if (policy.has_include_rules()) {
        if (match.retry_on != RuleMatch::kNone) {
            matched = policy.retry_on_text(match.retry_on);
        } else if (!admitted_by_predicate(policy, error, matched)) {
            return stop(category, matched, DecisionReason::NonRetryable);
        }
    }
    if (attempt >= spec.max_attempts) {
        return stop(category, matched, DecisionReason::Exhausted);
    }
    Duration delay = policy.retry_delay(attempt, context.previous_delay, random);
    if (error.server_delay && !combine_with_hint(spec.server_delay, error, delay, random)) {
        return stop(category, matched, DecisionReason::ServerDelayTooLong);
    }
    if (spec.deadline) {
        const Duration elapsed = std::max(context.elapsed, Duration{0});
        const Duration next_start =
            saturating_add(saturating_add(elapsed, delay), spec.min_attempt_budget);
        if (next_start > *spec.deadline) {
            return stop(category, matched, DecisionReason::Deadline);
        }
    }
    if (RetryBudget* budget = policy.budget();
        budget != nullptr && !budget->record_failure_and_check()) {
        return stop(category, matched, DecisionReason::Throttled);
    }
    Decision decision;
    decision.retry = true;
    decision.reason = DecisionReason::Retry;
    decision.delay = delay;
    decision.next_attempt = attempt + 1;
    decision.category = category;
    decision.matched = matched;
    decision.route = choose_route(spec.routes, delay);
    return decision;
}

}  // namespace rebound
