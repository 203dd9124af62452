// RB306 retries-beyond-deadline: the deadline is shorter than the retry schedule, so the last
// retries can never start (docs/semantics.md, step 6), even if every attempt took no time at all.
// With on_exhausted: dead_letter that matters twice: only a run that reaches its last attempt is
// exhausted, so such a policy never dead-letters anything.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (!spec.deadline || spec.min_attempt_budget >= *spec.deadline ||
            !retries_after_backoff(p)) {
            // Without a deadline nothing is cut; at or above it RB307 reports; a hedging policy's
            // attempts do not wait out a backoff (RB344 checks its hedges against the deadline).
            continue;
        }
        const std::vector<ScheduleRow> schedule = retry_schedule(spec);
        std::size_t first = schedule.size();
        for (std::size_t i = 0; i < schedule.size(); ++i) {
            if (!schedule[i].within_deadline) {
                first = i;
                break;
            }
        }
        if (first == schedule.size()) {
            continue;
        }
        const ScheduleRow& cut = schedule[first];
        const int last = schedule.back().retry;
        const std::string which = cut.retry == last ? "retry " + std::to_string(last)
                                                    : "retries " + std::to_string(cut.retry) +
                                                          " to " + std::to_string(last);
        std::string reach = "the shortest waits before retry " + std::to_string(cut.retry) +
                            " add up to " + duration_text(cut.cumulative_min);
        if (spec.min_attempt_budget > Duration::zero()) {
            reach += ", plus min_attempt_budget " + duration_text(spec.min_attempt_budget) +
                     " is " + duration_text(cut.cumulative_min + spec.min_attempt_budget);
        }
        const Duration needed = schedule.back().cumulative_min + spec.min_attempt_budget;
        // The executor dead-letters only exhausted runs (docs/semantics.md, The executor); a run
        // that can never reach its last attempt always ends on the deadline instead.
        const std::string dead_letter =
            spec.on_exhausted == ExhaustedAction::DeadLetter
                ? "; every run ends on the deadline before its last attempt, so on_exhausted: "
                  "dead_letter never applies"
                : "";
        reporter.report(position_or(p.fields.duration(PolicyField::Deadline), p.name_position()),
                        "deadline " + duration_text(*spec.deadline) +
                            " is shorter than the retry schedule of policy '" + p.name() +
                            "': " + which + " can never start (" + reach +
                            ", beyond the deadline; " + "worst-case schedule " +
                            duration_text(schedule.back().cumulative_max) + ")" + dead_letter,
                        "set max_attempts to " + std::to_string(cut.retry) +
                            " or the deadline to at least " + duration_text(needed));
    }
}

}  // namespace

const Rule kRetriesBeyondDeadline{
    RuleInfo{"RB306", "retries-beyond-deadline", Severity::Warning, RuleOrigin::Semantic,
             "the deadline is shorter than the retry schedule: some retries can never start",
             "max_attempts promises retries that the deadline always cuts off, even when every "
             "attempt fails instantly. Readers of the file (and dashboards built from it) "
             "expect more retries than can happen. Lower max_attempts or raise the deadline."},
    check};

}  // namespace rebound::lint::rules
