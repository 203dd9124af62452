// RB319 delay-too-short: the retries do wait, but on average (after jitter and clamping) less
// than the configured minimum (10ms by default): too short for a lock holder to commit, a
// failover to finish or an overloaded server to recover.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    const Duration floor = file.settings().thresholds.min_delay;
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (!retries_after_backoff(p)) {
            continue;
        }
        const std::vector<ScheduleRow> rows = reachable_rows(retry_schedule(spec));
        Duration total{0};
        Duration longest{0};
        std::vector<std::string> ranges;
        for (const ScheduleRow& row : rows) {
            total = saturating_add(total, mean_delay(row));
            longest = std::max(longest, row.max);
            ranges.push_back(delay_range_text(row));
        }
        if (rows.empty() || longest == Duration::zero()) {
            continue;  // nothing retries, or every retry is immediate (RB318)
        }
        const Duration mean = total / static_cast<std::int64_t>(rows.size());
        if (mean >= floor) {
            continue;
        }
        std::string listed;
        for (std::size_t i = 0; i < ranges.size() && i < 4; ++i) {
            listed += (i == 0 ? "" : ", ") + ranges[i];
        }
        if (ranges.size() > 4) {
            listed += ", ...";
        }
        reporter.report(backoff_position(p),
                        "the retries of policy '" + p.name() + "' wait " + duration_text(mean) +
                            " on average after jitter (" + listed + "), under " +
                            duration_text(floor) +
                            ": too short for a lock holder to commit, a failover to finish or an "
                            "overloaded server to recover, so each retry meets the same failure",
                        "start the backoff at 25ms or more (jitter full halves the average wait)");
    }
}

}  // namespace

const Rule kDelayTooShort{
    RuleInfo{"RB319", "delay-too-short", Severity::Warning, RuleOrigin::Semantic,
             "retries that wait, after jitter, too little on average for anything to recover",
             "What makes an attempt fail (a lock, a failover, an overload) takes milliseconds "
             "to seconds to clear. Retries spaced a few hundred microseconds or a few "
             "milliseconds apart all meet it again, and together they add to the load that "
             "caused it. The threshold (min_delay, 10ms by default) is set in "
             ".rebound-lint.yaml."},
    check};

}  // namespace rebound::lint::rules
