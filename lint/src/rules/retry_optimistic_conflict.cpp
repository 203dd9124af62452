// RB324 retry-optimistic-conflict: retry_on names `optimistic_conflict`. The application's version
// check failed because someone else changed the data since it was read; retrying re-reads and
// goes ahead, overriding a decision the user or the other writer made. The conflict is a result
// to surface, not a transient failure.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        for (const LocatedMatcher& entry :
             retried_category_entries(p, ErrorCategory::OptimisticConflict)) {
            reporter.report(entry.position,
                            "policy '" + p.name() +
                                "' retries 'optimistic_conflict': the version check failed "
                                "because the data changed since it was read, and a retry acts "
                                "on the new state without asking, hiding the conflict from the "
                                "caller",
                            "let the conflict reach the caller; only deterministic background "
                            "work may reload and retry, in a policy of its own");
        }
    }
}

}  // namespace

const Rule kRetryOptimisticConflict{
    RuleInfo{"RB324", "retry-optimistic-conflict", Severity::Warning, RuleOrigin::Semantic,
             "retry_on names optimistic_conflict, a business conflict",
             "An optimistic conflict says another writer changed the record since it was read. "
             "Retrying reloads and applies the change anyway, so a user's decision is made "
             "against data they never saw. Return the conflict instead; reload-and-retry is "
             "for deterministic background work only."},
    check};

}  // namespace rebound::lint::rules
