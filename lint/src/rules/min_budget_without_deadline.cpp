// RB322 min-budget-without-deadline: min_attempt_budget is the time that must be left before the
// deadline for a retry to start (docs/semantics.md, step 6). Without a deadline it is never
// compared with anything, so the protection it promises does not exist.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (spec.deadline || spec.min_attempt_budget == Duration::zero() || spec.max_attempts < 2) {
            continue;
        }
        reporter.report(
            position_or(p.fields.duration(PolicyField::MinAttemptBudget), p.name_position()),
            "policy '" + p.name() + "' has min_attempt_budget " +
                duration_text(spec.min_attempt_budget) +
                " but no deadline: the budget is what must be left of the deadline "
                "for a retry to start, so without one it never stops a retry",
            "set a deadline, or remove min_attempt_budget");
    }
}

}  // namespace

const Rule kMinBudgetWithoutDeadline{
    RuleInfo{"RB322", "min-budget-without-deadline", Severity::Warning, RuleOrigin::Semantic,
             "min_attempt_budget in a policy without a deadline",
             "min_attempt_budget stops a retry that could not finish before the deadline. A "
             "policy without a deadline never compares it with anything, so retries start no "
             "matter how little time the caller has left. Give the policy a deadline."},
    check};

}  // namespace rebound::lint::rules
