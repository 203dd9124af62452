// The time one attempt may take, as an adapter gives it to its client library (a call's
// deadline, a transfer's timeout): the policy's attempt_timeout, shortened to the time left
// before the run's deadline (docs/semantics.md).
#pragma once

#include <optional>

#include "rebound/duration.hpp"
#include "rebound/retry_executor.hpp"

namespace rebound {

// Absent when the policy has neither an attempt_timeout nor a deadline.
constexpr std::optional<Duration> attempt_time_limit(const AttemptInfo& info) noexcept {
    if (!info.time_left) {
        return info.attempt_timeout;
    }
    return info.attempt_timeout && *info.attempt_timeout < *info.time_left ? info.attempt_timeout
                                                                           : info.time_left;
}

}  // namespace rebound
