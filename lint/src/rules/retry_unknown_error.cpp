// RB332 retry-unknown-error: retry_on lists the category `unknown`, which every error gets that
// nothing recognised (docs/categories.md). Rebound fails closed on such errors; listing `unknown`
// turns that into a catch-all for whatever the classifiers do not know: new bugs, unmapped
// permanent errors, failures of the application itself.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        for (const LocatedMatcher& entry : retried_category_entries(p, ErrorCategory::Unknown)) {
            reporter.report(
                entry.position,
                "policy '" + p.name() +
                    "' retries 'unknown', the category of every error nothing "
                    "recognised: bugs and permanent errors that no vendor map or "
                    "classifier knows are retried " +
                    count_of(static_cast<std::size_t>(p.spec().max_attempts - 1), "time", "times"),
                "classify the errors that heal (a FailureClassifier, an exception "
                "classifier or a vendor map entry) and retry their categories");
        }
    }
}

}  // namespace

const Rule kRetryUnknownError{
    RuleInfo{"RB332", "retry-unknown-error", Severity::Warning, RuleOrigin::Semantic,
             "retry_on lists 'unknown', the category of errors nothing recognised",
             "An error is 'unknown' when no vendor map, classifier or code gave it a category. "
             "Most such errors are bugs or permanent failures, and retrying them is the 'retry "
             "everything' anti-pattern for whatever has not been classified. Classify the "
             "errors that do heal and retry those."},
    check};

}  // namespace rebound::lint::rules
