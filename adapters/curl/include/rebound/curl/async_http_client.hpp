// HTTP requests through libcurl's multi interface driven by Asio, for services on an Asio
// executor (docs/async.md, docs/protocols.md). The client's transfers share one curl multi
// handle, and so its connection cache; its sockets are watched with asio::posix::stream_descriptor
// waits and its timeouts with an asio::steady_timer (CURLMOPT_SOCKETFUNCTION and
// CURLMOPT_TIMERFUNCTION), so no thread sleeps or polls and many transfers run on one thread.
// An attempt classifies exactly as with the blocking HttpClient (classify_attempt): a response by
// its status and Retry-After, a failed transfer by its CURLcode and how far the request got.
//
//   rebound::curl::AsyncHttpClient client(io.get_executor());
//   rebound::curl::CallResult r = co_await client.call(executor, "ledger.pay", request);
//
// or, for a work of one's own under rebound::asio::RetryExecutor:
//
//   co_await executor.run("ledger.pay", [&](const rebound::AttemptInfo& info) {
//       return client.attempt(request, info, declared_idempotent, response);
//   }, asio::use_awaitable);
//
// Threads: give the client the executor of an io_context that one thread runs (for more threads,
// a client per thread), and await it from coroutines on that io_context. Asio's reactor is
// edge-triggered and a descriptor wait does not look at the socket before it queues; on one
// thread no readiness can arrive between curl's last read and the next wait, on several it
// could, and a transfer would then stall. The client's curl calls run on a strand of the
// executor.
//
// Cancellation: terminal cancellation of the awaiting coroutine (the asynchronous executor's
// RunOptions::stop, its per-operation cancellation, or its attempt_timeout) removes the transfer
// from the multi handle at once and ends the await with asio::error::operation_aborted.
//
// Hedging: under a policy with `hedge` (docs/hedging.md) call() is a hedged run of the executor:
// each hedge is one more transfer on the client's multi handle, at once beside the first; the
// first success wins and gives the call its response, and every other transfer still in progress
// is taken out of the multi handle (curl_multi_remove_handle, which closes its connection) as
// soon as the winner is known, without waiting for it. call_hedged() also gives the run's
// HedgeReport. A handler that is not idempotent never has two transfers in flight.
//
// Timeouts: each transfer's timeout (CURLOPT_TIMEOUT_MS) is the attempt's time limit
// (attempt_time_limit: attempt_timeout shortened to the deadline's time left; without either,
// Options::limits.default_timeout) or Options::timeout, whichever is shorter. When the policy has
// an attempt_timeout the asynchronous executor also cancels the attempt then and fails it with
// statement_timeout, and it usually does so first; a service that wants the transport rows instead
// (a GET that timed out after it was sent is connection_lost, a POST commit_outcome_unknown) gives
// the client a shorter Options::timeout.
#pragma once

// A standard header before Asio's: Asio chooses how it allocates coroutine frames
// (std::aligned_alloc or operator new) by a macro of libstdc++'s configuration, and a frame one
// translation unit allocates may be freed in another, so every one must have seen the standard
// library first.
#include <cstdlib>

#include <asio/any_io_executor.hpp>
#include <asio/awaitable.hpp>
#include <memory>
#include <optional>
#include <string_view>

#include "rebound/asio/retry_executor.hpp"
#include "rebound/curl/http_client.hpp"
#include "rebound/duration.hpp"
#include "rebound/hedge_report.hpp"
#include "rebound/retry_executor.hpp"

namespace rebound::curl {

// What call_hedged() completes with: the call's result and what a hedged run adds (hedges,
// winner, abandoned, suppressed by reason); all zero for a policy without `hedge`.
struct HedgedCallResult : CallResult {
    HedgeReport hedge{};
};

struct AsyncHttpClientOptions {
    // The longest a transfer may take, on top of the attempt's own limit; none when absent.
    std::optional<Duration> timeout{};
    // The limits of every transfer, as for the blocking HttpClient: the largest body, the connect
    // timeout, and the time limit of a transfer whose policy gives none (default_timeout).
    TransferLimits limits{};
};

class AsyncHttpClient {
  public:
    using Options = AsyncHttpClientOptions;

    explicit AsyncHttpClient(::asio::any_io_executor executor, Options options = {});
    // Ends the transfers still in progress (their awaits then never complete: destroy the client
    // only when none is awaited) and closes the cached connections. Call it on the executor's
    // thread, or after the executor stopped.
    ~AsyncHttpClient();
    AsyncHttpClient(const AsyncHttpClient&) = delete;
    AsyncHttpClient& operator=(const AsyncHttpClient&) = delete;
    AsyncHttpClient(AsyncHttpClient&&) = delete;
    AsyncHttpClient& operator=(AsyncHttpClient&&) = delete;

    // One transfer of `request`, limited to `timeout` (without one, to
    // Options::limits.default_timeout) and Options::timeout. Completes with what curl
    // reported; throws asio::system_error(operation_aborted) when cancelled. A request that
    // may not be repeated (not idempotent by its method or an Idempotency-Key, nor declared so)
    // goes on a new connection: on a reused connection that closes before any answer, libcurl
    // would send it again by itself. (Coroutines start when awaited, so what they take by
    // reference must live until then: perform, attempt and call take the request by value.)
    ::asio::awaitable<AttemptOutcome> perform(HttpRequest request, std::optional<Duration> timeout,
                                              bool declared_idempotent = false) const;

    // One attempt as the work of a run: performs `request` within the attempt's time limit,
    // keeps a response that arrived in `response`, and returns the classified failure
    // (classify_attempt), or nothing when the call did not fail. `request` and `info` are copied
    // into the coroutine (a temporary may be passed; the run's `info` changes with the next
    // attempt); `response` must outlive the await. A cancelled attempt does not touch `response`
    // once cancelled.
    ::asio::awaitable<std::optional<Error>> attempt(HttpRequest request, AttemptInfo info,
                                                    bool declared_idempotent,
                                                    HttpResponse& response) const;

    // Sends `request` under the policy `executor` resolves for `handler`, retrying as it says;
    // the handler's declared idempotence counts as an Idempotency-Key does. `request` and
    // `options` are taken by value into the coroutine; the executor, `handler` and the options'
    // views (command_id, on_failure's callable) must outlive the call.
    // Under a policy with `hedge`, a hedged run: `response` is the winner's (without a winner,
    // that of the last attempt that got one).
    ::asio::awaitable<CallResult> call(const rebound::asio::RetryExecutor& executor,
                                       std::string_view handler, HttpRequest request,
                                       RunOptions options = {}) const;

    // The same, with the hedged run's HedgeReport (all zero when the policy does not hedge).
    ::asio::awaitable<HedgedCallResult> call_hedged(const rebound::asio::RetryExecutor& executor,
                                                    std::string_view handler, HttpRequest request,
                                                    RunOptions options = {}) const;

  private:
    ::asio::awaitable<CallResult> plain_call(const rebound::asio::RetryExecutor& executor,
                                             HandlerResolution resolution, std::string_view handler,
                                             HttpRequest request, RunOptions options) const;
    ::asio::awaitable<HedgedCallResult> hedged_call(const rebound::asio::RetryExecutor& executor,
                                                    HandlerResolution resolution,
                                                    std::string_view handler, HttpRequest request,
                                                    RunOptions options) const;

    class Multi;
    std::shared_ptr<Multi> multi_;
    Options options_;
};

}  // namespace rebound::curl
