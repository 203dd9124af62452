// The schedule of a policy: for each retry, its base delay and the bounds of the jittered delay,
// cumulated, and whether the retry can still start inside the deadline. Used by `explain` and lint.
#pragma once

#include <vector>

#include "rebound/duration.hpp"
#include "rebound/policy_spec.hpp"

namespace rebound {

struct ScheduleRow {
    int retry = 0;  // k = 1 for the first retry
    Duration base{0};
    Duration min{0};
    Duration max{0};
    Duration cumulative_min{0};
    Duration cumulative_max{0};
    // False when even the shortest waits cannot reach this retry inside the deadline, taking
    // min_attempt_budget into account and assuming attempts take no time.
    bool within_deadline = true;
};

// max_attempts - 1 rows. Preconditions: `spec` is valid.
std::vector<ScheduleRow> retry_schedule(const PolicySpec& spec);

}  // namespace rebound
