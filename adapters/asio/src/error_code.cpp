#include "rebound/asio/error_code.hpp"

#include <asio/error.hpp>

namespace rebound::asio {
namespace {

// Asio's own codes compare by category and value; std::errc conditions match codes of the
// standard categories (a std::errc code, or std::system_category) with the same errno.
struct Kind {
    std::initializer_list<std::error_code> asio_codes;
    std::initializer_list<std::errc> conditions;
};

bool is_kind(const std::error_code& code, const Kind& kind) noexcept {
    for (const std::error_code& candidate : kind.asio_codes) {
        if (code == candidate) {
            return true;
        }
    }
    for (const std::errc condition : kind.conditions) {
        if (code == condition) {
            return true;
        }
    }
    return false;
}

}  // namespace

bool is_cancellation(const std::error_code& code) noexcept {
    return is_kind(code, {{::asio::error::operation_aborted}, {std::errc::operation_canceled}});
}

ErrorDescription describe(const std::error_code& code) noexcept {
    namespace e = ::asio::error;
    using std::errc;
    ErrorDescription description;
    if (!code) {
        return description;
    }
    if (is_cancellation(code)) {
        description.category = ErrorCategory::ClientError;
    } else if (is_kind(code,
                       {{e::connection_refused, e::host_not_found, e::host_not_found_try_again,
                         e::network_unreachable, e::network_down, e::host_unreachable},
                        {errc::connection_refused, errc::network_unreachable, errc::network_down,
                         errc::host_unreachable}})) {
        description.category = ErrorCategory::ConnectionFailure;
    } else if (is_kind(code, {{e::connection_reset, e::connection_aborted, e::broken_pipe, e::eof,
                               e::not_connected, e::shut_down},
                              {errc::connection_reset, errc::connection_aborted, errc::broken_pipe,
                               errc::not_connected}})) {
        description.category = ErrorCategory::ConnectionLost;
    } else if (is_kind(code, {{e::timed_out}, {errc::timed_out}})) {
        description.category = ErrorCategory::StatementTimeout;
    } else {
        description.category = ErrorCategory::Unknown;
    }
    return description;
}

}  // namespace rebound::asio
