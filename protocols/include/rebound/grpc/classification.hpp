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
#include "rebound/http/header.hpp"

namespace rebound::grpc {

inline constexpr std::string_view kPushbackTrailer = "grpc-retry-pushback-ms";

struct Pushback {
    std::optional<Duration> delay;  // a value >= 0: wait that long
    bool refused = false;           // negative or unparseable: do not retry
};

// One trailer value as gRPC itself reads it (gRPC core parses this trailer with
// absl::SimpleAtoi into a 64-bit integer, on the server and again on the client, and hands the
// application its own re-encoding: an unreadable value arrives as -9223372036854775808):
// ASCII whitespace around, an optional sign, decimal digits, within a signed 64-bit integer.
// >= 0 (and -0) is a delay, saturating at 2^31 - 1 ms; negative, out of range (20 digits) or
// anything else is a refusal.
Pushback parse_pushback(std::string_view value) noexcept;

// A call's trailers, given one by one in the order they arrived, as far as the pushback goes:
// the one function both rebound::grpc's adapter (a call's trailing metadata) and `rebound
// classify --grpc` (its --header lines) read them with, so that both say the same. Several
// pushback trailers: the last counts, as in gRPC, which keeps only the last one it received, so a
// client over a real channel never sees the others. Other names are ignored; names compare
// case-insensitively. Holds a view of the value that counts.
class PushbackTrailers {
  public:
    void add(std::string_view name, std::string_view value) noexcept;
    // The value that counts; absent without a pushback trailer.
    std::optional<std::string_view> value() const noexcept { return value_; }

  private:
    std::optional<std::string_view> value_;
};

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
