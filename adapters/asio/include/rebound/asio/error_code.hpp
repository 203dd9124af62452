// Classification of std::error_code / asio::error_code failures of asynchronous operations
// (docs/semantics.md, The asynchronous executor), as the asynchronous executor
// (retry_executor.hpp) describes an attempt that threw a std::system_error.
#pragma once

#include <system_error>

#include "rebound/error.hpp"

namespace rebound::asio {

// The operation was cancelled (`operation_aborted`, also `std::errc::operation_canceled`): a run
// ends as cancelled rather than deciding on it.
bool is_cancellation(const std::error_code& code) noexcept;

// The description the decision takes; the category is absent for a success (no error):
// refused, host not found, network or host unreachable or down -> connection_failure;
// reset, aborted, broken pipe, end of file, not connected -> connection_lost;
// timed out -> statement_timeout; cancelled -> client_error (is_cancellation tells it apart);
// anything else -> unknown. `message` stays empty: the code's text is not kept alive here.
ErrorDescription describe(const std::error_code& code) noexcept;

}  // namespace rebound::asio
