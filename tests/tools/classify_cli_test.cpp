// `rebound classify` and the classification options of `rebound decide`, run as a user would.
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
    CHECK(run_cli({"classify", "--sqlstate", "40001", "--phase", "rollback"}).exit_code == 2);
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
