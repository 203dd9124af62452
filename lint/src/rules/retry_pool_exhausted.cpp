// RB305 retry-pool-exhausted: retry_on names `pool_exhausted`. The pool is saturated; retrying
// asks it for more connections and lengthens the queue that caused the error.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        for (const LocatedMatcher& entry :
             retried_category_entries(p, ErrorCategory::PoolExhausted)) {
            reporter.report(
                entry.position,
                "policy '" + p.name() +
                    "' retries 'pool_exhausted': the connection pool is already saturated, and "
                    "with " +
                    count_of(static_cast<std::size_t>(spec.max_attempts - 1), "retry", "retries") +
                    " every failed call asks it for a connection up to " +
                    std::to_string(spec.max_attempts) +
                    " times, adding load where there is none "
                    "to spare",
                "fail fast (or shed load) on pool_exhausted; size the pool instead");
        }
    }
}

}  // namespace

const Rule kRetryPoolExhausted{
    RuleInfo{"RB305", "retry-pool-exhausted", Severity::Warning, RuleOrigin::Semantic,
             "retry_on names pool_exhausted, which adds load to a saturated pool",
             "pool_exhausted means every connection is busy and callers are already queueing. "
             "Retries put the same callers back in the queue, so the pool stays saturated "
             "longer (a retry storm). Fail fast and let the caller back off or shed load."},
    check};

}  // namespace rebound::lint::rules
