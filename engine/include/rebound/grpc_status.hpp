// gRPC status codes (docs/protocols.md): the seventeen canonical codes, their names, and reading
// a status as a user writes it (a name in any case, or its number 0..16).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace rebound {

// The numeric values are the wire codes of the gRPC protocol.
enum class GrpcStatus : std::uint8_t {
    Ok = 0,
    Cancelled = 1,
    Unknown = 2,
    InvalidArgument = 3,
    DeadlineExceeded = 4,
    NotFound = 5,
    AlreadyExists = 6,
    PermissionDenied = 7,
    ResourceExhausted = 8,
    FailedPrecondition = 9,
    Aborted = 10,
    OutOfRange = 11,
    Unimplemented = 12,
    Internal = 13,
    Unavailable = 14,
    DataLoss = 15,
    Unauthenticated = 16,
};

inline constexpr std::size_t kGrpcStatusCount = 17;

// Canonical upper-case names, indexed by code.
inline constexpr std::array<std::string_view, kGrpcStatusCount> kGrpcStatusNames{
    "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
    "DATA_LOSS", "UNAUTHENTICATED"};

constexpr std::string_view to_string(GrpcStatus status) noexcept {
    return kGrpcStatusNames[static_cast<std::size_t>(status)];
}

// A status from its name (case-insensitive, `unavailable`) or its code (`14`); nullopt otherwise.
std::optional<GrpcStatus> parse_grpc_status(std::string_view text) noexcept;

}  // namespace rebound
