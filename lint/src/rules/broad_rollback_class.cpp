// RB325 broad-rollback-class: retry_on names SQLSTATE class 40 (transaction rollback) as a whole.
// The class holds the retryable 40001 (serialization failure) and 40P01 (deadlock), but also
// 40002, an integrity constraint violation found at commit, which fails again on every retry.
// The vendor maps classify 40002 as constraint_violation, so excluding that category (or 40002)
// makes the class safe.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    const Matcher commit_violation = Matcher::sqlstate("40002");
    const Matcher constraint = Matcher::of_category(ErrorCategory::ConstraintViolation);
    for (const ResolvedPolicy& p : file.policies()) {
        if (p.spec().max_attempts < 2 || excluded(p, commit_violation) || excluded(p, constraint)) {
            continue;
        }
        for (const LocatedMatcher& entry : retry_on_entries(p)) {
            const Matcher& m = *entry.matcher;
            if (m.kind != MatcherKind::SqlStateClass || m.text != "40" || excluded(p, m)) {
                continue;
            }
            reporter.report(entry.position,
                            "policy '" + p.name() +
                                "' retries all of SQLSTATE class 40 (transaction rollback), "
                                "which includes 40002, an integrity constraint violation found "
                                "at commit: it fails the same way on every retry",
                            "retry deadlock and serialization_failure (40P01, 40001) instead, "
                            "or add constraint_violation to never_retry_on");
        }
    }
}

}  // namespace

const Rule kBroadRollbackClass{
    RuleInfo{"RB325", "broad-rollback-class", Severity::Warning, RuleOrigin::Semantic,
             "retry_on names SQLSTATE class 40 without excluding its constraint violation",
             "Class 40 is every transaction rollback, not only the deadlocks and serialization "
             "failures that heal: 40002 is a constraint violation detected at commit. Retrying "
             "the whole class retries that too. Name the rollbacks that heal, or exclude "
             "constraint_violation."},
    check};

}  // namespace rebound::lint::rules
