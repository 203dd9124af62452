#include "rebound/http/classification.hpp"

#include <array>

#include "rebound/http/retry_after.hpp"

namespace rebound::http {
namespace {

// RFC 9110 section 9.2.2.
constexpr std::array<std::string_view, 6> kIdempotentMethods{"GET",   "HEAD", "OPTIONS",
                                                             "TRACE", "PUT",  "DELETE"};

constexpr std::array<std::string_view, 5> kTransportWords{"connect", "tls", "send", "wait", "body"};

// An ambiguous failure: the server may have done the work.
constexpr ErrorCategory ambiguous(bool idempotent) noexcept {
    return idempotent ? ErrorCategory::ConnectionLost : ErrorCategory::CommitOutcomeUnknown;
}

}  // namespace

ErrorDescription Classification::error() const noexcept {
    ErrorDescription e;
    e.category = category;
    e.http_status = status;
    e.server_delay = server_delay;
    return e;
}

bool is_idempotent(const Request& request) noexcept {
    if (request.declared_idempotent) {
        return true;
    }
    for (const std::string_view method : kIdempotentMethods) {
        if (request.method == method) {
            return true;
        }
    }
    for (const Header& header : request.headers) {
        if (name_equals(header.name, "Idempotency-Key")) {
            return true;
        }
    }
    return false;
}

Classification classify_transport(const Request& request, TransportFailure failure) noexcept {
    Classification result;
    result.idempotent = is_idempotent(request);
    switch (failure) {
        case TransportFailure::Connect:
            result.category = ErrorCategory::ConnectionFailure;
            break;
        case TransportFailure::Tls:
            result.category = ErrorCategory::ClientError;
            break;
        case TransportFailure::Send:
            result.category = ErrorCategory::ConnectionLost;
            break;
        case TransportFailure::Wait:
        case TransportFailure::Body:
            result.category = ambiguous(result.idempotent);
            break;
    }
    return result;
}

std::optional<ErrorCategory> category_of_status(int status, bool idempotent) noexcept {
    if (status < 100 || status > 599) {
        return ErrorCategory::Unknown;
    }
    if (status < 400) {
        return std::nullopt;
    }
    switch (status) {
        case 408:
            return ErrorCategory::ConnectionLost;
        case 425:
        case 503:
            return ErrorCategory::ServiceUnavailable;
        case 429:
            return ErrorCategory::ResourceExhausted;
        case 502:
        case 504:
            return idempotent ? ErrorCategory::ServiceUnavailable
                              : ErrorCategory::CommitOutcomeUnknown;
        case 401:
        case 407:
            return ErrorCategory::AuthenticationFailed;
        case 403:
            return ErrorCategory::PermissionDenied;
        case 409:
        case 412:
            return ErrorCategory::OptimisticConflict;
        case 400:
        case 413:
        case 414:
        case 415:
        case 416:
        case 422:
            return ErrorCategory::DataError;
        default:
            return status >= 500 ? ErrorCategory::SystemError : ErrorCategory::ClientError;
    }
}

Classification classify_response(const Request& request, const Response& response) noexcept {
    Classification result;
    result.idempotent = is_idempotent(request);
    const bool valid_status = response.status >= 100 && response.status <= 599;
    result.status = valid_status ? response.status : 0;
    result.category = category_of_status(response.status, result.idempotent);
    result.server_delay = retry_after_hint(response.headers, response.received);
    return result;
}

std::string_view to_string(TransportFailure failure) noexcept {
    return kTransportWords[static_cast<std::size_t>(failure)];
}

std::optional<TransportFailure> parse_transport_failure(std::string_view text) noexcept {
    for (std::size_t i = 0; i < kTransportWords.size(); ++i) {
        if (text == kTransportWords[i]) {
            return static_cast<TransportFailure>(i);
        }
    }
    return std::nullopt;
}

}  // namespace rebound::http
