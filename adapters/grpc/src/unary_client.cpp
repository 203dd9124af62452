#include "rebound/grpc/unary_client.hpp"

#include <grpcpp/completion_queue.h>
#include <grpcpp/support/async_unary_call.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <utility>

#include "rebound/attempt_time_limit.hpp"
#include "rebound/grpc/status_classification.hpp"

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

// Cancels a call when the run's stop token is set (from whichever thread sets it).
struct CancelCall {
    ::grpc::ClientContext* context;
    void operator()() const noexcept { context->TryCancel(); }
};

struct AttemptOutcome {
    ::grpc::Status status;
    ::grpc::ByteBuffer response;
    Classification classification;
};

// `now` + `limit`, saturating at the clock's end (which gRPC reads as no deadline): the clock
// counts nanoseconds, and a limit of many years would overflow it.
std::chrono::system_clock::time_point deadline_after(std::chrono::system_clock::time_point now,
                                                     Duration limit) noexcept {
    using Clock = std::chrono::system_clock;
    const auto room = std::chrono::duration_cast<Duration>(Clock::time_point::max() - now);
    if (limit >= room) {
        return Clock::time_point::max();
    }
    return now + std::chrono::duration_cast<Clock::duration>(limit);
}

// One unary call, waited for on `queue` (the only operation on it, so the one event is ours).
AttemptOutcome perform(::grpc::GenericStub& stub, ::grpc::CompletionQueue& queue,
                       const std::string& method, const ::grpc::ByteBuffer& request,
                       const AttemptInfo& info, const UnaryClientOptions& options,
                       FunctionRef<void(::grpc::ClientContext&)> prepare) {
    ::grpc::ClientContext context;
    if (prepare) {
        prepare(context);
    }
    std::optional<Duration> limit = attempt_time_limit(info);
    if (!limit) {
        limit = options.default_timeout;  // the policy has neither deadline nor attempt_timeout
    }
    if (limit) {
        context.set_deadline(deadline_after(std::chrono::system_clock::now(), *limit));
    }
    // The run's stop token cancels the call in progress; the call then ends with CANCELLED.
    std::optional<std::stop_callback<CancelCall>> cancel_on_stop;
    if (info.stop.stop_possible()) {
        cancel_on_stop.emplace(info.stop, CancelCall{&context});
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
    if (options_.default_timeout && *options_.default_timeout <= Duration::zero()) {
        throw std::invalid_argument(
            "rebound::grpc: default_timeout must be positive (nullopt for none)");
    }
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
            if (!outcome.classification.failed()) {
                result.response.Swap(&outcome.response);  // ByteBuffer has no move assignment
                return std::nullopt;
            }
            ErrorDescription description = outcome.classification.error();
            // grpc::Status::error_message() returns a copy: the view must see one that lives
            // until Error has copied it.
            const std::string message = outcome.status.error_message();
            description.message = message;
            return Error(description);
        },
        options);
    return result;
}

}  // namespace rebound::grpc
