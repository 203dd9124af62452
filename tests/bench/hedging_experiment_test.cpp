// The hedging experiment (bench/hedging_experiment.cpp, bench/brownout_server.py --latency) in a
// shortened form: it runs its three strategies, writes sane figures, and hedges stay within
// their tokens in the slowdown (a bound the tokens keep whatever the timing). Its latency goals
// are measured by bench/hedging_experiment.py (docs/performance.md), never here.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "run_command.hpp"

namespace fs = std::filesystem;
using rebound::testing::run_command;

namespace {

const std::string kExperiment = REBOUND_HEDGING_EXPERIMENT;

struct TemporaryDirectory {
    fs::path path = rebound::testing::make_temporary_directory("rebound-hedging");
    ~TemporaryDirectory() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
};

}  // namespace

TEST_CASE("hedging experiment: a short run writes sane figures and keeps hedges to their tokens",
          "[hedging]") {
    const TemporaryDirectory directory;
    const fs::path json = directory.path / "hedging.json";
    const auto run = run_command({kExperiment, "--rate", "200", "--requests", "300", "--warmup",
                                  "150", "--slow-seconds", "1", "--json", json.string()});
    INFO(run.out);
    REQUIRE(run.exit_code == 0);
    std::ifstream in(json);
    const nlohmann::json out = nlohmann::json::parse(in);
    const auto& strategies = out.at("strategies");
    REQUIRE(strategies.size() == 3);
    CHECK(strategies[0].at("strategy") == "none");
    CHECK(strategies[1].at("strategy") == "hedge:p95");
    CHECK(strategies[2].at("strategy") == "hedge:10ms");
    for (const auto& s : strategies) {
        INFO(s.dump());
        CHECK(s.at("requests") == 300);
        CHECK(s.at("failed") == 0);
        CHECK(s.at("p50_ms").get<double>() <= s.at("p99_ms").get<double>());
        CHECK(s.at("p99_ms").get<double>() <= s.at("max_ms").get<double>());
        // At most one hedge per request (two attempts), and the server saw about as many.
        CHECK(s.at("extra").get<double>() <= 1.0);
        CHECK(s.at("server_extra").get<double>() <= s.at("extra").get<double>() + 0.02);
        const auto& slowdown = s.at("slowdown");
        CHECK(slowdown.at("hedges").get<double>() <= slowdown.at("bound").get<double>());
        CHECK(slowdown.at("requests").get<int>() > 0);
    }
    CHECK(strategies[0].at("hedges") == 0);
    CHECK(strategies[0].at("slowdown").at("hedges") == 0);
}

TEST_CASE("hedging experiment: bad options get a clear error and start nothing", "[hedging]") {
    const auto zero = run_command({kExperiment, "--rate", "0"});
    CHECK(zero.exit_code == 2);
    const auto quantile = run_command({kExperiment, "--quantile", "1.5"});
    CHECK(quantile.exit_code == 2);
}
