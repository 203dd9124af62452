// std::error_code / asio::error_code classification (docs/semantics.md).
#include <catch2/catch.hpp>

#include <asio/error.hpp>

#include "rebound/asio/error_code.hpp"

namespace {

using rebound::ErrorCategory;

std::optional<ErrorCategory> category(const std::error_code& code) {
    return rebound::asio::describe(code).category;
}

}  // namespace

TEST_CASE("asio error codes classify as the asynchronous executor's table says", "[asio]") {
    namespace e = asio::error;
    CHECK_FALSE(category(std::error_code()).has_value());
    CHECK(category(e::connection_refused) == ErrorCategory::ConnectionFailure);
    CHECK(category(e::host_not_found) == ErrorCategory::ConnectionFailure);
    CHECK(category(e::network_unreachable) == ErrorCategory::ConnectionFailure);
    CHECK(category(e::connection_reset) == ErrorCategory::ConnectionLost);
    CHECK(category(e::connection_aborted) == ErrorCategory::ConnectionLost);
    CHECK(category(e::broken_pipe) == ErrorCategory::ConnectionLost);
    CHECK(category(e::eof) == ErrorCategory::ConnectionLost);
    CHECK(category(e::timed_out) == ErrorCategory::StatementTimeout);
    CHECK(category(std::make_error_code(std::errc::timed_out)) == ErrorCategory::StatementTimeout);
    CHECK(category(std::make_error_code(std::errc::connection_refused)) ==
          ErrorCategory::ConnectionFailure);
    CHECK(category(e::access_denied) == ErrorCategory::Unknown);
}

TEST_CASE("operation_aborted is a cancellation, not a failure to retry", "[asio]") {
    CHECK(rebound::asio::is_cancellation(asio::error::operation_aborted));
    CHECK(rebound::asio::is_cancellation(std::make_error_code(std::errc::operation_canceled)));
    CHECK_FALSE(rebound::asio::is_cancellation(asio::error::connection_reset));
    CHECK(category(asio::error::operation_aborted) == ErrorCategory::ClientError);
}
