// `rebound decide` with server delay hints and refusals (docs/cli.md, docs/resilience.md).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_command.hpp"

namespace {

using nlohmann::json;
using rebound::testing::CommandResult;

constexpr std::string_view kCheckout = R"(rebound: 1
service: checkout
policies:
  interactive:
    max_attempts: 3
    backoff: { type: exponential, initial: 50ms, multiplier: 2.0, max: 400ms }
    jitter: equal
    deadline: 3s
    retry_on: [transient]
handlers:
  checkout.pay: interactive
)";

std::string checkout_file() {
    const auto dir = rebound::testing::make_temporary_directory("rebound-decide-hints");
    const std::string path = dir + "/checkout.yaml";
    std::ofstream(path) << kCheckout;
    return path;
}

CommandResult decide(std::vector<std::string> options) {
    std::vector<std::string> arguments{
        REBOUND_CLI_PATH, "decide", checkout_file(), "--handler", "checkout.pay",
        "--attempt",      "1",      "--format",      "json"};
    arguments.insert(arguments.end(), options.begin(), options.end());
    return rebound::testing::run_command(arguments);
}

}  // namespace

TEST_CASE("decide --server-delay waits the hint when it is longer than the backoff",
          "[cli][decide][server_delay]") {
    const auto result = decide({"--category", "service_unavailable", "--server-delay", "1500ms"});
    REQUIRE(result.exit_code == 0);
    const json out = json::parse(result.out);
    CHECK(out["retry"] == true);
    CHECK(out["delay_us"] == 1'500'000);
}

TEST_CASE("decide --server-delay beyond the deadline stops with deadline",
          "[cli][decide][server_delay]") {
    const auto result = decide({"--category", "service_unavailable", "--server-delay", "40s"});
    REQUIRE(result.exit_code == 0);
    CHECK(json::parse(result.out)["reason"] == "deadline");
}

TEST_CASE("decide --server-refuses stops with server_refused", "[cli][decide][server_delay]") {
    const auto result = decide({"--category", "service_unavailable", "--server-refuses"});
    REQUIRE(result.exit_code == 0);
    const json out = json::parse(result.out);
    CHECK(out["retry"] == false);
    CHECK(out["reason"] == "server_refused");
}

TEST_CASE("decide --server-delay that is not a duration is a usage error",
          "[cli][decide][server_delay]") {
    const auto result = decide({"--category", "service_unavailable", "--server-delay", "15xx"});
    CHECK(result.exit_code == 2);
    CHECK(result.err.find("--server-delay") != std::string::npos);
}
