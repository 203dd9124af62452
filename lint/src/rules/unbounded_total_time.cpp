// RB309 unbounded-total-time: no deadline, and the worst case of all attempts and waits is over
// an hour. Whoever waits for the result waits that long.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

constexpr Duration kLimit = std::chrono::hours(1);

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (spec.deadline || !retries_after_backoff(p)) {
            continue;
        }
        const std::vector<ScheduleRow> schedule = retry_schedule(spec);
        const Duration waits = schedule.back().cumulative_max;
        Duration total = waits;
        std::string parts = "waits up to " + duration_text(waits);
        if (spec.attempt_timeout) {
            const Duration attempts = *spec.attempt_timeout * spec.max_attempts;
            total = saturating_add(total, attempts);
            parts += ", plus " + std::to_string(spec.max_attempts) + " x attempt_timeout " +
                     duration_text(*spec.attempt_timeout);
        } else {
            parts += ", plus the attempts themselves, which have no attempt_timeout";
        }
        if (total <= kLimit) {
            continue;
        }
        reporter.report(attempts_position(p),
                        "policy '" + p.name() + "' has no deadline and its " +
                            std::to_string(spec.max_attempts) + " attempts can take " +
                            duration_text(total) + " in the worst case (" + parts + ")",
                        "set a deadline, or fewer attempts");
    }
}

}  // namespace

const Rule kUnboundedTotalTime{
    RuleInfo{"RB309", "unbounded-total-time", Severity::Warning, RuleOrigin::Semantic,
             "many attempts without a deadline: the worst case is over an hour",
             "Without a deadline the only bound on a call is the sum of every wait and every "
             "attempt. Over an hour, callers, locks and connections are held far longer than "
             "anyone expects. A deadline bounds the whole call."},
    check};

}  // namespace rebound::lint::rules
