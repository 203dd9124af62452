// What the CLI prints stays safe and complete whatever it reads: text from policy files and traces
// reaches every output escaped (docs/cli.md, Output safe to print), every command fails when its
// output cannot be written, and line-oriented input is read as a stream with a longest line
// (docs/cli.md, Line-oriented input).
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "run_command.hpp"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using rebound::testing::CommandResult;
using rebound::testing::CommandStreams;

namespace {

const std::string kCli = REBOUND_CLI_PATH;
const std::string kResilience = std::string(REBOUND_SPEC_DIR) + "/conformance/06-resilience.yaml";

CommandResult run_cli(std::vector<std::string> arguments, const CommandStreams& streams = {}) {
    arguments.insert(arguments.begin(), kCli);
    return rebound::testing::run_command(arguments, streams);
}

// A temporary directory, removed at the end of the test case.
struct TemporaryDirectory {
    fs::path path{rebound::testing::make_temporary_directory("rebound-output-safety")};
    ~TemporaryDirectory() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
    std::string write(const std::string& name, const std::string& content) const {
        std::ofstream(path / name, std::ios::binary) << content;
        return (path / name).string();
    }
};

bool has_raw_controls(const std::string& text) {
    return text.find('\x1b') != std::string::npos || text.find("\xc2\x9b") != std::string::npos ||
           text.find("\xe2\x80\xae") != std::string::npos;
}

// ESC, a C1 control (CSI) and a bidi override: what a hostile trace or policy file would use.
const std::string kHostile = "\x1b[31m\xc2\x9b\xe2\x80\xae";
const std::string kEscaped = "\\e[31m\\u009b\\u202e";

}  // namespace

TEST_CASE("replay prints a trace's ids and words escaped, in text, JSON and errors",
          "[cli][output]") {
    const TemporaryDirectory directory;
    const std::string id = "call" + kHostile;
    const std::string trace = directory.write(
        "trace.events", "0 acquire " + id + "\n10 success " + id + "\n20 acquire x\xff\n");
    const CommandResult text = run_cli({"replay", kResilience, "--breaker", "ledger-db", trace});
    CHECK(text.exit_code == 0);
    CHECK_FALSE(has_raw_controls(text.out));
    CHECK(text.out.find("acquire call" + kEscaped + "  admitted") != std::string::npos);
    CHECK(text.out.find("acquire x\\xff  admitted") != std::string::npos);

    const CommandResult json =
        run_cli({"replay", kResilience, "--breaker", "ledger-db", trace, "--format", "json"});
    CHECK(json.exit_code == 0);
    std::istringstream lines(json.out);
    std::vector<nlohmann::json> steps;
    for (std::string line; std::getline(lines, line);) {
        steps.push_back(nlohmann::json::parse(line));
    }
    REQUIRE(steps.size() == 3);
    CHECK(steps[0]["id"] == id);               // valid UTF-8, control characters JSON-escaped
    CHECK(steps[2]["id"] == "x\xef\xbf\xbd");  // not UTF-8: U+FFFD

    const std::string bad =
        directory.write("bad.events", "0 acquire a\n5 explode" + kHostile + " a\n");
    const CommandResult error = run_cli({"replay", kResilience, "--breaker", "ledger-db", bad});
    CHECK(error.exit_code == 2);
    CHECK_FALSE(has_raw_controls(error.err));
    CHECK(error.err.find(":2:3: unknown event 'explode" + kEscaped + "'") != std::string::npos);
}

TEST_CASE("convert's warning about a dropped suppression shows the comment escaped",
          "[cli][output]") {
    const TemporaryDirectory directory;
    const std::string policy = directory.write(
        "p.yaml",
        "rebound: 1\nservice: s\npolicies:\n  # rebound: disable-next-line RB301 -- why "
        "\xe2\x80\xae"
        "evil\n  p:\n    max_attempts: 2\n    backoff: { type: fixed, delay: 10ms }\n");
    const CommandResult result = run_cli({"convert", policy, "--to", "json"});
    CHECK(result.exit_code == 0);
    CHECK_FALSE(has_raw_controls(result.err));
    CHECK(result.err.find("not carried over: # rebound: disable-next-line RB301 -- why "
                          "\\u202eevil") != std::string::npos);
}

// Names (policies, handlers, route targets) are restricted by the format, but quoted text (a
// message matcher) is not: it reaches explain's and decide's text escaped, and their JSON as it is.
TEST_CASE("explain and decide show text quoted in a policy file escaped", "[cli][output]") {
    const TemporaryDirectory directory;
    const std::string policy =
        directory.write("p.yaml",
                        "rebound: 1\nservice: s\npolicies:\n  p:\n    max_attempts: 3\n"
                        "    backoff: { type: fixed, delay: 10ms }\n"
                        "    retry_on: [{ message: \"lock\\e[31m\\u202e\" }]\n"
                        "    routes: [{ up_to: 1s, target: \"tier_b\" }]\n"
                        "handlers:\n  pay: { policy: p }\n");
    const CommandResult all = run_cli({"explain", policy});
    INFO(all.err);
    REQUIRE(all.exit_code == 0);
    CHECK_FALSE(has_raw_controls(all.out));
    CHECK(all.out.find("up to 1s -> tier_b") != std::string::npos);
    const CommandResult json = run_cli({"explain", policy, "--handler", "pay", "--format", "json"});
    REQUIRE(json.exit_code == 0);
    CHECK(nlohmann::json::parse(json.out)["policy"] == "p");

    const std::vector<std::string> decide{
        "decide",    policy, "--handler", "pay",
        "--attempt", "1",    "--message", "a lock\x1b[31m\xe2\x80\xae here"};
    const CommandResult text = run_cli(decide);
    INFO(text.err);
    REQUIRE(text.exit_code == 0);
    CHECK_FALSE(has_raw_controls(text.out));
    CHECK(text.out.find("matched message:lock\\e[31m\\u202e, route tier_b)") != std::string::npos);
    std::vector<std::string> decide_json = decide;
    decide_json.insert(decide_json.end(), {"--format", "json"});
    const CommandResult json_decision = run_cli(decide_json);
    REQUIRE(json_decision.exit_code == 0);
    const nlohmann::json decision = nlohmann::json::parse(json_decision.out);
    CHECK(decision["matched"] == "message:lock\x1b[31m\xe2\x80\xae");  // JSON escapes it itself
    CHECK(decision["route"] == "tier_b");
}

TEST_CASE("every command fails when its standard output cannot be written", "[cli][output]") {
    const TemporaryDirectory directory;
    const std::string trace = directory.write("trace.events", "0 acquire a\n");
    const std::vector<std::vector<std::string>> commands{
        {"lint", "--format", "sarif", "--fail-on", "never", kResilience},
        {"lint", "--fail-on", "never", kResilience},
        {"explain", kResilience, "--format", "json"},
        {"convert", kResilience, "--to", "dsl"},
        {"decide", kResilience, "--handler", "checkout.pay", "--attempt", "1", "--category",
         "deadlock"},
        {"classify", "--vendor", "mysql", "--native", "1213"},
        {"replay", kResilience, "--breaker", "ledger-db", trace},
        {"schema"},
        {"simulate", "--runs", "1", "--clients", "5"},
    };
    for (const std::vector<std::string>& command : commands) {
        INFO(command.front());
        const CommandResult ok = run_cli(command);
        CHECK(ok.exit_code == 0);
        CHECK_FALSE(ok.out.empty());
        const CommandResult full = run_cli(command, {.input = "/dev/null", .output = "/dev/full"});
        INFO(full.err);
        CHECK(full.exit_code == 2);
        CHECK(full.err.find("rebound: cannot write standard output") != std::string::npos);
    }
}

TEST_CASE("replay and lint --handlers refuse an endless line at once, naming its line",
          "[cli][input]") {
    const CommandResult piped = run_cli({"replay", kResilience, "--breaker", "ledger-db"},
                                        {.input = "/dev/zero", .output = {}});
    CHECK(piped.exit_code == 2);
    CHECK(piped.err.find("<stdin>:1: the line is longer than 65536 bytes") != std::string::npos);
    const CommandResult named =
        run_cli({"replay", kResilience, "--breaker", "ledger-db", "/dev/zero"});
    CHECK(named.exit_code == 2);
    CHECK(named.err.find("/dev/zero:1: the line is longer than 65536 bytes") != std::string::npos);
    const CommandResult handlers = run_cli({"lint", "--handlers", "/dev/zero", kResilience});
    CHECK(handlers.exit_code == 2);
    CHECK(handlers.err.find("--handlers /dev/zero:1: the line is longer than 65536 bytes") !=
          std::string::npos);

    // The limit is on each line: the line before a long one is answered, the long one named.
    const TemporaryDirectory directory;
    const std::string trace = directory.write(
        "long.events", "0 acquire a\n" + std::string(65536, ' ') + "\n" + std::string(65537, 'x'));
    const CommandResult longer = run_cli({"replay", kResilience, "--breaker", "ledger-db", trace});
    CHECK(longer.exit_code == 2);
    CHECK(longer.out.find("acquire a  admitted") != std::string::npos);
    CHECK(longer.err.find("long.events:3: the line is longer than 65536 bytes") !=
          std::string::npos);
}

TEST_CASE("replay answers each line of a piped trace before the trace ends", "[cli][input]") {
    rebound::testing::PipedCommand replay({kCli, "replay", kResilience, "--breaker", "ledger-db"});
    // Generous bounds against hanging: without streaming, nothing would come before the input
    // ends, which it does not until close_input().
    REQUIRE(replay.write("0 acquire a\n"));
    const auto first = replay.read_line(60s);
    REQUIRE(first.has_value());
    CHECK(first->find("acquire a  admitted") != std::string::npos);
    REQUIRE(replay.write("5 success a\n"));
    const auto second = replay.read_line(60s);
    REQUIRE(second.has_value());
    CHECK(second->find("success a") != std::string::npos);
    replay.close_input();
    CHECK_FALSE(replay.read_line(60s).has_value());  // the end of its output
    CHECK(replay.wait() == 0);
}
