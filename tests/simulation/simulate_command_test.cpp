// `rebound simulate` as a user runs it.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "run_command.hpp"

namespace fs = std::filesystem;
using rebound::testing::CommandResult;
using rebound::testing::run_command;

namespace {

const std::string kCli = REBOUND_CLI_PATH;

CommandResult simulate(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), {kCli, "simulate"});
    return run_command(arguments);
}

// `rebound simulate --scenario hedging` with `arguments`.
CommandResult hedging(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), {"--scenario", "hedging"});
    return simulate(std::move(arguments));
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> result;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        result.push_back(line);
    }
    return result;
}

// The part of each CSV line after the strategy name.
std::vector<std::string> numbers(const std::vector<std::string>& csv) {
    std::vector<std::string> result;
    for (std::size_t i = 1; i < csv.size(); ++i) {
        result.push_back(csv[i].substr(csv[i].find(',')));
    }
    return result;
}

}  // namespace

TEST_CASE("simulate --format csv prints the header and one row per strategy and client count") {
    const auto result = simulate(
        {"--format", "csv", "--runs", "3", "--clients", "10,20,40", "--strategies", "full,none"});
    REQUIRE(result.exit_code == 0);
    const auto csv = lines(result.out);
    REQUIRE(csv.size() == 1 + 2 * 3);
    CHECK(csv[0] == "strategy,clients,calls,time_ms");
    CHECK(csv[1].rfind("full,10,", 0) == 0);
    CHECK(csv[6].rfind("none,40,", 0) == 0);
}

TEST_CASE("simulate without --strategies runs the five built-ins") {
    const auto result = simulate({"--format", "csv", "--runs", "1", "--clients", "5"});
    REQUIRE(result.exit_code == 0);
    const auto csv = lines(result.out);
    REQUIRE(csv.size() == 6);
    CHECK(csv[1].rfind("exponential,5,", 0) == 0);
    CHECK(csv[5].rfind("none,5,", 0) == 0);
}

TEST_CASE("simulate is deterministic with --seed") {
    const std::vector<std::string> arguments{
        "--format", "csv", "--runs", "3", "--clients", "30", "--strategies", "decorrelated,equal"};
    auto with_seed = [&](const std::string& seed) {
        auto all = arguments;
        all.insert(all.end(), {"--seed", seed});
        return simulate(all).out;
    };
    CHECK(with_seed("5") == with_seed("5"));
    CHECK(with_seed("5") != with_seed("6"));
}

TEST_CASE("simulate prints a table by default") {
    const auto result = simulate({"--runs", "2", "--clients", "10", "--strategies", "full"});
    REQUIRE(result.exit_code == 0);
    CHECK(result.out.find("Write calls (mean of 2 runs)") != std::string::npos);
    CHECK(result.out.find("Completion time, ms (mean of 2 runs)") != std::string::npos);
}

TEST_CASE("simulate reports an unknown strategy as a usage error with a suggestion") {
    const auto result = simulate({"--strategies", "ful"});
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("unknown strategy 'ful': did you mean 'full'?") != std::string::npos);
    CHECK(simulate({"--runs", "0"}).exit_code == 2);
    CHECK(simulate({"--clients", "10,0"}).exit_code == 2);
    CHECK(simulate({"--handler", "checkout"}).exit_code == 2);
}

TEST_CASE("simulate runs a handler's policy from a file through the same engine code") {
    const fs::path scratch = rebound::testing::make_temporary_directory("rebound-simulate");
    const fs::path file = scratch / "service.yaml";
    std::ofstream(file) << "rebound: 1\n"
                           "service: shop\n"
                           "policies:\n"
                           "  mine:\n"
                           "    max_attempts: 3\n"
                           "    backoff: { type: exponential, initial: 10ms, max: 2s }\n"
                           "    jitter: full\n"
                           "handlers:\n"
                           "  checkout: mine\n";
    const std::vector<std::string> common{"--format", "csv", "--runs", "3", "--clients", "10,25"};
    auto from_file = common;
    from_file.insert(from_file.end(), {"--policy", file.string(), "--handler", "checkout"});
    auto builtin = common;
    builtin.insert(builtin.end(), {"--strategies", "full"});
    const auto mine = simulate(from_file);
    const auto full = simulate(builtin);
    fs::remove_all(scratch);
    REQUIRE(mine.exit_code == 0);
    const auto mine_csv = lines(mine.out);
    REQUIRE(mine_csv.size() == 3);
    CHECK(mine_csv[1].rfind("mine,10,", 0) == 0);
    // The same backoff and jitter as the built-in `full`, the same seeds: the same numbers.
    CHECK(numbers(mine_csv) == numbers(lines(full.out)));
    CHECK(mine.err.find("handler 'checkout' uses policy 'mine'") != std::string::npos);
}

TEST_CASE("simulate reports a broken policy file as input errors") {
    const fs::path scratch = rebound::testing::make_temporary_directory("rebound-simulate");
    const fs::path file = scratch / "broken.yaml";
    std::ofstream(file) << "rebound: 1\nservice: shop\npolicies:\n  p:\n    max_attempts: 0\n";
    const auto result = simulate({"--policy", file.string(), "--handler", "h"});
    fs::remove_all(scratch);
    CHECK(result.exit_code == 1);
    CHECK_FALSE(result.err.empty());
}

TEST_CASE("simulate --scenario failure-rate: CSV of success rate and work per strategy",
          "[simulate_cli]") {
    const CommandResult result = simulate({"--scenario", "failure-rate", "--failure-rates", "0,1",
                                           "--requests", "1000", "--format", "csv"});
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    const std::vector<std::string> csv = lines(result.out);
    REQUIRE(csv.size() == 1 + 2 * 4);
    CHECK(csv[0] == "strategy,failure_rate,success_rate,work");
    CHECK(csv[1] == "none,0.0000,1.0000,1.0000");
    CHECK(csv[6] == "retries,1.0000,0.0000,4.0000");
}

TEST_CASE("simulate --scenario failure-rate: options are checked", "[simulate_cli]") {
    const CommandResult unknown =
        simulate({"--scenario", "failure-rate", "--strategies", "budgit", "--requests", "10"});
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.err.find("did you mean 'budget'?") != std::string::npos);
    const CommandResult rate = simulate({"--scenario", "failure-rate", "--failure-rates", "1.5"});
    CHECK(rate.exit_code == 2);
    const CommandResult clients =
        simulate({"--scenario", "failure-rate", "--clients", "1,2", "--requests", "10"});
    CHECK(clients.exit_code == 2);
    CHECK(clients.err.find("takes one client count") != std::string::npos);
}

// NaN passes every range check (each comparison with it is false), and CLI11 alone read `nan`,
// `inf` and `0x10` as numbers: every numeric option refuses them, naming itself and its range.
TEST_CASE("simulate refuses numbers that are not finite, not decimal or out of range",
          "[simulate_cli]") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--scenario", "failure-rate", "--failure-rates", "nan"},
         "--failure-rates: expected a number from 0 to 1, got 'nan'"},
        {{"--scenario", "failure-rate", "--failure-rates", "0.5,NaN"},
         "--failure-rates: expected a number from 0 to 1, got 'NaN'"},
        {{"--scenario", "failure-rate", "--token-ratio", "nan"},
         "--token-ratio: expected a number from 0.001 to 1000, got 'nan'"},
        {{"--scenario", "failure-rate", "--token-ratio", "inf"},
         "--token-ratio: expected a number from 0.001 to 1000, got 'inf'"},
        {{"--scenario", "brownout", "--capacity", "nan"},
         "--capacity: expected a number from 10 to 100000, got 'nan'"},
        {{"--scenario", "brownout", "--capacity", "1e400"},
         "--capacity: expected a number from 10 to 100000, got '1e400'"},
        {{"--runs", "0x10"}, "--runs: expected a whole number from 1 to 100000, got '0x10'"},
        {{"--clients", "10,1e3"}, "--clients: expected a whole number from 1 to 10000, got '1e3'"},
        {{"--scenario", "failure-rate", "--requests", "nan"},
         "--requests: expected a whole number from 1 to 10000000, got 'nan'"},
        {{"--scenario", "failure-rate", "--retries", "-1"},
         "--retries: expected a whole number from 0 to 999, got '-1'"},
        {{"--scenario", "failure-rate", "--max-tokens", "1.5"},
         "--max-tokens: expected a whole number from 1 to 100000, got '1.5'"},
    };
    for (const auto& [arguments, message] : cases) {
        const CommandResult result = simulate(arguments);
        INFO(arguments.back() << ": " << result.err);
        CHECK(result.exit_code == 2);
        CHECK(result.out.empty());
        CHECK(result.err.find(message) != std::string::npos);
    }
    // Decimal numbers in range still work, in every form from_chars reads.
    const CommandResult ok =
        simulate({"--scenario", "failure-rate", "--failure-rates", "0,5e-1,1", "--requests", "10",
                  "--token-ratio", "0.5", "--format", "csv", "--strategies", "none"});
    CHECK(ok.exit_code == 0);
    CHECK(ok.out.find("none,0.5000,") != std::string::npos);
}

TEST_CASE("simulate --scenario brownout: recovery per strategy as text, samples as CSV",
          "[simulate_cli]") {
    const CommandResult text =
        simulate({"--scenario", "brownout", "--strategies", "none,immediate"});
    INFO(text.err);
    REQUIRE(text.exit_code == 0);
    CHECK(text.out.find("never (metastable)") != std::string::npos);
    const CommandResult csv =
        simulate({"--scenario", "brownout", "--strategies", "none", "--format", "csv"});
    REQUIRE(csv.exit_code == 0);
    CHECK(lines(csv.out).at(0) == "strategy,time_s,arrivals,offered,goodput,amplification");
    CHECK(lines(csv.out).size() == 1 + 80);
}

TEST_CASE("simulate --scenario failure-rate runs a policy file with its own budget per client",
          "[simulate_cli]") {
    const fs::path scratch = rebound::testing::make_temporary_directory("rebound-simulate");
    const fs::path file = scratch / "service.yaml";
    std::ofstream(file) << "rebound: 1\n"
                           "service: shop\n"
                           "policies:\n"
                           "  retries:\n"
                           "    max_attempts: 4\n"
                           "    retry_on: [transient]\n"
                           "    budget: { max_tokens: 100, token_ratio: 0.1 }\n"
                           "handlers:\n"
                           "  checkout: retries\n";
    const auto run = [&](const std::string& clients) {
        return simulate({"--scenario", "failure-rate", "--failure-rates", "1", "--requests", "1000",
                         "--clients", clients, "--policy", file.string(), "--handler", "checkout",
                         "--format", "csv"});
    };
    const CommandResult one = run("1");
    const CommandResult ten = run("10");
    fs::remove_all(scratch);
    INFO(one.err);
    REQUIRE(one.exit_code == 0);
    // Named `file:retries` (a built-in has the name). A full budget of 100 tokens allows 49
    // retries per client (a retry needs more than 50 tokens left after taking its own).
    CHECK(lines(one.out).at(1) == "file:retries,1.0000,0.0000,1.0490");
    CHECK(lines(ten.out).at(1) == "file:retries,1.0000,0.0000,1.4900");
}

TEST_CASE("simulate --scenario hedging --format csv prints the header and one row per strategy") {
    const auto result = hedging(
        {"--format", "csv", "--requests", "3000", "--strategies", "none,hedge:5ms,hedge:p95,none"});
    REQUIRE(result.exit_code == 0);
    const auto csv = lines(result.out);
    REQUIRE(csv.size() == 4);
    CHECK(csv[0] == "strategy,p50_ms,p90_ms,p99_ms,p999_ms,extra_load");
    CHECK(csv[1].rfind("none,", 0) == 0);
    CHECK(csv[1].substr(csv[1].rfind(',')) == ",0.0000");
    CHECK(csv[2].rfind("hedge:5ms,", 0) == 0);
    CHECK(csv[3].rfind("hedge:p95,", 0) == 0);
}

TEST_CASE("simulate --scenario hedging runs the default strategies and prints a table") {
    const auto result = hedging({"--requests", "2000"});
    REQUIRE(result.exit_code == 0);
    const auto table = lines(result.out);
    REQUIRE(table.size() == 2 + 5);
    CHECK(table[0].find("2000 requests, attempt latency 1ms + Exponential(4ms), 1.00% at 100ms") !=
          std::string::npos);
    CHECK(table[2].rfind("none ", 0) == 0);
    CHECK(table[3].rfind("hedge:10ms ", 0) == 0);
    CHECK(table[6].rfind("hedge:p99 ", 0) == 0);
}

TEST_CASE("simulate --scenario hedging is deterministic with --seed") {
    auto with_seed = [](const std::string& seed) {
        return hedging({"--format", "csv", "--requests", "5000", "--strategies",
                        "hedge:p90,hedge:3ms", "--seed", seed, "--attempts", "3"})
            .out;
    };
    CHECK(with_seed("9") == with_seed("9"));
    CHECK(with_seed("9") != with_seed("10"));
}

TEST_CASE("simulate --scenario hedging takes the model's options") {
    // Every attempt 2ms: the percentiles are 2ms, and a hedge at 1ms starts for every request.
    const auto result =
        hedging({"--format", "csv", "--requests", "1000", "--base", "2ms", "--mean", "0ms",
                 "--slow-fraction", "0", "--slow", "1s", "--strategies", "none,hedge:1ms"});
    REQUIRE(result.exit_code == 0);
    const auto csv = lines(result.out);
    REQUIRE(csv.size() == 3);
    CHECK(csv[1] == "none,2.000,2.000,2.000,2.000,0.0000");
    CHECK(csv[2] == "hedge:1ms,2.000,2.000,2.000,2.000,1.0000");
    // With 5% extra load the hedges are limited to 10 + 5% of the requests.
    const auto limited =
        hedging({"--format", "csv", "--requests", "1000", "--base", "2ms", "--mean", "0ms",
                 "--slow-fraction", "0", "--strategies", "hedge:1ms", "--max-extra-load", "5%"});
    REQUIRE(limited.exit_code == 0);
    // The first request finds the tokens at the burst, so its 5% is not kept: 10 + 999 * 5%.
    CHECK(lines(limited.out)[1] == "hedge:1ms,2.000,2.000,2.000,2.000,0.0590");
}

TEST_CASE("simulate --scenario hedging rejects bad options with a clear error") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
        {{"--base", "5"}, "--base: duration '5' needs a unit"},
        {{"--base", "-1ms"}, "--base"},
        {{"--mean", "2h"}, "--mean: must be at most 1h"},
        {{"--slow", "fast"}, "--slow: expected a duration"},
        {{"--slow-fraction", "1.5"}, "--slow-fraction"},
        {{"--slow-fraction", "nan"}, "--slow-fraction"},
        {{"--attempts", "1"}, "--attempts"},
        {{"--attempts", "11"}, "--attempts"},
        {{"--requests", "0"}, "--requests"},
        {{"--max-extra-load", "0%"}, "--max-extra-load: expected a percentage"},
        {{"--max-extra-load", "150%"}, "--max-extra-load: expected a percentage"},
        {{"--max-extra-load", "1.5"}, "--max-extra-load: expected a percentage"},
        {{"--max-extra-load", "5 %"}, "--max-extra-load: expected a percentage"},
        {{"--max-extra-load", "-5%"}, "--max-extra-load: expected a percentage"},
        {{"--strategies", "hedge:0ms"}, "--strategies: a hedge delay must be above 0"},
        {{"--strategies", "none,hedge:p100"}, "--strategies: expected a percentile"},
        {{"--strategies", "hedge:fast"}, "--strategies: expected none, hedge:DURATION"},
        {{"--strategies", "full"}, "--strategies: expected none, hedge:DURATION"},
        {{"--scenario", "hedge"}, "--scenario"},
    };
    for (const auto& [arguments, message] : cases) {
        const auto result = hedging(arguments);
        INFO(arguments.front() << ' ' << arguments.back() << ": " << result.err);
        CHECK(result.exit_code == 2);
        CHECK(result.err.find(message) != std::string::npos);
        CHECK(result.out.empty());
    }
}

TEST_CASE("simulate --scenario hedging takes no policy file") {
    // Any existing file: the scenario refuses the option before reading it.
    const auto result = hedging({"--policy", kCli, "--handler", "x"});
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("--scenario hedging takes no --policy") != std::string::npos);
}
