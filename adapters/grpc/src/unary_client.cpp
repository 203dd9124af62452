#include "rebound/grpc/unary_client.hpp"

#include <grpcpp/completion_queue.h>
#include <grpcpp/support/async_unary_call.h>

#include <optional>
#include <stop_token>
#include <utility>

#include "rebound/grpc/status_classification.hpp"
#include "unary_attempt.hpp"

namespace rebound::grpc {
namespace {

// Drains and shuts down a completion queue when the call that used it is over (a queue must be
// empty before it is destroyed).
class OwnedQueue {
  public:
    OwnedQueue() = default;
    OwnedQueue(const OwnedQueue&) = delete;
    OwnedQueue& operator=(const OwnedQueue&) = delete;
    OwnedQueue(OwnedQueue&&) = delete;
    OwnedQueue& operator=(OwnedQueue&&) = delete;
    ~OwnedQueue() {
        queue_.Shutdown();
        void* tag = nullptr;
        bool ok = false;
        while (queue_.Next(&tag, &ok)) {
        }
    }
    ::grpc::CompletionQueue& get() noexcept { return queue_; }

  private:
    ::grpc::CompletionQueue queue_;
};

struct AttemptOutcome {
    ::grpc::Status status;
    ::grpc::ByteBuffer response;
    Classification classification;
};

// One unary call, waited for on `queue` (the only operation on it, so the one event is ours).
AttemptOutcome perform(::grpc::GenericStub& stub, ::grpc::CompletionQueue& queue,
                       const std::string& method, const ::grpc::ByteBuffer& request,
                       const AttemptInfo& info, const UnaryClientOptions& options,
                       FunctionRef<void(::grpc::ClientContext&)> prepare) {
    ::grpc::ClientContext context;
    detail::prepare_context(context, info, options, prepare);
    // The run's stop token cancels the call in progress; the call then ends with CANCELLED.
    std::optional<std::stop_callback<detail::CancelCall>> cancel_on_stop;
    if (info.stop.stop_possible()) {
        cancel_on_stop.emplace(info.stop, detail::CancelCall{&context});
    }
    AttemptOutcome outcome;
    const auto reader = stub.PrepareUnaryCall(&context, method, request, &queue);
    reader->StartCall();
    int finished = 0;
    reader->Finish(&outcome.response, &outcome.status, &finished);
    void* tag = nullptr;
    bool ok = false;
    // Finish always delivers its tag once, whatever became of the call.
    while (queue.Next(&tag, &ok) && tag != &finished) {
    }
    cancel_on_stop.reset();
    outcome.classification = classify(outcome.status, context.GetServerTrailingMetadata());
    return outcome;
}

}  // namespace

UnaryClient::UnaryClient(const RetryExecutor& executor,
                         std::shared_ptr<::grpc::ChannelInterface> channel,
                         UnaryClientOptions options)
    : executor_(&executor), channel_(std::move(channel)), options_(options) {
    detail::check_options(options_);
}

CallResult UnaryClient::call(std::string_view handler, const std::string& method,
                             const ::grpc::ByteBuffer& request, const RunOptions& options,
                             FunctionRef<void(::grpc::ClientContext&)> prepare) const {
    ::grpc::GenericStub stub(channel_);
    OwnedQueue queue;
    CallResult result;
    result.run = executor_->run(
        handler,
        [&](const AttemptInfo& info) -> std::optional<Error> {
            AttemptOutcome outcome =
                perform(stub, queue.get(), method, request, info, options_, prepare);
            result.status = outcome.status;
            std::optional<Error> error =
                detail::attempt_error(outcome.status, outcome.classification);
            if (!error) {
                result.response.Swap(&outcome.response);  // ByteBuffer has no move assignment
            }
            return error;
        },
        options);
    return result;
}

}  // namespace rebound::grpc
