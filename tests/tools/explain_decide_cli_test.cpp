// `rebound explain` and `rebound decide` as a user runs them: what they show of handler bindings
// and idempotency, the schedule table, JSON numbers, and usage errors with did-you-mean.
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

// payments: capture says nothing about idempotency, refund says false, settle says true.
constexpr std::string_view kPayments = R"(rebound: 1
service: payments
policies:
  interactive:
    max_attempts: 3
    backoff: { type: exponential, initial: 20ms, multiplier: 2, max: 200ms }
    jitter: equal
    retry_on: [deadlock, commit_outcome_unknown]
  background:
    max_attempts: 4
    backoff: { type: fixed, delay: 120s }
    jitter: none
    retry_on: [deadlock]
handlers:
  payments.capture: interactive
  payments.refund: { policy: interactive, idempotent: false }
  payments.settle: { policy: background, idempotent: true }
default: background
)";

struct PaymentsFile {
    fs::path directory = rebound::testing::make_temporary_directory("rebound-explain-cli");
    fs::path file = directory / "payments.yaml";
    PaymentsFile() { std::ofstream(file) << kPayments; }
    ~PaymentsFile() {
        std::error_code ignored;
        fs::remove_all(directory, ignored);
    }
};

json run_json(std::vector<std::string> arguments) {
    arguments.insert(arguments.end(), {"--format", "json"});
    const CommandResult result = run_cli(arguments);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    return json::parse(result.out);
}

}  // namespace

TEST_CASE("explain --handler shows the effective idempotency and where it came from",
          "[explain_cli]") {
    const PaymentsFile payments;
    const std::string file = payments.file.string();
    const json refund = run_json({"explain", file, "--handler", "payments.refund"});
    CHECK(refund["idempotent"] == false);
    CHECK(refund["idempotent_source"] == "file binding");
    const json settle = run_json({"explain", file, "--handler", "payments.settle"});
    CHECK(settle["idempotent"] == true);
    CHECK(settle["idempotent_source"] == "file binding");
    const json capture = run_json({"explain", file, "--handler", "payments.capture"});
    CHECK(capture["idempotent"] == false);
    CHECK(capture["idempotent_source"] == "default");

    const CommandResult text = run_cli({"explain", file, "--handler", "payments.refund"});
    CHECK(text.out.find("  idempotent:         false (file binding)\n") != std::string::npos);
    const CommandResult unstated = run_cli({"explain", file, "--handler", "payments.capture"});
    CHECK(unstated.out.find("  idempotent:         false (default): the file does not say; the "
                            "handler's code may declare it\n") != std::string::npos);
}

TEST_CASE("explain of a whole file lists the handler bindings and the default", "[explain_cli]") {
    const PaymentsFile payments;
    const json all = run_json({"explain", payments.file.string()});
    REQUIRE(all["handlers"].size() == 3);
    CHECK(all["handlers"][0] == json::parse(R"({"key": "payments.capture", "policy":
        "interactive", "idempotent": false, "idempotent_source": "default", "calls": [],
        "redeliveries": 0})"));
    CHECK(all["handlers"][1]["idempotent_source"] == "file binding");
    CHECK(all["handlers"][2]["idempotent"] == true);
    CHECK(all["default"] == "background");

    const CommandResult text = run_cli({"explain", payments.file.string()});
    CHECK(text.out.find("handlers (service payments)\n"
                        "  payments.capture  uses interactive  idempotent: false (default)") !=
          std::string::npos);
    CHECK(text.out.find("  payments.refund   uses interactive  idempotent: false (file "
                        "binding)\n") != std::string::npos);
    CHECK(text.out.find("  default           uses background\n") != std::string::npos);
}

TEST_CASE("explain prints whole milliseconds as JSON integers", "[explain_cli]") {
    const PaymentsFile payments;
    const json policy = run_json({"explain", payments.file.string(), "--policy", "interactive"});
    CHECK(policy["backoff"]["initial_ms"].is_number_integer());
    CHECK(policy["backoff"]["initial_ms"] == 20);
    CHECK(policy["min_attempt_budget_ms"].is_number_integer());
    CHECK(policy["schedule"][0]["base_ms"].is_number_integer());
    CHECK(policy["schedule"][0]["min_ms"] == 10);
    CHECK(policy["backoff"]["multiplier"].is_number_float());  // not a duration
}

TEST_CASE("explain keeps the schedule aligned, in seconds for long delays", "[explain_cli]") {
    const PaymentsFile payments;
    const CommandResult result =
        run_cli({"explain", payments.file.string(), "--policy", "background"});
    INFO(result.out);
    CHECK(result.out.find("  schedule (s):       retry      base       min       max   cum.min"
                          "   cum.max\n"
                          "                          1   120.000   120.000   120.000   120.000"
                          "   120.000\n") != std::string::npos);
    CHECK(result.out.find("                          3   120.000   120.000   120.000   360.000"
                          "   360.000\n") != std::string::npos);
}

// hedging.md, "The command line": the `hedge:` line of a fixed and of a learned delay, none for a
// policy without one, and what a handler that is not idempotent gets.
TEST_CASE("explain shows a policy's hedge on a line of its own", "[explain_cli]") {
    const std::string vector = std::string(REBOUND_SPEC_DIR) + "/conformance/07-hedging.yaml";
    const CommandResult reads = run_cli({"explain", vector, "--policy", "reads"});
    INFO(reads.err);
    REQUIRE(reads.exit_code == 0);
    CHECK_THAT(reads.out, Catch::Contains("\n  hedge:              after 20ms (hedges due at 20ms, "
                                          "40ms), extra load <= 5% (burst 10), on failure next\n"));
    const CommandResult search = run_cli({"explain", vector, "--policy", "search"});
    CHECK_THAT(search.out,
               Catch::Contains("\n  hedge:              after p95 of the last 30s within "
                               "2ms..250ms (no hedge before 100 latencies), extra load <= 2% "
                               "(burst 20), on failure wait\n"));
    const CommandResult plain = run_cli({"explain", vector, "--policy", "plain"});
    CHECK(plain.exit_code == 0);
    CHECK(plain.out.find("hedge:") == std::string::npos);
    CHECK_THAT(plain.out, Catch::Contains("\n  backoff:            fixed 50ms\n"));
    CHECK_THAT(plain.out, Catch::Contains("\n  schedule (ms):"));
    // A hedging policy's attempts start on the hedge delay: no backoff, jitter or retry schedule.
    CHECK_THAT(reads.out, Catch::Contains(
                              "\n  backoff:            none: attempts start on the hedge delay\n"));
    CHECK(reads.out.find("jitter:") == std::string::npos);
    CHECK(reads.out.find("schedule (ms):") == std::string::npos);

    const fs::path directory = rebound::testing::make_temporary_directory("rebound-explain-hedge");
    const fs::path file = directory / "orders.yaml";
    std::ofstream(file) << "rebound: 1\nservice: orders\npolicies:\n  reads:\n    max_attempts: "
                           "2\n    hedge: { delay: 20ms }\nhandlers:\n  orders.reserve: { policy: "
                           "reads, idempotent: false }\n";
    const CommandResult reserve =
        run_cli({"explain", file.string(), "--handler", "orders.reserve"});
    CHECK_THAT(reserve.out, Catch::Contains("on failure next; not idempotent: no timed hedge, one "
                                            "attempt at a time\n"));
    fs::remove_all(directory);
}

TEST_CASE("explain --policy with an unknown name says which one was meant", "[explain_cli]") {
    const PaymentsFile payments;
    const CommandResult result =
        run_cli({"explain", payments.file.string(), "--policy", "interactve"});
    CHECK(result.exit_code == 1);
    CHECK(result.err.find("no policy named 'interactve': did you mean 'interactive'?") !=
          std::string::npos);
}

TEST_CASE("decide: usage errors say what to give, with did-you-mean", "[decide_cli]") {
    const PaymentsFile payments;
    const std::string file = payments.file.string();
    const std::vector<std::string> base{"decide",           file,        "--handler",
                                        "payments.capture", "--attempt", "1"};
    const auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> arguments = base;
        arguments.insert(arguments.end(), extra.begin(), extra.end());
        return run_cli(arguments);
    };
    const CommandResult nothing = with({});
    CHECK(nothing.exit_code == 2);
    CHECK(nothing.err.find("give --category, --sqlstate") != std::string::npos);

    const CommandResult native = with({"--native", "1213"});
    CHECK(native.exit_code == 2);
    CHECK(native.err.find("--native 1213 needs --vendor") != std::string::npos);

    const CommandResult typo = with({"--category", "deadlok"});
    CHECK(typo.exit_code == 2);
    CHECK(typo.err.find("unknown category 'deadlok': did you mean 'deadlock'?") !=
          std::string::npos);

    const CommandResult assumed = with({"--sqlstate", "40001"});
    CHECK(assumed.exit_code == 0);
    CHECK(assumed.err.find("classified as vendor 'generic'") != std::string::npos);
    CHECK(with({"--sqlstate", "40001", "--vendor", "postgresql"}).err.empty());
}

TEST_CASE("decide: a binding that states idempotent wins over --idempotent", "[decide_cli]") {
    const PaymentsFile payments;
    const auto decide = [&](const std::string& handler, bool idempotent_flag) {
        std::vector<std::string> arguments{
            "decide",     payments.file.string(),  "--handler", handler, "--attempt", "1",
            "--category", "commit_outcome_unknown"};
        if (idempotent_flag) {
            arguments.push_back("--idempotent");
        }
        return run_json(arguments);
    };
    // Unstated: --idempotent stands for the handler's code.
    CHECK(decide("payments.capture", false)["reason"] == "outcome_unknown");
    CHECK(decide("payments.capture", true)["reason"] == "retry");
    // Stated false in the file: the file wins.
    CHECK(decide("payments.refund", true)["reason"] == "outcome_unknown");
}

TEST_CASE("convert names each suppression comment it drops", "[convert_cli]") {
    const fs::path directory = rebound::testing::make_temporary_directory("rebound-convert-cli");
    const fs::path file = directory / "p.yaml";
    std::ofstream(file) << "# rebound: disable-file RB313 -- policies shared with other services\n"
                           "rebound: 1\nservice: payments\npolicies:\n  interactive:\n"
                           "    # rebound: disable-next-line RB301 -- one client only\n"
                           "    jitter: none\n    retry_on: [deadlock]  # not a suppression\n";
    const CommandResult result = run_cli({"convert", file.string(), "--to", "dsl"});
    INFO(result.err);
    CHECK(result.exit_code == 0);
    CHECK(result.err.find(file.string() +
                          ":1:1: warning: convert drops comments, so this lint suppression is not "
                          "carried over: # rebound: disable-file RB313 -- policies shared with "
                          "other services\n") != std::string::npos);
    CHECK(result.err.find(file.string() + ":6:5: warning:") != std::string::npos);
    CHECK(result.err.find(":8:") == std::string::npos);
    std::error_code ignored;
    fs::remove_all(directory, ignored);
}

TEST_CASE("convert to the DSL keeps an explicit idempotent: false", "[convert_cli]") {
    const PaymentsFile payments;
    const CommandResult result = run_cli({"convert", payments.file.string(), "--to", "dsl"});
    CHECK(result.exit_code == 0);
    CHECK(result.err.empty());
    CHECK(result.out.find("handler payments.refund uses interactive not idempotent\n") !=
          std::string::npos);
    CHECK(result.out.find("handler payments.capture uses interactive\n") != std::string::npos);
}

TEST_CASE("explain --handler shows calls, redeliveries and the worst-case fan-out in the file",
          "[explain_cli]") {
    const PaymentsFile payments;
    std::ofstream(payments.file) << R"(rebound: 1
service: payments
policies:
  edge: { max_attempts: 3 }
  store: { max_attempts: 2 }
handlers:
  payments.capture: { policy: edge, calls: [payments.store.write, fx.rate] }
  payments.store.*: { policy: store, redeliveries: 4 }
  payments.plain: edge
)";
    const std::string file = payments.file.string();
    const json capture = run_json({"explain", file, "--handler", "payments.capture"});
    CHECK(capture["calls"] == json::parse(R"(["payments.store.write", "fx.rate"])"));
    CHECK(capture["redeliveries"] == 0);
    // 3 attempts x (2 attempts x 5 deliveries); fx.rate is bound in no file given.
    CHECK(capture["worst_case_fan_out"] ==
          json::parse(R"({"calls": 30, "path": ["payments.capture", "payments.store.write"]})"));
    const json store = run_json({"explain", file, "--handler", "payments.store.flush"});
    CHECK(store["calls"] == json::array());
    CHECK(store["redeliveries"] == 4);
    CHECK(store["worst_case_fan_out"]["calls"] == 10);
    const json unbound = run_json({"explain", file, "--handler", "other"});
    CHECK(unbound["calls"] == json::array());
    CHECK(unbound["redeliveries"] == 0);

    const CommandResult text = run_cli({"explain", file, "--handler", "payments.capture"});
    CHECK(text.out.find("  calls:              payments.store.write, fx.rate\n"
                        "  redeliveries:       0\n"
                        "  worst-case fan-out: 30 calls to payments.store.write per call "
                        "(payments.capture -> payments.store.write; by this file's bindings)\n") !=
          std::string::npos);
}

// 0.07 * 100 is 7.000000000000001 in binary floating point: explain spells percentages as the
// emitters do (dsl/spelling.hpp), from the decimal digits, not from a product.
TEST_CASE("explain spells a breaker's ratio and a spread as convert --to dsl does",
          "[explain_cli]") {
    const fs::path directory = rebound::testing::make_temporary_directory("rebound-explain-cli");
    const fs::path file = directory / "p.yaml";
    std::ofstream(file) << "rebound: 1\nservice: payments\nbreakers:\n"
                           "  db: { failure_ratio: 0.07, minimum_calls: 20, window: 10s }\n"
                           "policies:\n  interactive:\n    retry_on: [deadlock]\n"
                           "    breaker: db\n    server_delay: { spread: 0.07 }\n";
    const CommandResult explained = run_cli({"explain", file.string()});
    INFO(explained.err);
    REQUIRE(explained.exit_code == 0);
    CHECK(explained.out.find(" spread 7%\n") != std::string::npos);
    CHECK(explained.out.find("db: trip ratio 7% of 20 calls in 10s,") != std::string::npos);
    const CommandResult converted = run_cli({"convert", file.string(), "--to", "dsl"});
    CHECK(converted.out.find(" spread 7%\n") != std::string::npos);
    CHECK(converted.out.find("trip ratio 7% of 20 calls in 10s\n") != std::string::npos);
    std::error_code ignored;
    fs::remove_all(directory, ignored);
}
