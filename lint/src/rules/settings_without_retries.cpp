// RB321 settings-without-retries: a policy that makes one attempt (max_attempts 1, max_retries 0)
// but states its own backoff, jitter, min_attempt_budget, budget or routes. Those only shape
// retries (docs/semantics.md, steps 5 to 8), so they never apply: either the policy was meant to
// retry, or the settings are leftovers that mislead the reader.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        if (p.spec().max_attempts != 1) {
            continue;
        }
        // Only what the policy writes itself: inherited settings belong to the parent or to
        // `defaults`, where they do apply to other policies.
        const dsl::PolicyFields& own = p.node->fields;
        std::vector<std::string> names;
        SourcePosition first;
        const auto note = [&](bool present, std::string_view name, SourcePosition at) {
            if (!present) {
                return;
            }
            if (names.empty()) {
                first = at;
            }
            names.emplace_back(name);
        };
        note(own.backoff.has_value(), "backoff", own.backoff ? own.backoff->position : first);
        note(own.jitter.has_value(), "jitter", own.jitter ? own.jitter->position : first);
        const dsl::Field<Duration> min_budget = own.duration(PolicyField::MinAttemptBudget);
        note(min_budget.has_value(), "min_attempt_budget", position_or(min_budget, first));
        note(own.budget.has_value(), "budget", own.budget ? own.budget->position : first);
        note(own.routes.has_value(), "routes", own.routes ? own.routes->position : first);
        if (names.empty()) {
            continue;
        }
        std::string listed;
        for (std::size_t i = 0; i < names.size(); ++i) {
            listed += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
        }
        const SourcePosition attempts = attempts_position(p);
        reporter.report(first,
                        "policy '" + p.name() + "' makes a single attempt (line " +
                            std::to_string(attempts.line) + "), so its " + listed +
                            (names.size() == 1 ? " never applies" : " never apply") +
                            ": they only shape retries",
                        "remove them, or allow the retries they were written for");
    }
}

}  // namespace

const Rule kSettingsWithoutRetries{
    RuleInfo{"RB321", "settings-without-retries", Severity::Warning, RuleOrigin::Semantic,
             "a single-attempt policy that sets backoff, jitter, min_attempt_budget, budget or "
             "routes",
             "Backoff, jitter, min_attempt_budget, budget and routes only act on retries. In a "
             "policy with max_attempts 1 they do nothing, yet a reader (and a dashboard built "
             "from the file) assumes the policy retries. Either the attempt count or the "
             "settings are a mistake."},
    check};

}  // namespace rebound::lint::rules
