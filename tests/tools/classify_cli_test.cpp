// `rebound classify` and the classification options of `rebound decide`, run as a user would:
// database errors, and HTTP and gRPC failures (docs/cli.md, docs/protocols.md).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_command.hpp"

namespace {

namespace fs = std::filesystem;
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

const std::string kTiers = std::string(REBOUND_SPEC_DIR) + "/conformance/04-tiers.yaml";

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

TEST_CASE("classify prints the JSON document of docs/cli.md", "[classify_cli]") {
    const json expected = json::parse(
        R"({"vendor": "mysql", "sqlstate": "40001", "native": 1213, "phase": "execute",
            "category": "deadlock", "retryable_by_default": true, "restart_scope": "transaction",
            "matched": "native:mysql:1213"})");
    CHECK(classify_json({"--vendor", "mysql", "--sqlstate", "40001", "--native", "1213"}) ==
          expected);
}

TEST_CASE("classify uses the phase, defaults and normalisation", "[classify_cli]") {
    const json connect = classify_json({"--sqlstate", "HYT00", "--phase", "connect"});
    CHECK(connect["vendor"] == "generic");
    CHECK(connect["native"].is_null());
    CHECK(connect["category"] == "connection_failure");
    CHECK(connect["restart_scope"] == "connection");
    CHECK(classify_json({"--sqlstate", "HYT00"})["category"] == "statement_timeout");
    CHECK(classify_json({"--vendor", "mysql", "--sqlstate", "08S01", "--native", "2013", "--phase",
                         "commit"})["category"] == "commit_outcome_unknown");
    const json odbc2 = classify_json({"--vendor", "sqlserver", "--sqlstate", "S1T00"});
    CHECK(odbc2["sqlstate"] == "HYT00");
    CHECK(odbc2["matched"] == "sqlstate:generic:HYT00");
    const json sqlite = classify_json({"--vendor", "sqlite", "--native", "2067"});
    CHECK(sqlite["sqlstate"].is_null());
    CHECK(sqlite["category"] == "constraint_violation");
    CHECK(sqlite["matched"] == "native:sqlite:19");
    const json unknown = classify_json({"--vendor", "oracle", "--native", "99999"});
    CHECK(unknown["category"] == "unknown");
    CHECK(unknown["matched"].is_null());
    CHECK(unknown["retryable_by_default"] == false);
}

TEST_CASE("classify applies the adapter's phase rules", "[classify_cli]") {
    // PostgreSQL 15 answers 57P01 to a COMMIT of a session it terminates: executing, the session
    // was shut down; committing, whether the commit happened is unknown.
    const json execute = classify_json({"--vendor", "postgresql", "--sqlstate", "57P01"});
    CHECK(execute["category"] == "admin_shutdown");
    CHECK(execute["matched"] == "sqlstate:postgresql:57P01");
    const json commit =
        classify_json({"--vendor", "postgresql", "--sqlstate", "57P01", "--phase", "commit"});
    CHECK(commit["phase"] == "commit");
    CHECK(commit["category"] == "commit_outcome_unknown");
    CHECK(commit["retryable_by_default"] == false);
    CHECK(commit["matched"] == "commit_connection_loss:sqlstate:postgresql:57P01");
    const CommandResult text =
        run_cli({"classify", "--vendor", "postgresql", "--sqlstate", "57P01", "--phase", "commit"});
    CHECK(text.out ==
          "commit_outcome_unknown (not retryable by default, restart none, matched "
          "commit_connection_loss:sqlstate:postgresql:57P01)\n");
    // A rollback looks its records up as a statement does, and no outcome is unknown.
    const json rollback =
        classify_json({"--vendor", "postgresql", "--sqlstate", "57P01", "--phase", "rollback"});
    CHECK(rollback["phase"] == "rollback");
    CHECK(rollback["category"] == "admin_shutdown");
    CHECK(classify_json({"--sqlstate", "HYT00", "--phase", "rollback"})["category"] ==
          "statement_timeout");
    CHECK(classify_json({"--sqlstate", "08S01", "--phase", "rollback"})["category"] ==
          "connection_lost");
}

TEST_CASE("classify prints one line of text by default", "[classify_cli]") {
    const CommandResult result =
        run_cli({"classify", "--vendor", "postgresql", "--sqlstate", "40P01", "--native", "1"});
    REQUIRE(result.exit_code == 0);
    CHECK(result.out ==
          "deadlock (retryable by default, restart transaction, matched "
          "sqlstate:postgresql:40P01)\n");
}

TEST_CASE("classify refuses bad options with exit code 2", "[classify_cli]") {
    CHECK(run_cli({"classify", "--vendor", "mysql"}).exit_code == 2);
    const CommandResult vendor = run_cli({"classify", "--vendor", "mariadb", "--native", "1213"});
    CHECK(vendor.exit_code == 2);
    CHECK(vendor.err.find("unknown vendor 'mariadb'") != std::string::npos);
    CHECK(run_cli({"classify", "--sqlstate", "4000"}).exit_code == 2);
    const CommandResult phase = run_cli({"classify", "--sqlstate", "40001", "--phase", "teardown"});
    CHECK(phase.exit_code == 2);
    CHECK(phase.err.find("connect") != std::string::npos);
    CHECK(phase.err.find("rollback") != std::string::npos);
    CHECK(run_cli({"classify", "--sqlstate", "40001", "--vendor-maps", "/nonexistent"}).exit_code ==
          2);
}

TEST_CASE("classify reads the maps named by --vendor-maps and reports their errors",
          "[classify_cli]") {
    const fs::path directory = rebound::testing::make_temporary_directory("rebound-vendor-maps");
    // A map directory always holds generic.yaml (docs/vendor-maps.md).
    fs::copy_file(fs::path(REBOUND_VENDOR_MAP_DIR) / "generic.yaml", directory / "generic.yaml");
    {
        std::ofstream map(directory / "mysql.yaml");
        map << "rebound_vendor_map: 1\nvendor: mysql\nsources: { ref: reference }\nrules:\n"
               "  - { native: 1213, category: lock_timeout, source: ref }\n";
    }
    const json own = classify_json(
        {"--vendor", "mysql", "--native", "1213", "--vendor-maps", directory.string()});
    CHECK(own["category"] == "lock_timeout");
    {
        std::ofstream map(directory / "mysql.yaml");
        map << "rebound_vendor_map: 1\nvendor: mysql\nsources: { ref: reference }\nrules:\n"
               "  - { native: 1213, category: deadlok, source: ref }\n";
    }
    const CommandResult bad = run_cli(
        {"classify", "--vendor", "mysql", "--native", "1213", "--vendor-maps", directory.string()});
    fs::remove_all(directory);
    CHECK(bad.exit_code == 1);
    CHECK(bad.err.find("mysql.yaml:5:31: error: unknown category 'deadlok'") != std::string::npos);
    CHECK(bad.err.find("did you mean 'deadlock'?") != std::string::npos);
}

TEST_CASE("decide classifies SQLSTATE and native codes with the maps first", "[classify_cli]") {
    const auto decide = [](std::vector<std::string> extra) {
        std::vector<std::string> arguments{"decide", kTiers, "--format", "json"};
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        const CommandResult result = run_cli(arguments);
        INFO(result.err);
        REQUIRE(result.exit_code == 0);
        return json::parse(result.out);
    };
    const json mysql = decide({"--handler", "jobs.nightly", "--attempt", "1", "--vendor", "mysql",
                               "--sqlstate", "HY000", "--native", "1205"});
    CHECK(mysql["category"] == "lock_timeout");
    CHECK(mysql["retry"] == true);
    // 57014 is statement_timeout, not retryable by the interactive policy.
    const json timeout = decide({"--handler", "ApproveCase", "--attempt", "1", "--vendor",
                                 "postgresql", "--sqlstate", "57014"});
    CHECK(timeout["category"] == "statement_timeout");
    CHECK(timeout["reason"] == "non_retryable");
    // 08S01 during a commit: outcome unknown, so a non-idempotent handler stops.
    const json commit = decide({"--handler", "ApproveCase", "--attempt", "1", "--vendor",
                                "postgresql", "--sqlstate", "08S01", "--phase", "commit"});
    CHECK(commit["category"] == "commit_outcome_unknown");
    CHECK(commit["reason"] == "outcome_unknown");
    // 57P01 is admin_shutdown, retried, while executing; during a commit it stops too, unless
    // the handler is idempotent (then its policy decides: background does not retry it).
    const std::vector<std::string> shutdown{"--handler", "jobs.nightly", "--attempt",  "1",
                                            "--vendor",  "postgresql",   "--sqlstate", "57P01"};
    CHECK(decide(shutdown)["reason"] == "retry");
    std::vector<std::string> at_commit = shutdown;
    at_commit.insert(at_commit.end(), {"--phase", "commit"});
    CHECK(decide(at_commit)["reason"] == "outcome_unknown");
    at_commit.push_back("--idempotent");
    const json idempotent = decide(at_commit);
    CHECK(idempotent["category"] == "commit_outcome_unknown");
    CHECK(idempotent["reason"] == "non_retryable");
    // An explicit --category stands.
    const json explicit_category =
        decide({"--handler", "ApproveCase", "--attempt", "1", "--category", "deadlock", "--vendor",
                "postgresql", "--sqlstate", "23505"});
    CHECK(explicit_category["category"] == "deadlock");
    // Without a vendor, the generic map classifies.
    const json generic =
        decide({"--handler", "ApproveCase", "--attempt", "1", "--sqlstate", "40001"});
    CHECK(generic["category"] == "serialization_failure");
    CHECK(generic["retry"] == true);
}

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
    usage({"--http", "503", "--now", "Fri, 31 Dec 9999 23:59:59 GMT"}, "outside the receive times");
    usage({"--http", "503", "--now", "Fri, 11 Apr 2262 23:47:17 GMT"}, "outside the receive times");
    usage({"--http", "503", "--now", "Tue, 21 Sep 1677 00:12:43 GMT"}, "outside the receive times");
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

TEST_CASE("decide --http: a Retry-After date in 9999 is over the cap, not a retry now",
          "[cli][protocols][decide]") {
    // The default server_delay stops over its 5 min cap; the date once overflowed to 0 ms.
    const json out = decide_json("orders.create", {"--http", "503", "--header",
                                                   "Retry-After: Fri, 31 Dec 9999 23:59:59 GMT"});
    CHECK(out["retry"] == false);
    CHECK(out["reason"] == "server_delay_too_long");
    // The last receive time the clock holds still gives the saturated hint.
    const json latest = decide_json(
        "orders.create", {"--http", "503", "--header", "Retry-After: Fri, 31 Dec 9999 23:59:59 GMT",
                          "--now", "Fri, 11 Apr 2262 23:47:16 GMT"});
    CHECK(latest["reason"] == "server_delay_too_long");
}

TEST_CASE("classify --grpc reads pushback trailers as the gRPC adapter does", "[cli][protocols]") {
    const auto pushback = [](std::vector<std::string> values) {
        std::vector<std::string> arguments{"--grpc", "UNAVAILABLE"};
        for (const std::string& value : values) {
            arguments.insert(arguments.end(), {"--header", "grpc-retry-pushback-ms: " + value});
        }
        return classify_json(arguments);
    };
    // Several: the last counts, as over a real gRPC channel (gRPC keeps only the last).
    CHECK(pushback({"100", "200"})["server_delay_ms"] == 200);
    CHECK(pushback({"100", "-1"})["server_refused"] == true);
    // 20 digits do not fit gRPC's 64-bit integer: a refusal, as the adapter sees it.
    const json twenty = pushback({"99999999999999999999"});
    CHECK(twenty["server_refused"] == true);
    CHECK(twenty["server_delay_ms"].is_null());
    CHECK(pushback({"9223372036854775807"})["server_delay_ms"] == 2147483647);
    CHECK(pushback({"+5"})["server_delay_ms"] == 5);
}

TEST_CASE("classify and decide note on stderr a requested vendor that has no map",
          "[classify_cli]") {
    const fs::path directory = rebound::testing::make_temporary_directory("rebound-vendor-maps");
    fs::copy_file(fs::path(REBOUND_VENDOR_MAP_DIR) / "generic.yaml", directory / "generic.yaml");
    fs::copy_file(fs::path(REBOUND_VENDOR_MAP_DIR) / "mysql.yaml", directory / "mysql.yaml");
    const std::string note = "note: no vendor map for 'oracle' in " + directory.generic_string() +
                             ": only the generic SQLSTATE rules apply";
    // The generic map still classifies the SQLSTATE; the note says why nothing vendor-specific did.
    const CommandResult classified =
        run_cli({"classify", "--vendor", "oracle", "--sqlstate", "40001", "--native", "60",
                 "--vendor-maps", directory.string()});
    CHECK(classified.exit_code == 0);
    CHECK(classified.out.find("serialization_failure") != std::string::npos);
    CHECK(classified.err.find("rebound classify: " + note) != std::string::npos);
    const CommandResult decided =
        run_cli({"decide", kTiers, "--handler", "ApproveCase", "--attempt", "1", "--vendor",
                 "oracle", "--native", "60", "--vendor-maps", directory.string()});
    CHECK(decided.exit_code == 0);
    CHECK(decided.err.find("rebound decide: " + note) != std::string::npos);
    // A vendor with its map, and generic, get no note.
    const CommandResult mysql = run_cli(
        {"classify", "--vendor", "mysql", "--native", "1213", "--vendor-maps", directory.string()});
    const CommandResult generic =
        run_cli({"classify", "--sqlstate", "40001", "--vendor-maps", directory.string()});
    fs::remove_all(directory);
    CHECK(mysql.exit_code == 0);
    CHECK(mysql.err.empty());
    CHECK(generic.exit_code == 0);
    CHECK(generic.err.empty());
}
