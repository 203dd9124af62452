// HTTP and gRPC failure classification (docs/protocols.md).
#include <catch2/catch.hpp>
#include <chrono>
#include <vector>

#include "rebound/grpc/classification.hpp"
#include "rebound/http/classification.hpp"

namespace {

using namespace std::chrono_literals;
using rebound::Duration;
using rebound::ErrorCategory;
using rebound::GrpcStatus;
namespace http = rebound::http;
namespace grpc = rebound::grpc;

http::Request request(std::string_view method, std::span<const http::Header> headers = {}) {
    return http::Request{method, headers, false};
}

std::optional<ErrorCategory> status_category(int status, std::string_view method = "GET") {
    return http::classify_response(request(method), http::Response{status, {}, {}}).category;
}

}  // namespace

TEST_CASE("HTTP methods: the RFC's idempotent ones, and POST or PATCH with an Idempotency-Key",
          "[protocols][http]") {
    for (const std::string_view method : {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"}) {
        CHECK(http::is_idempotent(request(method)));
    }
    CHECK_FALSE(http::is_idempotent(request("POST")));
    CHECK_FALSE(http::is_idempotent(request("PATCH")));
    CHECK_FALSE(http::is_idempotent(request("get")));  // methods are case-sensitive
    const std::vector<http::Header> keyed{{"idempotency-key", "8e03978e"}};
    CHECK(http::is_idempotent(request("POST", keyed)));
    CHECK(http::is_idempotent(http::Request{"PATCH", {}, true}));
}

TEST_CASE("HTTP transport failures by how far the request got", "[protocols][http]") {
    using F = http::TransportFailure;
    const auto category = [](std::string_view method, F f) {
        return http::classify_transport(request(method), f).category;
    };
    CHECK(category("POST", F::Connect) == ErrorCategory::ConnectionFailure);
    CHECK(category("GET", F::Tls) == ErrorCategory::ClientError);
    CHECK(category("POST", F::Send) == ErrorCategory::ConnectionLost);
    CHECK(category("GET", F::Wait) == ErrorCategory::ConnectionLost);
    CHECK(category("POST", F::Wait) == ErrorCategory::CommitOutcomeUnknown);
    CHECK(category("PUT", F::Body) == ErrorCategory::ConnectionLost);
    CHECK(category("PATCH", F::Body) == ErrorCategory::CommitOutcomeUnknown);
    const http::Classification c = http::classify_transport(request("GET"), F::Wait);
    CHECK(c.status == 0);
    CHECK(c.error().http_status == 0);
    CHECK_FALSE(c.server_delay.has_value());
}

TEST_CASE("HTTP statuses map to the table's categories", "[protocols][http]") {
    CHECK_FALSE(status_category(200).has_value());
    CHECK_FALSE(status_category(204).has_value());
    CHECK_FALSE(status_category(301).has_value());
    CHECK(status_category(408) == ErrorCategory::ConnectionLost);
    CHECK(status_category(425) == ErrorCategory::ServiceUnavailable);
    CHECK(status_category(429) == ErrorCategory::ResourceExhausted);
    CHECK(status_category(503) == ErrorCategory::ServiceUnavailable);
    CHECK(status_category(502) == ErrorCategory::ServiceUnavailable);
    CHECK(status_category(504, "DELETE") == ErrorCategory::ServiceUnavailable);
    CHECK(status_category(502, "POST") == ErrorCategory::CommitOutcomeUnknown);
    CHECK(status_category(504, "POST") == ErrorCategory::CommitOutcomeUnknown);
    CHECK(status_category(500) == ErrorCategory::SystemError);
    CHECK(status_category(501) == ErrorCategory::SystemError);
    CHECK(status_category(505) == ErrorCategory::SystemError);
    CHECK(status_category(599) == ErrorCategory::SystemError);
    CHECK(status_category(401) == ErrorCategory::AuthenticationFailed);
    CHECK(status_category(407) == ErrorCategory::AuthenticationFailed);
    CHECK(status_category(403) == ErrorCategory::PermissionDenied);
    CHECK(status_category(409) == ErrorCategory::OptimisticConflict);
    CHECK(status_category(412) == ErrorCategory::OptimisticConflict);
    for (const int status : {400, 413, 414, 415, 416, 422}) {
        CHECK(status_category(status) == ErrorCategory::DataError);
    }
    CHECK(status_category(404) == ErrorCategory::ClientError);
    CHECK(status_category(451) == ErrorCategory::ClientError);
    CHECK(status_category(99) == ErrorCategory::Unknown);
    CHECK(status_category(600) == ErrorCategory::Unknown);
}

TEST_CASE("An HTTP response keeps its status and Retry-After on the error description",
          "[protocols][http]") {
    const std::vector<http::Header> headers{{"Retry-After", "3"}};
    const auto received = std::chrono::system_clock::now();
    const http::Classification c =
        http::classify_response(request("GET"), http::Response{429, headers, received});
    const rebound::ErrorDescription e = c.error();
    CHECK(e.category == ErrorCategory::ResourceExhausted);
    CHECK(e.http_status == 429);
    CHECK(e.server_delay == Duration(3s));
    CHECK_FALSE(e.server_refused);
    // A hint on a success is kept too (3xx with Retry-After).
    CHECK(http::classify_response(request("GET"), http::Response{301, headers, received})
              .server_delay == Duration(3s));
    CHECK(http::classify_response(request("GET"), http::Response{700, headers, received})
              .error()
              .http_status == 0);
}

TEST_CASE("gRPC statuses map to the table's categories", "[protocols][grpc]") {
    using S = GrpcStatus;
    CHECK_FALSE(grpc::category_of(S::Ok).has_value());
    CHECK(grpc::category_of(S::Cancelled) == ErrorCategory::ClientError);
    CHECK(grpc::category_of(S::Unknown) == ErrorCategory::Unknown);
    CHECK(grpc::category_of(S::InvalidArgument) == ErrorCategory::DataError);
    CHECK(grpc::category_of(S::OutOfRange) == ErrorCategory::DataError);
    CHECK(grpc::category_of(S::DeadlineExceeded) == ErrorCategory::StatementTimeout);
    CHECK(grpc::category_of(S::NotFound) == ErrorCategory::ClientError);
    CHECK(grpc::category_of(S::FailedPrecondition) == ErrorCategory::ClientError);
    CHECK(grpc::category_of(S::Unimplemented) == ErrorCategory::ClientError);
    CHECK(grpc::category_of(S::AlreadyExists) == ErrorCategory::ConstraintViolation);
    CHECK(grpc::category_of(S::PermissionDenied) == ErrorCategory::PermissionDenied);
    CHECK(grpc::category_of(S::Unauthenticated) == ErrorCategory::AuthenticationFailed);
    CHECK(grpc::category_of(S::ResourceExhausted) == ErrorCategory::ResourceExhausted);
    CHECK(grpc::category_of(S::Aborted) == ErrorCategory::SerializationFailure);
    CHECK(grpc::category_of(S::Unavailable) == ErrorCategory::ServiceUnavailable);
    CHECK(grpc::category_of(S::Internal) == ErrorCategory::SystemError);
    CHECK(grpc::category_of(S::DataLoss) == ErrorCategory::SystemError);
}

TEST_CASE("gRPC status names read in any case and as codes 0 to 16", "[protocols][grpc]") {
    CHECK(rebound::parse_grpc_status("UNAVAILABLE") == GrpcStatus::Unavailable);
    CHECK(rebound::parse_grpc_status("unavailable") == GrpcStatus::Unavailable);
    CHECK(rebound::parse_grpc_status("Deadline_Exceeded") == GrpcStatus::DeadlineExceeded);
    CHECK(rebound::parse_grpc_status("14") == GrpcStatus::Unavailable);
    CHECK(rebound::parse_grpc_status("0") == GrpcStatus::Ok);
    CHECK(rebound::parse_grpc_status("16") == GrpcStatus::Unauthenticated);
    for (const std::string_view bad : {"17", "-1", "", "014", "UNAVAILABLE ", "unavailabl"}) {
        INFO("status '" << bad << "'");
        CHECK_FALSE(rebound::parse_grpc_status(bad).has_value());
    }
    CHECK(rebound::to_string(GrpcStatus::Unavailable) == "UNAVAILABLE");
}

TEST_CASE("grpc-retry-pushback-ms: a delay when >= 0, a refusal when negative or unreadable",
          "[protocols][grpc]") {
    CHECK(grpc::parse_pushback("250").delay == Duration(250ms));
    CHECK_FALSE(grpc::parse_pushback("250").refused);
    CHECK(grpc::parse_pushback("0").delay == Duration(0ms));
    CHECK(grpc::parse_pushback(" 7 ").delay == Duration(7ms));
    CHECK(grpc::parse_pushback("-0").delay == Duration(0ms));
    CHECK(grpc::parse_pushback("+5").delay == Duration(5ms));  // as gRPC reads it
    for (const std::string_view refused :
         {"-1", "-250", "", "abc", "1.5", "5ms", "+", "-", "+-5", "--5", "5 5"}) {
        INFO("trailer '" << refused << "'");
        const grpc::Pushback p = grpc::parse_pushback(refused);
        CHECK(p.refused);
        CHECK_FALSE(p.delay.has_value());
    }
    const rebound::ErrorDescription e = grpc::classify(GrpcStatus::Unavailable, "-1").error();
    CHECK(e.server_refused);
    CHECK(e.grpc_status == GrpcStatus::Unavailable);
    CHECK(e.category == ErrorCategory::ServiceUnavailable);
    CHECK_FALSE(grpc::classify(GrpcStatus::Unavailable).error().server_refused);
}

TEST_CASE("grpc-retry-pushback-ms saturates within 64 bits and refuses beyond, as gRPC reads it",
          "[protocols][grpc]") {
    const Duration most = Duration(2147483647ms);
    CHECK(grpc::parse_pushback("2147483646").delay == Duration(2147483646ms));
    CHECK(grpc::parse_pushback("2147483647").delay == most);
    CHECK(grpc::parse_pushback("2147483648").delay == most);
    CHECK(grpc::parse_pushback("9223372036854775807").delay == most);  // the largest int64
    CHECK(grpc::parse_pushback("+9223372036854775807").delay == most);
    CHECK(grpc::parse_pushback(std::string(40, '0') + "42").delay == Duration(42ms));
    CHECK(grpc::parse_pushback(" \t\r\n\v\f42 \t\r\n\v\f").delay == Duration(42ms));
    CHECK(grpc::parse_pushback("-0000").delay == Duration(0ms));
    // gRPC cannot hold these, and hands the client -9223372036854775808 instead: a refusal.
    for (const std::string_view refused :
         {"9223372036854775808", "99999999999999999999", "18446744073709551616",
          "-9223372036854775808", "-9223372036854775809", "-99999999999999999999",
          "-9223372036854775807"}) {
        INFO("trailer '" << refused << "'");
        const grpc::Pushback p = grpc::parse_pushback(refused);
        CHECK(p.refused);
        CHECK_FALSE(p.delay.has_value());
    }
    CHECK(grpc::parse_pushback(std::string(100'000, '9')).refused);
}

TEST_CASE("grpc pushback trailers: the last one counts, other names are ignored",
          "[protocols][grpc]") {
    grpc::PushbackTrailers none;
    none.add("x-other", "5");
    CHECK_FALSE(none.value().has_value());

    grpc::PushbackTrailers several;
    several.add("grpc-retry-pushback-ms", "100");
    several.add("x-other", "5");
    several.add("Grpc-Retry-Pushback-Ms", "-1");
    several.add("grpc-retry-pushback-ms", "200");
    CHECK(several.value() == "200");
    CHECK(grpc::classify(GrpcStatus::Unavailable, several.value()).pushback.delay ==
          Duration(200ms));
}
