// RB307 min-budget-exceeds-deadline: min_attempt_budget at or above the deadline. A retry needs
// that much of the deadline left after its wait, which never happens: no retry ever starts.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (!spec.deadline || spec.max_attempts < 2 || spec.min_attempt_budget < *spec.deadline) {
            continue;
        }
        reporter.report(
            position_or(p.fields.duration(PolicyField::MinAttemptBudget), p.name_position()),
            "min_attempt_budget " + duration_text(spec.min_attempt_budget) +
                " is at or above deadline " + duration_text(*spec.deadline) + " in policy '" +
                p.name() + "': a retry needs that much time left after its wait, so none of its " +
                count_of(static_cast<std::size_t>(spec.max_attempts - 1), "retry", "retries") +
                " can ever start",
            "make min_attempt_budget smaller than the deadline, such as " +
                duration_text(*spec.deadline / 10));
    }
}

}  // namespace

const Rule kMinBudgetExceedsDeadline{
    RuleInfo{"RB307", "min-budget-exceeds-deadline", Severity::Error, RuleOrigin::Semantic,
             "min_attempt_budget at or above the deadline: no retry can ever start",
             "The decision refuses a retry unless min_attempt_budget is left before the deadline "
             "after the wait. When the budget is as long as the deadline itself that is never "
             "true, so the policy never retries whatever max_attempts says."},
    check};

}  // namespace rebound::lint::rules
