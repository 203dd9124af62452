// Classification of a failed gRPC call (docs/protocols.md): its status, and the
// `grpc-retry-pushback-ms` trailer (gRFC A6) as a server delay hint or refusal
// (docs/resilience.md). Pure functions; they never allocate or throw.
#pragma once

#include <optional>
#include <string_view>

#include "rebound/duration.hpp"
#include "rebound/error.hpp"
#include "rebound/error_category.hpp"
#include "rebound/grpc_status.hpp"

namespace rebound::grpc {

inline constexpr std::string_view kPushbackTrailer = "grpc-retry-pushback-ms";

struct Pushback {
    std::optional<Duration> delay;  // a value >= 0: wait that long
    bool refused = false;           // negative or unparseable: do not retry
};

// A signed decimal integer of milliseconds; values beyond 2^31 - 1 saturate there.
Pushback parse_pushback(std::string_view value) noexcept;

// The category of a status; absent for OK.
std::optional<ErrorCategory> category_of(GrpcStatus status) noexcept;

struct Classification {
    GrpcStatus status = GrpcStatus::Ok;
    std::optional<ErrorCategory> category;  // absent for OK
    Pushback pushback;

    bool failed() const noexcept { return category.has_value(); }
    ErrorDescription error() const noexcept;
};

// `pushback_trailer`: the trailer's value when the call carried one.
Classification classify(GrpcStatus status,
                        std::optional<std::string_view> pushback_trailer = std::nullopt) noexcept;

}  // namespace rebound::grpc
