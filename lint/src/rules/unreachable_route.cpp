// RB323 unreachable-route: a route that no retry's delay can select. The decision names the first
// route whose up_to is at or above the delay, else the last route (docs/policy-format.md, routes),
// so a route is chosen only for delays between the previous route's up_to (exclusive) and its
// own (inclusive; the last route: anything above the previous one). When no delay the schedule
// can produce (after jitter, inside the deadline) falls there, the route's retry topic never
// receives anything: either the tiers or the backoff are not what the author meant.
#include <limits>

#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (spec.routes.size() < 2 || spec.max_attempts < 2) {
            continue;  // one route takes every delay; without retries RB321 reports
        }
        const std::vector<ScheduleRow> rows = reachable_rows(retry_schedule(spec));
        if (rows.empty()) {
            continue;
        }
        Duration shortest = Duration::max();
        Duration longest{0};
        for (const ScheduleRow& row : rows) {
            shortest = std::min(shortest, row.min);
            longest = std::max(longest, row.max);
        }
        const std::size_t last = spec.routes.size() - 1;
        for (std::size_t i = 0; i < spec.routes.size(); ++i) {
            // Route i takes delays d with low < d <= high.
            const bool has_low = i > 0;
            const Duration low = has_low ? spec.routes[i - 1].up_to : Duration::zero();
            const Duration high = i == last ? Duration::max() : spec.routes[i].up_to;
            bool reachable = false;
            for (const ScheduleRow& row : rows) {
                const bool above_low = !has_low || row.max > low;
                if (above_low && row.min <= high) {
                    reachable = true;
                    break;
                }
            }
            if (reachable) {
                continue;
            }
            std::string takes;
            if (i == last) {
                takes = "delays above " + duration_text(low);
            } else if (has_low) {
                takes = "delays above " + duration_text(low) + " up to " + duration_text(high);
            } else {
                takes = "delays up to " + duration_text(high);
            }
            SourcePosition position = p.name_position();
            if (p.fields.routes && i < p.fields.routes->items.size()) {
                position = p.fields.routes->items[i].position;
            }
            reporter.report(
                position,
                "route '" + spec.routes[i].target + "' of policy '" + p.name() +
                    "' is never chosen: it takes " + takes + ", and the delays of the " +
                    count_of(rows.size(), "retry", "retries") + " (after jitter) lie between " +
                    duration_text(shortest) + " and " + duration_text(longest) + " with none there",
                "change its up_to or the backoff, or remove the route");
        }
    }
}

}  // namespace

const Rule kUnreachableRoute{
    RuleInfo{"RB323", "unreachable-route", Severity::Warning, RuleOrigin::Semantic,
             "a route that no retry's delay can select",
             "Routes send each retry to the retry topic or queue whose up_to covers its delay. "
             "A route whose range no delay of the schedule reaches never receives anything: "
             "the consumer and the topic behind it exist for nothing, and the retries go to a "
             "tier the author did not plan for."},
    check};

}  // namespace rebound::lint::rules
