// ErrorDescription: what the engine knows about one failure (docs/semantics.md).
//
// A cheap, non-owning value: every text field is a view into storage owned by the caller (the
// exception, the ODBC diagnostic buffer, a string literal), which must outlive the description.
// Any field may be absent. Building and copying one never allocates, so it can be passed down
// the decision hot path by value.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "rebound/duration.hpp"
#include "rebound/error_category.hpp"
#include "rebound/grpc_status.hpp"
#include "rebound/vendor.hpp"

namespace rebound {

struct ErrorDescription {
    // Set by the classifier (ODBC adapter) or directly by application code.
    std::optional<ErrorCategory> category;
    // Five-character SQLSTATE; empty when absent.
    std::string_view sqlstate;
    // Vendor whose native code `native_code` is; absent when unknown.
    std::optional<Vendor> vendor;
    std::optional<std::int64_t> native_code;
    // Dotted error type name such as `io.timeout.read`; empty when absent.
    std::string_view error_type;
    // HTTP status code (100..599); 0 when absent.
    int http_status = 0;
    // gRPC status of a failed call; absent when the error did not come from gRPC.
    std::optional<GrpcStatus> grpc_status;
    // Human-readable message; empty when absent.
    std::string_view message;
    // How long the server asked the client to wait before trying again (HTTP Retry-After, gRPC
    // pushback), or, for a `circuit_open` error, the time until the breaker half-opens
    // (docs/resilience.md). Never negative; absent when there is no usable hint.
    std::optional<Duration> server_delay;
    // The server said not to retry (a negative or unreadable gRPC pushback): the decision stops
    // with server_refused even when the error would otherwise be retried.
    bool server_refused = false;

    // The category used by category matchers: an error without one counts as `unknown`
    // (fail closed, docs/categories.md).
    constexpr ErrorCategory effective_category() const noexcept {
        return category.value_or(ErrorCategory::Unknown);
    }

    static constexpr ErrorDescription of(ErrorCategory c) noexcept {
        ErrorDescription e;
        e.category = c;
        return e;
    }
};

}  // namespace rebound
