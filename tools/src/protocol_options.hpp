// The protocol options shared by `rebound classify` and `rebound decide` (docs/cli.md):
// --http, --transport, --grpc, --header, --method, --now. They classify as docs/protocols.md says.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/error.hpp"
#include "rebound/http/header.hpp"

namespace rebound::cli {

struct ProtocolOptions {
    int http = 0;
    std::string transport;
    std::string grpc;
    std::vector<std::string> headers;  // `Name: value`
    std::string method = "GET";
    std::string now;  // an HTTP-date; empty: the current time

    bool any_protocol() const { return http != 0 || !transport.empty() || !grpc.empty(); }
};

// Adds the options to `command`; `http_description` says what --http does there.
void add_protocol_options(CLI::App& command, ProtocolOptions& options);

// One classified protocol failure. `error` holds no views into this object.
struct ProtocolClassification {
    std::string protocol;   // "http" or "grpc"
    nlohmann::json status;  // the HTTP status, the gRPC status name, or null (transport)
    bool idempotent = false;
    ErrorDescription error;  // category absent when the call did not fail
};

// Classifies the options; prints a usage error (naming `command`) and returns nullopt when they
// are inconsistent or unreadable. Call only when any_protocol().
std::optional<ProtocolClassification> classify_protocol(std::string_view command,
                                                        const ProtocolOptions& options,
                                                        bool declared_idempotent);

}  // namespace rebound::cli
