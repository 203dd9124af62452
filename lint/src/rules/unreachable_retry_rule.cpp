// RB311 unreachable-retry-rule: a retry_on entry that a never_retry_on entry always wins over
// (docs/semantics.md: step 1 runs before step 3), so it can never cause a retry.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const std::vector<LocatedMatcher> excludes = never_retry_on_entries(p);
        for (const LocatedMatcher& include : retry_on_entries(p)) {
            for (const LocatedMatcher& exclude : excludes) {
                if (!covers(*exclude.matcher, *include.matcher)) {
                    continue;
                }
                reporter.report(include.position,
                                "retry_on entry '" + include.matcher->to_string() +
                                    "' of policy '" + p.name() +
                                    "' can never cause a retry: never_retry_on entry '" +
                                    exclude.matcher->to_string() + "' (line " +
                                    std::to_string(exclude.position.line) +
                                    ") excludes every error it matches, and exclusions win",
                                "remove one of the two entries");
                break;
            }
        }
    }
}

}  // namespace

const Rule kUnreachableRetryRule{
    RuleInfo{"RB311", "unreachable-retry-rule", Severity::Warning, RuleOrigin::Semantic,
             "a retry_on entry that a never_retry_on entry always wins over",
             "never_retry_on is checked before retry_on, so an include that an exclude covers "
             "completely (the same category, a SQLSTATE inside an excluded class, a subtype of an "
             "excluded error type) never retries anything. One of the two entries is a mistake."},
    check};

}  // namespace rebound::lint::rules
