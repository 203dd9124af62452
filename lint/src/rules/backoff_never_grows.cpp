// RB328 backoff-never-grows: a linear or exponential backoff whose delay is the same before every
// retry that can happen: `max` equals `initial`, or a linear increment of 0. The multiplier or
// increment written in the file never applies; the policy is a fixed backoff that reads as a
// growing one, and the growth the author relied on to relieve the dependency does not exist.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const Backoff& backoff = p.spec().backoff;
        if (backoff.type != BackoffType::Exponential && backoff.type != BackoffType::Linear) {
            continue;
        }
        const std::vector<ScheduleRow> rows = reachable_rows(retry_schedule(p.spec()));
        if (rows.size() < 2) {
            continue;
        }
        bool constant = true;
        for (const ScheduleRow& row : rows) {
            constant = constant && row.base == rows.front().base;
        }
        if (!constant) {
            continue;
        }
        const bool exponential = backoff.type == BackoffType::Exponential;
        const std::string why =
            backoff.max <= backoff.initial
                ? "its max " + duration_text(backoff.max) + " is its initial delay"
                : "its increment is 0";
        reporter.report(
            backoff_position(p),
            "the " + std::string(to_string(backoff.type)) + " backoff of policy '" + p.name() +
                "' never grows: " + why + ", so each of its " + std::to_string(rows.size()) +
                " retries waits " + duration_text(rows.front().base) + " before jitter and the " +
                (exponential ? "multiplier" : "increment") + " never applies",
            "write backoff: { type: fixed, delay: " + duration_text(rows.front().base) +
                " } if a constant wait is meant, or " +
                (backoff.max <= backoff.initial ? "raise max" : "give it an increment"));
    }
}

}  // namespace

const Rule kBackoffNeverGrows{
    RuleInfo{"RB328", "backoff-never-grows", Severity::Warning, RuleOrigin::Semantic,
             "a linear or exponential backoff that waits the same before every retry",
             "Growing waits are what lets a struggling dependency recover: each retry backs off "
             "further. A backoff whose max equals its initial delay, or a linear one with no "
             "increment, is a fixed backoff in disguise: its multiplier or increment never "
             "applies, and readers of the file believe in a growth that does not happen."},
    check};

}  // namespace rebound::lint::rules
