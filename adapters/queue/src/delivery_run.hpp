// A delivery as one attempt of the engine's RetryRun (docs/queue.md, "One run per message"): where
// a message's run stands between deliveries, and what a delivery's run decided, as the store
// keeps them.
#pragma once

#include "rebound/circuit_breaker.hpp"
#include "rebound/policy.hpp"
#include "rebound/queue/message.hpp"
#include "rebound/queue/queue_store.hpp"
#include "rebound/retry_run.hpp"

namespace rebound::queue::detail {

// Describes an odbc::DatabaseError a handler throws by its failure (the vendor map's category,
// SQLSTATE, native code, message); other exceptions are left to the ExceptionClassifier.
// Stateless; lives for the program.
const FailureClassifier& database_failure_classifier() noexcept;

// A claimed message's run before its delivery: the claim counted the attempt about to start.
RunProgress progress_of(const Message& message) noexcept;
// An expired lease's run: the attempt of the vanished worker is the last one made.
RunProgress progress_of(const ExpiredLease& lease) noexcept;

// The last error as the store keeps it (the message cut to a bounded length).
LastError stored_error(const ErrorDescription& description);

// What a failed delivery's run decided, to store: at `step` Wait a retry after the decision's
// delay with its route; at Done dead with the decision's reason.
AttemptFailure outcome_of(const RunResult& result, RunStep step);

// How long a delivery the breaker refused waits: until the breaker half-opens, or, refused
// without a hint (half-open with its probes in flight, or isolated), the breaker's open period.
Duration postponement(const BreakerPermit& refusal, const Policy& policy) noexcept;

}  // namespace rebound::queue::detail
