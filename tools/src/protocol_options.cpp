#include "protocol_options.hpp"

#include <iostream>

#include "cli_support.hpp"
#include "rebound/grpc/classification.hpp"
#include "rebound/http/classification.hpp"
#include "rebound/http/retry_after.hpp"

namespace rebound::cli {
namespace {

// The headers as views into `options`, which outlives the returned vector.
std::optional<std::vector<http::Header>> parsed_headers(std::string_view command,
                                                        const ProtocolOptions& options) {
    std::vector<http::Header> headers;
    for (const std::string& line : options.headers) {
        const std::optional<http::Header> header = http::split_header_line(line);
        if (!header) {
            std::cerr << "rebound " << command << ": --header '" << line
                      << "': expected 'Name: value', such as 'Retry-After: 120'\n";
            return std::nullopt;
        }
        headers.push_back(*header);
    }
    return headers;
}

std::optional<std::chrono::system_clock::time_point> received_time(std::string_view command,
                                                                   const ProtocolOptions& options) {
    const auto now = std::chrono::system_clock::now();
    if (options.now.empty()) {
        return now;
    }
    const auto parsed =
        http::parse_http_date(options.now, std::chrono::floor<std::chrono::seconds>(now));
    if (!parsed) {
        std::cerr << "rebound " << command << ": --now '" << options.now
                  << "': expected an HTTP-date such as 'Sun, 06 Nov 1994 08:49:37 GMT'\n";
        return std::nullopt;
    }
    // The clock counts nanoseconds from 1970 in 64 bits: 1677-09-21 to 2262-04-11. A cast toward
    // zero keeps both ends inside that range.
    using Clock = std::chrono::system_clock;
    const auto earliest =
        std::chrono::time_point_cast<std::chrono::seconds>(Clock::time_point::min());
    const auto latest =
        std::chrono::time_point_cast<std::chrono::seconds>(Clock::time_point::max());
    if (*parsed < earliest || *parsed > latest) {
        std::cerr << "rebound " << command << ": --now '" << options.now
                  << "': outside the receive times the system clock holds (1677-09-21 to "
                     "2262-04-11)\n";
        return std::nullopt;
    }
    return Clock::time_point(*parsed);
}

std::optional<ProtocolClassification> classify_grpc(std::string_view command,
                                                    const ProtocolOptions& options,
                                                    const std::vector<http::Header>& headers) {
    const std::optional<GrpcStatus> status = parse_grpc_status(options.grpc);
    if (!status) {
        std::cerr << "rebound " << command << ": --grpc '" << options.grpc
                  << "': expected a gRPC status name such as UNAVAILABLE or a code 0..16\n";
        return std::nullopt;
    }
    // Read as the gRPC adapter reads a call's trailers, so that both say the same.
    grpc::PushbackTrailers pushback;
    for (const http::Header& header : headers) {
        pushback.add(header.name, header.value);
    }
    const grpc::Classification result = grpc::classify(*status, pushback.value());
    return ProtocolClassification{"grpc", std::string(to_string(*status)), false, result.error()};
}

}  // namespace

void add_protocol_options(CLI::App& command, ProtocolOptions& options) {
    add_whole_number_option(command, "--http", options.http, 100, 599,
                            "HTTP status of the response, e.g. 503");
    command
        .add_option("--transport", options.transport,
                    "A transport failure: connect (nothing sent), tls (certificate or protocol "
                    "rejected), send (before the whole request was sent), wait (after it, "
                    "before the status), body (while reading the body)")
        ->check(CLI::IsMember({"connect", "tls", "send", "wait", "body"}));
    command.add_option("--grpc", options.grpc, "gRPC status, e.g. UNAVAILABLE or 14");
    command
        .add_option("--header", options.headers,
                    "A header ('Retry-After: 120', 'Idempotency-Key: k', "
                    "'grpc-retry-pushback-ms: 250'); repeatable")
        ->allow_extra_args(false);
    command.add_option("--method", options.method, "HTTP method of the request (default GET)");
    command.add_option("--now", options.now,
                       "When the response was received, an HTTP-date (default: now)");
}

std::optional<ProtocolClassification> classify_protocol(std::string_view command,
                                                        const ProtocolOptions& options,
                                                        bool declared_idempotent) {
    const int given = (options.http != 0 ? 1 : 0) + (options.transport.empty() ? 0 : 1) +
                      (options.grpc.empty() ? 0 : 1);
    if (given != 1) {
        std::cerr << "rebound " << command
                  << ": give one of --http, --transport and --grpc, not several\n";
        return std::nullopt;
    }
    const auto headers = parsed_headers(command, options);
    if (!headers) {
        return std::nullopt;
    }
    if (!options.grpc.empty()) {
        return classify_grpc(command, options, *headers);
    }
    const http::Request request{options.method, *headers, declared_idempotent};
    if (!options.transport.empty()) {
        const http::Classification result =
            http::classify_transport(request, *http::parse_transport_failure(options.transport));
        return ProtocolClassification{"http", nullptr, result.idempotent, result.error()};
    }
    const auto received = received_time(command, options);
    if (!received) {
        return std::nullopt;
    }
    const http::Classification result =
        http::classify_response(request, http::Response{options.http, *headers, *received});
    return ProtocolClassification{"http", options.http, result.idempotent, result.error()};
}

}  // namespace rebound::cli
