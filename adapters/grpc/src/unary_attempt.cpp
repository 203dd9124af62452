#include "unary_attempt.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

#include "rebound/attempt_time_limit.hpp"

namespace rebound::grpc::detail {
namespace {

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

}  // namespace

void prepare_context(::grpc::ClientContext& context, const AttemptInfo& info,
                     const UnaryClientOptions& options,
                     FunctionRef<void(::grpc::ClientContext&)> prepare) {
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
    if (info.attempt > 1) {
        context.AddMetadata(std::string(kPreviousAttemptsHeader), std::to_string(info.attempt - 1));
    }
}

std::optional<Error> attempt_error(const ::grpc::Status& status,
                                   const Classification& classification) {
    if (!classification.failed()) {
        return std::nullopt;
    }
    ErrorDescription description = classification.error();
    // grpc::Status::error_message() returns a copy: the view must see one that lives until Error
    // has copied it.
    const std::string message = status.error_message();
    description.message = message;
    return Error(description);
}

void check_options(const UnaryClientOptions& options) {
    if (options.default_timeout && *options.default_timeout <= Duration::zero()) {
        throw std::invalid_argument(
            "rebound::grpc: default_timeout must be positive (nullopt for none)");
    }
}

}  // namespace rebound::grpc::detail
