// RB301 no-jitter: a backoff without jitter while more than one retry can happen. Clients that
// fail together (a failover, a deadlock storm) then retry together, at exactly the same
// offsets, and collide again ("Exponential Backoff And Jitter", AWS Architecture Blog, 2015).
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (spec.jitter.type != JitterType::None || spec.backoff.type == BackoffType::None) {
            continue;
        }
        const std::vector<ScheduleRow> schedule = retry_schedule(spec);
        const std::size_t retries = reachable_retries(schedule);
        if (retries < 2) {
            continue;
        }
        std::vector<Duration> delays;
        for (const ScheduleRow& row : schedule) {
            if (row.within_deadline) {
                delays.push_back(row.base);
            }
        }
        reporter.report(jitter_position(p),
                        std::string(to_string(spec.backoff.type)) +
                            " backoff without jitter lets clients retry in lockstep: every "
                            "client of policy '" +
                            p.name() + "' waits exactly " + duration_list(delays) + " before its " +
                            count_of(retries, "retry", "retries"),
                        "use jitter full, or equal to keep at least half of each delay");
    }
}

}  // namespace

const Rule kNoJitter{
    RuleInfo{"RB301", "no-jitter", Severity::Warning, RuleOrigin::Semantic,
             "backoff without jitter while more than one retry can happen",
             "Without jitter every client that failed at the same moment waits exactly as long "
             "as the others and retries at the same moment, so the contention that caused the "
             "failure repeats at every retry. Full or equal jitter spreads the retries out."},
    check};

}  // namespace rebound::lint::rules
