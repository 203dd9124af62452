// Runs unary gRPC calls under a retry policy with the blocking executor (docs/protocols.md).
// Methods are called by their full name through grpc::GenericStub with serialized messages
// (grpc::ByteBuffer), so no generated code is needed; a caller with generated stubs serializes
// its request once and parses the response. Each attempt is a call with a context of its own
// (grpc::ClientContext cannot be reused) whose deadline is the policy's attempt_timeout, shortened
// to the time left before the run's deadline, or UnaryClientOptions::default_timeout when the
// policy has neither. A finished call classifies by its status and
// trailing metadata (status_classification.hpp), so `grpc-retry-pushback-ms` is a delay hint or
// a refusal. The run's stop token cancels a call in progress (grpc::ClientContext::TryCancel):
// it then ends with CANCELLED, which is not retried. Every attempt after the first carries the
// `rebound-previous-rpc-attempts` header (kPreviousAttemptsHeader), so that a server can tell a
// retry or a hedge.
//
// A hedging policy needs the asynchronous client (async_unary_client.hpp): this one's blocking
// executor refuses it (rebound::HedgingUnsupported).
//
// gRPC's own retries (a retryPolicy in the channel's service config) would multiply with these;
// give channels used here no retryPolicy. Transparent retries of calls that never left the
// client stay on: they cannot have done work.
#pragma once

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/status.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "rebound/duration.hpp"
#include "rebound/function_ref.hpp"
#include "rebound/hedge_report.hpp"
#include "rebound/retry_executor.hpp"

namespace rebound::grpc {

// The header that tells a server how many attempts of this call came before: absent on the first
// attempt, "1" on the second, and so on, retry or hedge. gRFC A6 names it
// `grpc-previous-rpc-attempts`, but gRPC C++ keeps that one for its own retries and does not pass
// on an application's (a server sees none), so the client sends the same count under its own name.
inline constexpr std::string_view kPreviousAttemptsHeader = "rebound-previous-rpc-attempts";

struct UnaryClientOptions {
    static constexpr Duration kDefaultTimeout = std::chrono::seconds(60);
    // A call's deadline when the policy gives none (neither `deadline` nor `attempt_timeout`);
    // the policy's limit replaces it otherwise. It bounds the wait for a connection too (a call
    // waits while its channel connects). nullopt: no deadline, and a server that never answers
    // holds the call for ever.
    std::optional<Duration> default_timeout = kDefaultTimeout;
};

struct CallResult {
    RunResult run;
    ::grpc::Status status;        // of the last attempt whose end counted (the winner's)
    ::grpc::ByteBuffer response;  // of the successful attempt; empty otherwise
    // What a hedged run adds (hedges, winner, abandoned, suppressed): AsyncUnaryClient::call
    // under a policy with `hedge`; none otherwise.
    std::optional<HedgeReport> hedge{};
};

class UnaryClient {
  public:
    // The executor must outlive the client. The channel is shared: clients and generated stubs
    // on one channel share its connections. Throws std::invalid_argument for a default_timeout
    // of 0 or less.
    UnaryClient(const RetryExecutor& executor, std::shared_ptr<::grpc::ChannelInterface> channel,
                UnaryClientOptions options = {});

    // Calls `method` ("/package.Service/Method") with `request` under the policy of `handler`,
    // retrying as it says. Blocks the calling thread, which waits on a completion queue of the
    // call's own; calls may run from many threads at once. `prepare`, when given, is called with
    // each attempt's context before the call (metadata, compression, credentials); the client sets
    // the deadline after it.
    CallResult call(std::string_view handler, const std::string& method,
                    const ::grpc::ByteBuffer& request, const RunOptions& options = {},
                    FunctionRef<void(::grpc::ClientContext&)> prepare = {}) const;

  private:
    const RetryExecutor* executor_;
    std::shared_ptr<::grpc::ChannelInterface> channel_;
    UnaryClientOptions options_;
};

}  // namespace rebound::grpc
