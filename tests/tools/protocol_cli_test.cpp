// `rebound classify --http/--transport/--grpc` and the protocol options of `rebound decide`
// (docs/cli.md, docs/protocols.md), run as a user runs them.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_command.hpp"

namespace {

using nlohmann::json;
using rebound::testing::CommandResult;

CommandResult run_cli(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), REBOUND_CLI_PATH);
    return rebound::testing::run_command(arguments);
}

json classify_json(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), "classify");
    arguments.insert(arguments.end(), {"--format", "json"});
    const CommandResult result = run_cli(arguments);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    return json::parse(result.out);
}

// A policy retrying UNAVAILABLE and 503 only, with a fixed 1s backoff and hints used.
std::string gateway_file() {
    const auto dir = rebound::testing::make_temporary_directory("rebound-protocol-cli");
    const std::string path = dir + "/gateway.yaml";
    std::ofstream(path) << R"(rebound: 1
service: gateway
policies:
  calls:
    max_attempts: 4
    backoff: { type: fixed, delay: 1s }
    jitter: none
    retry_on: [{ grpc: UNAVAILABLE }, { http: 503 }, connection_lost]
handlers:
  orders.create: calls
  orders.replace: { policy: calls, idempotent: true }
)";
    return path;
}

json decide_json(const std::string& handler, std::vector<std::string> options) {
    std::vector<std::string> arguments{"decide", gateway_file(), "--handler", handler, "--attempt",
                                       "1",      "--format",     "json"};
    arguments.insert(arguments.end(), options.begin(), options.end());
    const CommandResult result = run_cli(arguments);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    return json::parse(result.out);
}

}  // namespace

TEST_CASE("classify --http prints the whole JSON document of docs/cli.md", "[cli][protocols]") {
    const json out =
        classify_json({"--http", "503", "--method", "POST", "--header", "Retry-After: 120"});
    CHECK(out == json::parse(R"({"protocol": "http", "status": 503, "method": "POST",
        "idempotent": false, "category": "service_unavailable", "retryable_by_default": true,
        "server_delay_ms": 120000, "server_refused": false})"));
}

TEST_CASE("classify --http of a success has no category", "[cli][protocols]") {
    const json out = classify_json({"--http", "204"});
    CHECK(out["category"] == nullptr);
    CHECK(out["retryable_by_default"] == false);
}

TEST_CASE("classify --transport names how far the request got", "[cli][protocols]") {
    const json out = classify_json({"--transport", "body", "--method", "POST"});
    CHECK(out["status"] == nullptr);
    CHECK(out["transport"] == "body");
    CHECK(out["category"] == "commit_outcome_unknown");
    CHECK(classify_json({"--transport", "body", "--method", "POST", "--header",
                         "idempotency-key: 42"})["category"] == "connection_lost");
}

TEST_CASE("classify --grpc prints the canonical status name and the pushback", "[cli][protocols]") {
    const json out =
        classify_json({"--grpc", "resource_exhausted", "--header", "grpc-retry-pushback-ms: 1500"});
    CHECK(out == json::parse(R"({"protocol": "grpc", "status": "RESOURCE_EXHAUSTED",
        "idempotent": false, "category": "resource_exhausted", "retryable_by_default": true,
        "server_delay_ms": 1500, "server_refused": false})"));
}

TEST_CASE("classify protocol usage errors exit 2 and say what is wrong", "[cli][protocols]") {
    const auto usage = [](std::vector<std::string> arguments, std::string_view says) {
        arguments.insert(arguments.begin(), "classify");
        const CommandResult result = run_cli(arguments);
        INFO(result.err);
        CHECK(result.exit_code == 2);
        CHECK(result.err.find(says) != std::string::npos);
    };
    usage({"--grpc", "UNAVAILABL"}, "--grpc 'UNAVAILABL'");
    usage({"--http", "503", "--grpc", "14"}, "not several");
    usage({"--http", "503", "--header", "Retry-After 5"}, "expected 'Name: value'");
    usage({"--http", "503", "--now", "yesterday"}, "expected an HTTP-date");
    usage({"--http", "503", "--sqlstate", "40001"}, "database error");
    usage({"--transport", "dns"}, "--transport");
    usage({"--http", "999"}, "--http");
}

TEST_CASE("decide --grpc matches grpc matchers and takes the pushback as a hint",
          "[cli][protocols][decide]") {
    const json retried = decide_json(
        "orders.create", {"--grpc", "UNAVAILABLE", "--header", "grpc-retry-pushback-ms: 3000"});
    CHECK(retried["retry"] == true);
    CHECK(retried["matched"] == "grpc:UNAVAILABLE");
    CHECK(retried["delay_us"] == 3'000'000);
    const json refused =
        decide_json("orders.create", {"--grpc", "14", "--header", "grpc-retry-pushback-ms: -1"});
    CHECK(refused["reason"] == "server_refused");
    CHECK(decide_json("orders.create", {"--grpc", "ABORTED"})["reason"] == "non_retryable");
    // An explicit --server-delay wins over the trailer.
    CHECK(decide_json("orders.create",
                      {"--grpc", "UNAVAILABLE", "--header", "grpc-retry-pushback-ms: 3000",
                       "--server-delay", "2s"})["delay_us"] == 2'000'000);
}

TEST_CASE("decide --transport wait: a POST is outcome unknown unless the handler is idempotent",
          "[cli][protocols][decide]") {
    const json post = decide_json("orders.create", {"--transport", "wait", "--method", "POST"});
    CHECK(post["retry"] == false);
    CHECK(post["category"] == "commit_outcome_unknown");
    const json bound = decide_json("orders.replace", {"--transport", "wait", "--method", "POST"});
    CHECK(bound["retry"] == true);
    CHECK(bound["category"] == "connection_lost");
}

TEST_CASE("decide --http reads Retry-After against --now", "[cli][protocols][decide]") {
    const json out = decide_json(
        "orders.create", {"--http", "503", "--header", "Retry-After: Wed, 21 Oct 2026 07:28:00 GMT",
                          "--now", "Wed, 21 Oct 2026 07:26:30 GMT"});
    CHECK(out["retry"] == true);
    CHECK(out["category"] == "service_unavailable");
    CHECK(out["delay_us"] == 90'000'000);
}
