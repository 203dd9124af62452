#include "rebound/retry_schedule.hpp"

#include "rebound/jitter.hpp"

namespace rebound {

std::vector<ScheduleRow> retry_schedule(const PolicySpec& spec) {
    std::vector<ScheduleRow> rows;
    Duration cumulative_min{0};
    Duration cumulative_max{0};
    for (int k = 1; k < spec.max_attempts; ++k) {
        const DelayRange range = schedule_range(spec.jitter, spec.backoff, k);
        cumulative_min = saturating_add(cumulative_min, range.min);
        cumulative_max = saturating_add(cumulative_max, range.max);
        ScheduleRow row;
        row.retry = k;
        row.base = spec.backoff.base_delay(k);
        row.min = range.min;
        row.max = range.max;
        row.cumulative_min = cumulative_min;
        row.cumulative_max = cumulative_max;
        row.within_deadline =
            !spec.deadline ||
            saturating_add(cumulative_min, spec.min_attempt_budget) <= *spec.deadline;
        rows.push_back(row);
    }
    return rows;
}

}  // namespace rebound
