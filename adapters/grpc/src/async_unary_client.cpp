#include "rebound/grpc/async_unary_client.hpp"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/support/stub_options.h>

#include <asio/any_io_executor.hpp>
#include <asio/cancellation_state.hpp>
#include <asio/cancellation_type.hpp>
#include <asio/error.hpp>
#include <asio/execution/outstanding_work.hpp>
#include <asio/post.hpp>
#include <asio/prefer.hpp>
#include <asio/redirect_error.hpp>
#include <asio/steady_timer.hpp>
#include <asio/system_error.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <stop_token>
#include <system_error>
#include <utility>

#include "rebound/grpc/status_classification.hpp"
#include "unary_attempt.hpp"

namespace rebound::grpc {
namespace {

// One call in flight: what gRPC refers to until the call ends (the context, the method name and
// the buffers), and the signal that wakes the awaiting coroutine. Shared by the coroutine and
// the call's completion, so that a call whose await was abandoned still finds it all alive.
struct PendingCall {
    explicit PendingCall(const ::asio::any_io_executor& executor, std::string name)
        : method(std::move(name)), signal(executor, std::chrono::steady_clock::time_point::max()) {}

    ::grpc::ClientContext context;
    std::string method;
    ::grpc::ByteBuffer request;
    ::grpc::ByteBuffer response;
    ::grpc::Status status;
    ::asio::steady_timer signal;
    bool done = false;  // on the awaiting coroutine's executor
};

// The call's completion, on a gRPC thread: posts its end to the coroutine's executor, which
// counts it as outstanding work until then. The posted handler takes the only reference this
// side holds, so the call (and its timer) is let go on that executor, never on gRPC's thread
// after the executor's io_context might have gone.
struct Complete {
    std::shared_ptr<PendingCall> call;
    ::asio::any_io_executor tracked;

    void operator()(::grpc::Status status) {
        ::asio::post(tracked, [call = std::move(call), status = std::move(status)]() mutable {
            call->status = std::move(status);
            call->done = true;
            // Expired whether or not the coroutine waits yet.
            call->signal.expires_at(std::chrono::steady_clock::time_point::min());
        });
    }
};

}  // namespace

AsyncUnaryClient::AsyncUnaryClient(std::shared_ptr<::grpc::ChannelInterface> channel,
                                   UnaryClientOptions options)
    : channel_(std::move(channel)), options_(options) {
    detail::check_options(options_);
}

::asio::awaitable<UnaryOutcome> AsyncUnaryClient::perform(
    std::string method, ::grpc::ByteBuffer request, AttemptInfo info,
    FunctionRef<void(::grpc::ClientContext&)> prepare) const {
    const ::asio::any_io_executor executor = co_await ::asio::this_coro::executor;
    auto call = std::make_shared<PendingCall>(executor, std::move(method));
    call->request.Swap(&request);  // ByteBuffer has no move assignment
    detail::prepare_context(call->context, info, options_, prepare);
    // A stop request on the attempt's token cancels the call at once, from the requesting thread.
    std::optional<std::stop_callback<detail::CancelCall>> cancel_on_stop;
    if (info.stop.stop_possible()) {
        cancel_on_stop.emplace(info.stop, detail::CancelCall{&call->context});
    }
    ::grpc::GenericStub stub(channel_);
    stub.UnaryCall(
        &call->context, call->method, ::grpc::StubOptions(), &call->request, &call->response,
        Complete{call, ::asio::prefer(executor, ::asio::execution::outstanding_work.tracked)});
    // From here on the client (`this`) is not used: an abandoned attempt may outlive it.
    std::error_code woken;
    co_await call->signal.async_wait(::asio::redirect_error(::asio::use_awaitable, woken));
    const ::asio::cancellation_type cancelled =
        (co_await ::asio::this_coro::cancellation_state).cancelled();
    if (!call->done || cancelled != ::asio::cancellation_type::none) {
        // Cancelled: the call ends at once with CANCELLED on gRPC's side, and its end, when it
        // comes, finds the call alive and wakes no one.
        call->context.TryCancel();
        throw ::asio::system_error(::asio::error::operation_aborted);
    }
    cancel_on_stop.reset();
    UnaryOutcome outcome;
    outcome.status = call->status;
    outcome.response.Swap(&call->response);
    outcome.classification = classify(call->status, call->context.GetServerTrailingMetadata());
    co_return outcome;
}

::asio::awaitable<std::optional<Error>> AsyncUnaryClient::attempt(
    std::string method, ::grpc::ByteBuffer request, AttemptInfo info, CallResult& result,
    FunctionRef<void(::grpc::ClientContext&)> prepare) const {
    UnaryOutcome outcome = co_await perform(std::move(method), std::move(request), info, prepare);
    result.status = outcome.status;
    std::optional<Error> error = detail::attempt_error(outcome.status, outcome.classification);
    if (!error) {
        result.response.Swap(&outcome.response);
    }
    co_return error;
}

::asio::awaitable<CallResult> AsyncUnaryClient::call(
    const rebound::asio::RetryExecutor& executor, std::string_view handler, std::string method,
    ::grpc::ByteBuffer request, RunOptions options,
    FunctionRef<void(::grpc::ClientContext&)> prepare) const {
    HandlerResolution resolution = executor.blocking().resolve(handler);
    const bool hedges = resolution.policy_or_builtin()->spec().hedge.has_value();
    CallResult result;
    // Each attempt copies the method and the request (the request's slices are shared).
    auto work = [this, &method, &request, &result, prepare](const AttemptInfo& info) {
        return attempt(method, request, info, result, prepare);
    };
    if (hedges) {
        rebound::asio::HedgedResult<std::optional<Error>> run = co_await executor.run_hedged(
            std::move(resolution), handler, work, ::asio::use_awaitable, std::move(options));
        result.hedge = run.hedge;
        result.run = std::move(static_cast<RunResult&>(run));
    } else {
        result.run = co_await executor.run(std::move(resolution), handler, work,
                                           ::asio::use_awaitable, std::move(options));
    }
    co_return result;
}

}  // namespace rebound::grpc
