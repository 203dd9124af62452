// RB320 unthrottled-retries: more attempts than the configured maximum (5 by default, the largest
// tier of the seeds; the Google SRE book allows 3 per request) come within a short window (1s) of
// the first failure, and
// nothing bounds them: no budget throttles them and no deadline ends the call. While a
// dependency is down every call then becomes that many calls to it.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    const RuleThresholds& limits = file.settings().thresholds;
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (spec.budget || spec.deadline || spec.max_attempts <= limits.max_attempts) {
            continue;
        }
        // Attempts expected within the window: the first, then every retry whose expected
        // cumulative wait (mean delays after jitter) is inside it.
        int attempts = 1;
        Duration expected{0};
        std::vector<Duration> waits;
        for (const ScheduleRow& row : retry_schedule(spec)) {
            expected = saturating_add(expected, mean_delay(row));
            if (expected > limits.window) {
                break;
            }
            ++attempts;
            waits.push_back(mean_delay(row));
        }
        if (attempts <= limits.max_attempts) {
            continue;
        }
        const std::string within = attempts == spec.max_attempts
                                       ? "all " + std::to_string(attempts) + " of its attempts"
                                       : std::to_string(attempts) + " of its " +
                                             std::to_string(spec.max_attempts) + " attempts";
        reporter.report(attempts_position(p),
                        "policy '" + p.name() + "' makes " + within + " within " +
                            duration_text(limits.window) + " of a failure (expected waits " +
                            duration_list(waits, 4) +
                            ") with no budget and no deadline to bound them: while a "
                            "dependency is down, every call becomes " +
                            std::to_string(attempts) + " calls to it",
                        "add budget: { max_tokens: 100, token_ratio: 0.1 } or a deadline, or "
                        "allow at most " +
                            std::to_string(limits.max_attempts) + " attempts");
    }
}

}  // namespace

const Rule kUnthrottledRetries{
    RuleInfo{"RB320", "unthrottled-retries", Severity::Warning, RuleOrigin::Semantic,
             "many quick attempts with no budget and no deadline to bound them",
             "Every retry is one more call to a dependency that is already failing. With more "
             "than a few attempts in quick succession and nothing that throttles them (a retry "
             "budget) or ends the call (a deadline), an outage multiplies the load on the "
             "dependency by the attempt count. Thresholds (max_attempts 5, window 1s) are set "
             "in .rebound-lint.yaml."},
    check};

}  // namespace rebound::lint::rules
