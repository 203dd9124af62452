// RB308 attempt-timeout-exceeds-deadline: attempt_timeout above the deadline. One attempt may
// outlive the whole budget, so the per-attempt limit (the ODBC query timeout) never applies.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (!spec.deadline || !spec.attempt_timeout || *spec.attempt_timeout <= *spec.deadline) {
            continue;
        }
        reporter.report(
            position_or(p.fields.duration(PolicyField::AttemptTimeout), p.name_position()),
            "attempt_timeout " + duration_text(*spec.attempt_timeout) + " is above deadline " +
                duration_text(*spec.deadline) + " in policy '" + p.name() +
                "': the first attempt alone may run " +
                duration_text(*spec.attempt_timeout - *spec.deadline) +
                " past the deadline, so the per-attempt limit never takes effect",
            "set attempt_timeout to at most " + duration_text(*spec.deadline));
    }
}

}  // namespace

const Rule kAttemptTimeoutExceedsDeadline{
    RuleInfo{"RB308", "attempt-timeout-exceeds-deadline", Severity::Warning, RuleOrigin::Semantic,
             "attempt_timeout above the deadline",
             "attempt_timeout is handed to the work (the ODBC adapter sets the query timeout "
             "from it). Above the deadline it cannot stop an attempt before the deadline passes, "
             "so callers wait longer than the deadline promises."},
    check};

}  // namespace rebound::lint::rules
