// Classification of an HTTP call's failure (docs/protocols.md): a pure function of what the client
// saw (the request's method and headers, how far it got or the response's status and headers, and
// when the response arrived). Usable with any client library; adapters/curl applies it to libcurl.
// Never allocates or throws.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "rebound/duration.hpp"
#include "rebound/error.hpp"
#include "rebound/error_category.hpp"
#include "rebound/http/header.hpp"

namespace rebound::http {

struct Request {
    std::string_view method = "GET";
    std::span<const Header> headers;
    // The handler is declared idempotent (a policy binding or the code): POST and PATCH are then
    // safe to repeat without an Idempotency-Key.
    bool declared_idempotent = false;
};

// How far a request got when the transport failed (the rows of docs/protocols.md).
enum class TransportFailure : std::uint8_t {
    Connect,  // nothing was sent: name resolution, refused, connect timeout, TLS for network
              // reasons
    Tls,      // the TLS certificate or protocol was rejected
    Send,     // broke or timed out before the whole request was sent
    Wait,     // after the whole request was sent, before a status line arrived
    Body,     // while the response body was read
};

struct Response {
    int status = 0;
    std::span<const Header> headers;
    // When the response was received: an HTTP-date in Retry-After counts from here.
    std::chrono::system_clock::time_point received;
};

struct Classification {
    // Absent when the call did not fail (2xx, 3xx).
    std::optional<ErrorCategory> category;
    int status = 0;  // the HTTP status; 0 for a transport failure
    bool idempotent = false;
    std::optional<Duration> server_delay;  // the Retry-After hint

    bool failed() const noexcept { return category.has_value(); }
    // The description the decision takes (no text fields; nothing to keep alive).
    ErrorDescription error() const noexcept;
};

// GET HEAD OPTIONS TRACE PUT DELETE (RFC 9110 section 9.2.2, methods compared case-sensitively
// as the RFC says); other methods when the request has an `Idempotency-Key` header or the handler
// is declared idempotent.
bool is_idempotent(const Request& request) noexcept;

Classification classify_transport(const Request& request, TransportFailure failure) noexcept;

// A response that arrived. Statuses outside 100..599 classify as `unknown`.
Classification classify_response(const Request& request, const Response& response) noexcept;

// The category of a status alone, for an idempotent or a non-idempotent request; absent for
// 1xx, 2xx and 3xx.
std::optional<ErrorCategory> category_of_status(int status, bool idempotent) noexcept;

std::string_view to_string(TransportFailure failure) noexcept;
std::optional<TransportFailure> parse_transport_failure(std::string_view text) noexcept;

}  // namespace rebound::http
