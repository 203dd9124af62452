#include "rebound/grpc/classification.hpp"

#include <algorithm>
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

constexpr std::uint64_t kMaxPushbackMs = (std::uint64_t{1} << 31) - 1;
constexpr std::uint64_t kMaxInt64 = (std::uint64_t{1} << 63) - 1;

}  // namespace

Pushback parse_pushback(std::string_view value) noexcept {
    constexpr Pushback kRefused{std::nullopt, true};
    // absl::ascii_isspace, which absl::SimpleAtoi skips on both sides.
    constexpr std::string_view kSpace = " \t\n\v\f\r";
    const std::size_t first = value.find_first_not_of(kSpace);
    if (first == std::string_view::npos) {
        return kRefused;
    }
    value = value.substr(first, value.find_last_not_of(kSpace) - first + 1);
    const bool negative = value.front() == '-';
    if (negative || value.front() == '+') {
        value.remove_prefix(1);
    }
    if (value.empty()) {
        return kRefused;
    }
    // The magnitude, failing past what a signed 64-bit integer holds (2^63 for a negative value),
    // as gRPC's parse fails.
    const std::uint64_t limit = negative ? std::uint64_t{1} << 63 : kMaxInt64;
    std::uint64_t magnitude = 0;
    for (const char c : value) {
        if (c < '0' || c > '9') {
            return kRefused;
        }
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (magnitude > (limit - digit) / 10) {
            return kRefused;
        }
        magnitude = magnitude * 10 + digit;
    }
    if (negative && magnitude > 0) {
        return kRefused;
    }
    return Pushback{Duration(std::chrono::milliseconds(std::min(magnitude, kMaxPushbackMs))),
                    false};
}

void PushbackTrailers::add(std::string_view name, std::string_view value) noexcept {
    if (http::name_equals(name, kPushbackTrailer)) {
        value_ = value;
    }
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
