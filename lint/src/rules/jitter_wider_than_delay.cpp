// RB310 jitter-wider-than-delay: bounded jitter whose amount exceeds the base delay it
// randomises. The wait then ranges from 0 to several times the delay: the backoff no longer
// shapes it.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (spec.jitter.type != JitterType::Bounded) {
            continue;
        }
        for (const ScheduleRow& row : retry_schedule(spec)) {
            if (spec.jitter.amount <= row.base) {
                continue;
            }
            reporter.report(jitter_position(p),
                            "bounded jitter +-" + duration_text(spec.jitter.amount) +
                                " is wider than the " + duration_text(row.base) +
                                " base delay of retry " + std::to_string(row.retry) +
                                " in policy '" + p.name() + "': that wait ranges over " +
                                duration_text(row.min) + " to " + duration_text(row.max) +
                                ", so the backoff no longer shapes it",
                            "use an amount of at most " + duration_text(row.base) +
                                ", or proportional jitter such as 20%");
            break;
        }
    }
}

}  // namespace

const Rule kJitterWiderThanDelay{
    RuleInfo{"RB310", "jitter-wider-than-delay", Severity::Warning, RuleOrigin::Semantic,
             "bounded jitter wider than the delay it randomises",
             "Bounded jitter draws from [delay - amount, delay + amount], cut at 0. With an "
             "amount above the delay, short waits become anything from 0 to several times the "
             "delay, and the first retries no longer back off. Keep the amount below the "
             "smallest delay, or use proportional jitter."},
    check};

}  // namespace rebound::lint::rules
