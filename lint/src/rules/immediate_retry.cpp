// RB318 immediate-retry: every retry the policy can make starts at once (backoff `none`, or a
// fixed delay of 0). Whatever failed (a lock holder, a failover, an overloaded server) has had no
// time to change, so the retry meets the same failure and adds its load to it.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (!retries_after_backoff(p)) {
            continue;
        }
        const std::vector<ScheduleRow> rows = reachable_rows(retry_schedule(spec));
        if (rows.empty()) {
            continue;
        }
        bool all_zero = true;
        for (const ScheduleRow& row : rows) {
            all_zero = all_zero && row.max == Duration::zero();
        }
        if (!all_zero) {
            continue;
        }
        const std::string backoff =
            spec.backoff.type == BackoffType::None ? "backoff none" : "a fixed delay of 0ms";
        std::string message =
            "policy '" + p.name() + "' retries immediately: with " + backoff +
            (rows.size() == 1 ? " its retry starts"
                              : " each of its " + std::to_string(rows.size()) + " retries starts") +
            " the moment the previous attempt failed";
        if (spec.jitter.type != JitterType::None) {
            message += " (jitter " + std::string(to_string(spec.jitter.type)) +
                       " of a zero delay is still zero)";
        }
        message += ", before anything that caused the failure can change";
        reporter.report(backoff_position(p), message,
                        "wait before retrying, for example backoff: { type: exponential, "
                        "initial: 50ms, max: 200ms } with jitter: equal");
    }
}

}  // namespace

const Rule kImmediateRetry{
    RuleInfo{"RB318", "immediate-retry", Severity::Warning, RuleOrigin::Semantic,
             "every retry starts at once: backoff none, or a fixed delay of 0",
             "A retry that does not wait meets the failure it follows: the lock is still held, "
             "the failover is still running, the overloaded server is still overloaded. Every "
             "client that failed retries at the same instant and adds its load. Wait, and let "
             "the wait grow."},
    check};

}  // namespace rebound::lint::rules
