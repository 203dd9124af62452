// RB320 unthrottled-retries: more attempts than the configured maximum (5 by default, the largest
// tier of the seeds; the Google SRE book allows 3 per request) are expected for one call, and
// nothing throttles them: no retry budget and no circuit breaker. While a dependency is down
// every call then becomes that many calls to it.
//
// The attempts counted are those expected to start (at the mean waits after jitter) inside the
// deadline when the policy has one: a deadline bounds the time of a call, not the calls it
// makes, so every attempt that fits in it is load. Without a deadline they are those inside a
// short window (1s) of the first failure, which leaves patient schedules (seconds between
// attempts, such as a consumer's retry topics) to RB309.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

// The attempts of `spec` expected to start within `horizon` of the first failure (the first
// included), with the expected waits before the retries among them.
struct ExpectedAttempts {
    int attempts = 1;
    std::vector<Duration> waits;
};

ExpectedAttempts attempts_within(const PolicySpec& spec, Duration horizon) {
    ExpectedAttempts expected;
    Duration elapsed{0};
    for (const ScheduleRow& row : retry_schedule(spec)) {
        elapsed = saturating_add(elapsed, mean_delay(row));
        if (elapsed > horizon || !row.within_deadline) {
            break;
        }
        ++expected.attempts;
        expected.waits.push_back(mean_delay(row));
    }
    return expected;
}

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    const RuleThresholds& limits = file.settings().thresholds;
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        // A budget or a breaker throttles retries while the dependency fails; a hedging policy's
        // hedge tokens throttle its hedges (RB345 checks their rate).
        if (spec.budget || !spec.breaker.empty() || spec.max_attempts <= limits.max_attempts ||
            !retries_after_backoff(p)) {
            continue;
        }
        const Duration horizon = spec.deadline.value_or(limits.window);
        const ExpectedAttempts expected = attempts_within(spec, horizon);
        if (expected.attempts <= limits.max_attempts) {
            continue;
        }
        const int attempts = expected.attempts;
        const std::string within = attempts == spec.max_attempts
                                       ? "all " + std::to_string(attempts) + " of its attempts"
                                       : std::to_string(attempts) + " of its " +
                                             std::to_string(spec.max_attempts) + " attempts";
        const std::string when = spec.deadline
                                     ? "within its " + duration_text(*spec.deadline) + " deadline"
                                     : "within " + duration_text(limits.window) + " of a failure";
        const std::string unbounded =
            spec.deadline ? "with no budget and no breaker to throttle them (a deadline bounds "
                            "the time of a call, not the calls it makes)"
                          : "with no budget, no breaker and no deadline to bound them";
        reporter.report(attempts_position(p),
                        "policy '" + p.name() + "' makes " + within + " " + when +
                            " (expected waits " + duration_list(expected.waits, 4) + ") " +
                            unbounded + ": while a dependency is down, every call becomes " +
                            std::to_string(attempts) + " calls to it",
                        "add budget: { max_tokens: 100, token_ratio: 0.1 } or a breaker" +
                            std::string(spec.deadline ? "" : " or a deadline") +
                            ", or allow at most " + std::to_string(limits.max_attempts) +
                            " attempts");
    }
}

}  // namespace

const Rule kUnthrottledRetries{
    RuleInfo{"RB320", "unthrottled-retries", Severity::Warning, RuleOrigin::Semantic,
             "many attempts per call with no budget and no breaker to throttle them",
             "Every retry is one more call to a dependency that is already failing. With more "
             "than a few attempts per call and nothing that throttles them (a retry budget or "
             "a circuit breaker), an outage multiplies the load on the dependency by the "
             "attempt count. A deadline does not help: it bounds the time of a call, not the "
             "calls it makes, so the attempts that fit in it are counted. Thresholds "
             "(max_attempts 5, window 1s for policies without a deadline) are set in "
             ".rebound-lint.yaml."},
    check};

}  // namespace rebound::lint::rules
