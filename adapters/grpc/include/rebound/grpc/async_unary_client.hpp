// Unary gRPC calls on Asio under a policy of rebound::asio::RetryExecutor, retried or hedged
// (docs/protocols.md, The gRPC adapter; docs/hedging.md). gRPC's own C++ library does not hedge
// (gRFC A6's hedgingPolicy is built in its Java and Go libraries only); this client does, for a
// policy with `hedge`: each attempt is a call with a ClientContext of its own, started through
// gRPC's callback API (grpc::GenericStub::UnaryCall), and the first to succeed wins; the others
// are cancelled at once (grpc::ClientContext::TryCancel) and not awaited.
//
//   rebound::grpc::AsyncUnaryClient client(grpc::CreateChannel(target, credentials));
//   rebound::grpc::CallResult r =
//       co_await client.call(executor, "catalog.get", "/catalog.Catalog/Get", request_bytes);
//   // r.run, r.status, r.response as for UnaryClient; r.hedge for a hedging policy
//
// An attempt's call runs on gRPC's threads; its end is posted to the executor of the coroutine
// that awaits it, which counts as outstanding work until then (io_context::run() returns only
// once every call, an abandoned one too, has ended: a cancelled call ends at once). Await the
// client from coroutines on one strand or on an io_context that one thread runs: the executor's
// runs (retries, hedges) do. Deadlines, `prepare`, pushback and the `rebound-previous-rpc-attempts`
// header are as for the blocking UnaryClient (unary_client.hpp).
//
// Cancellation: terminal cancellation of the awaiting coroutine (a loser of a hedged run, the
// run's RunOptions::stop or per-operation cancellation, an attempt_timeout) or a stop request on
// the attempt's AttemptInfo::stop cancels the call (TryCancel) and ends the await with
// asio::error::operation_aborted, whatever the call's end.
//
// Lifetimes: an abandoned attempt keeps what it uses alive itself (its context, request and
// reply buffers, and the channel) and touches neither the client nor the CallResult once it is
// cancelled, so the client and the result may go once no call() is awaited.
//
// gRPC's own retries would multiply with the policy's (gRFC A6 retryPolicy in the channel's
// service config; gRPC C++ has no hedgingPolicy): give channels used here no retryPolicy.
#pragma once

// A standard header before Asio's (rebound/asio/retry_executor.hpp says why).
#include <cstdlib>

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/status.h>
#include <asio/awaitable.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "rebound/asio/retry_executor.hpp"
#include "rebound/function_ref.hpp"
#include "rebound/grpc/classification.hpp"
#include "rebound/grpc/unary_client.hpp"
#include "rebound/retry_executor.hpp"

namespace rebound::grpc {

// How one call ended: its status, its reply when OK, and its classification (by the status and
// the trailers, status_classification.hpp).
struct UnaryOutcome {
    ::grpc::Status status;
    ::grpc::ByteBuffer response;
    Classification classification;
};

class AsyncUnaryClient {
  public:
    // The channel is shared, as for UnaryClient. Throws std::invalid_argument for a
    // default_timeout of 0 or less.
    explicit AsyncUnaryClient(std::shared_ptr<::grpc::ChannelInterface> channel,
                              UnaryClientOptions options = {});

    // One call of `method` with `request`, as attempt `info` of a run: its own context, set up by
    // `prepare` (used before the call starts, not after), its deadline the attempt's time limit.
    // Throws asio::system_error(operation_aborted) when cancelled.
    ::asio::awaitable<UnaryOutcome> perform(
        std::string method, ::grpc::ByteBuffer request, AttemptInfo info,
        FunctionRef<void(::grpc::ClientContext&)> prepare = {}) const;

    // One attempt as the work of a run: performs the call, records its status in `result`
    // (and its reply there when it succeeded), and returns the classified failure, or nothing.
    // Once cancelled it touches `result` no more.
    ::asio::awaitable<std::optional<Error>> attempt(
        std::string method, ::grpc::ByteBuffer request, AttemptInfo info, CallResult& result,
        FunctionRef<void(::grpc::ClientContext&)> prepare = {}) const;

    // Calls `method` under the policy `executor` resolves for `handler`: retried as it says, or
    // hedged when it has `hedge` (CallResult::hedge is then the run's HedgeReport). `prepare` is
    // called with each attempt's context before its call starts. The executor, `handler`,
    // `prepare` and the options' views must outlive the await.
    ::asio::awaitable<CallResult> call(
        const rebound::asio::RetryExecutor& executor, std::string_view handler, std::string method,
        ::grpc::ByteBuffer request, RunOptions options = {},
        FunctionRef<void(::grpc::ClientContext&)> prepare = {}) const;

  private:
    std::shared_ptr<::grpc::ChannelInterface> channel_;
    UnaryClientOptions options_;
};

}  // namespace rebound::grpc
