// What a run of the asynchronous executor completes with (retry_executor.hpp, docs/async.md).
#pragma once

#include <optional>

#include "rebound/hedge_report.hpp"
#include "rebound/retry_executor.hpp"

namespace rebound::asio {

// What a run completes with: the blocking executor's RunResult and, after a success, the value
// of the successful attempt.
template <typename T>
struct Result : RunResult {
    std::optional<T> value{};
};
template <>
struct Result<void> : RunResult {};

// What RetryExecutor::run_hedged() completes with: the run's Result and what a hedged run adds
// (hedge_report.hpp: hedges, winner, abandoned, suppressed by reason).
template <typename T>
struct HedgedResult : Result<T> {
    HedgeReport hedge{};
};

}  // namespace rebound::asio
