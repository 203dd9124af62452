#include "rebound/grpc/classification.hpp"

#include <array>
#include <cstdint>

namespace rebound::grpc {
namespace {

// Indexed by status code; OK has no category.
constexpr std::array<std::optional<ErrorCategory>, kGrpcStatusCount> kCategories{
    std::nullopt,                         // OK
    ErrorCategory::ClientError,           // CANCELLED: the caller cancelled
    ErrorCategory::Unknown,               // UNKNOWN
    ErrorCategory::DataError,             // INVALID_ARGUMENT
    ErrorCategory::StatementTimeout,      // DEADLINE_EXCEEDED: may have done work
    ErrorCategory::ClientError,           // NOT_FOUND
    ErrorCategory::ConstraintViolation,   // ALREADY_EXISTS
    ErrorCategory::PermissionDenied,      // PERMISSION_DENIED
    ErrorCategory::ResourceExhausted,     // RESOURCE_EXHAUSTED
    ErrorCategory::ClientError,           // FAILED_PRECONDITION
    ErrorCategory::SerializationFailure,  // ABORTED: retry the whole operation
    ErrorCategory::DataError,             // OUT_OF_RANGE
    ErrorCategory::ClientError,           // UNIMPLEMENTED
    ErrorCategory::SystemError,           // INTERNAL
    ErrorCategory::ServiceUnavailable,    // UNAVAILABLE
    ErrorCategory::SystemError,           // DATA_LOSS
    ErrorCategory::AuthenticationFailed,  // UNAUTHENTICATED
};

constexpr std::int64_t kMaxPushbackMs = (std::int64_t{1} << 31) - 1;

}  // namespace

Pushback parse_pushback(std::string_view value) noexcept {
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) {
        value.remove_prefix(1);
    }
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) {
        value.remove_suffix(1);
    }
    const bool negative = !value.empty() && value.front() == '-';
    if (negative) {
        value.remove_prefix(1);
    }
    if (value.empty()) {
        return Pushback{std::nullopt, true};
    }
    std::int64_t ms = 0;
    for (const char c : value) {
        if (c < '0' || c > '9') {
            return Pushback{std::nullopt, true};
        }
        ms = ms >= kMaxPushbackMs ? kMaxPushbackMs : ms * 10 + (c - '0');
    }
    if (negative && ms > 0) {
        return Pushback{std::nullopt, true};
    }
    return Pushback{Duration(std::chrono::milliseconds(ms < kMaxPushbackMs ? ms : kMaxPushbackMs)),
                    false};
}

std::optional<ErrorCategory> category_of(GrpcStatus status) noexcept {
    return kCategories[static_cast<std::size_t>(status)];
}

ErrorDescription Classification::error() const noexcept {
    ErrorDescription e;
    e.category = category;
    e.grpc_status = status;
    e.server_delay = pushback.delay;
    e.server_refused = pushback.refused;
    return e;
}

Classification classify(GrpcStatus status,
                        std::optional<std::string_view> pushback_trailer) noexcept {
    Classification result;
    result.status = status;
    result.category = category_of(status);
    if (pushback_trailer) {
        result.pushback = parse_pushback(*pushback_trailer);
    }
    return result;
}

}  // namespace rebound::grpc
