// RetryOutcome: how a run of the executor ended (docs/semantics.md, The executor).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "rebound/decision.hpp"

namespace rebound {

enum class RetryOutcome : std::uint8_t {
    Succeeded,
    NonRetryable,
    OutcomeUnknown,
    Exhausted,
    Deadline,
    Throttled,
    ServerRefused,
    ServerDelayTooLong,
    CircuitOpen,
    Cancelled,
    DeadLettered,
};

struct RetryOutcomeInfo {
    RetryOutcome outcome;
    std::string_view wire_name;
};

inline constexpr std::array<RetryOutcomeInfo, 11> kRetryOutcomeTable{{
    {RetryOutcome::Succeeded, "succeeded"},
    {RetryOutcome::NonRetryable, "non_retryable"},
    {RetryOutcome::OutcomeUnknown, "outcome_unknown"},
    {RetryOutcome::Exhausted, "exhausted"},
    {RetryOutcome::Deadline, "deadline"},
    {RetryOutcome::Throttled, "throttled"},
    {RetryOutcome::ServerRefused, "server_refused"},
    {RetryOutcome::ServerDelayTooLong, "server_delay_too_long"},
    {RetryOutcome::CircuitOpen, "circuit_open"},
    {RetryOutcome::Cancelled, "cancelled"},
    {RetryOutcome::DeadLettered, "dead_lettered"},
}};

inline constexpr std::size_t kRetryOutcomeCount = kRetryOutcomeTable.size();

constexpr std::string_view to_string(RetryOutcome outcome) noexcept {
    return kRetryOutcomeTable[static_cast<std::size_t>(outcome)].wire_name;
}

// The outcome of a stopping decision. Precondition: `reason` is not DecisionReason::Retry.
constexpr RetryOutcome outcome_of(DecisionReason reason) noexcept {
    switch (reason) {
        case DecisionReason::OutcomeUnknown:
            return RetryOutcome::OutcomeUnknown;
        case DecisionReason::Exhausted:
            return RetryOutcome::Exhausted;
        case DecisionReason::Deadline:
            return RetryOutcome::Deadline;
        case DecisionReason::Throttled:
            return RetryOutcome::Throttled;
        case DecisionReason::ServerRefused:
            return RetryOutcome::ServerRefused;
        case DecisionReason::ServerDelayTooLong:
            return RetryOutcome::ServerDelayTooLong;
        case DecisionReason::Retry:
        case DecisionReason::NonRetryable:
            break;
    }
    return RetryOutcome::NonRetryable;
}

static_assert([] {
    for (std::size_t i = 0; i < kRetryOutcomeTable.size(); ++i) {
        if (static_cast<std::size_t>(kRetryOutcomeTable[i].outcome) != i) {
            return false;
        }
    }
    return true;
}());

}  // namespace rebound
