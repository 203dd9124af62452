// The real brownout experiment (bench/brownout_experiment.cpp, bench/brownout_server.py) in a
// shortened form: it stops by itself, talks only to loopback and writes sane figures. Its timing
// goals are measured by bench/run.sh (docs/performance.md), never here.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "loopback_http_server.hpp"
#include "run_command.hpp"

namespace fs = std::filesystem;
using rebound::testing::run_command;

namespace {

const std::string kExperiment = REBOUND_BROWNOUT_EXPERIMENT;
const std::string kServer = REBOUND_BROWNOUT_SERVER;
const std::string kPython = REBOUND_PYTHON3;

struct TemporaryDirectory {
    fs::path path = rebound::testing::make_temporary_directory("rebound-brownout");
    ~TemporaryDirectory() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
};

std::vector<std::string> split(const std::string& line, char separator) {
    std::vector<std::string> fields;
    std::stringstream in(line);
    std::string field;
    while (std::getline(in, field, separator)) {
        fields.push_back(field);
    }
    return fields;
}

bool process_exists(int pid) {
    return kill(pid, 0) == 0 || errno != ESRCH;
}

// The local addresses (hex "ADDR:PORT" as /proc/net/tcp writes them) of the listening IPv4 and
// IPv6 sockets on `port`.
std::vector<std::string> listening_addresses(int port) {
    std::vector<std::string> addresses;
    char port_hex[8];
    std::snprintf(port_hex, sizeof port_hex, "%04X", static_cast<unsigned>(port));
    for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        std::ifstream in(table);
        std::string line;
        std::getline(in, line);  // header
        while (std::getline(in, line)) {
            std::istringstream fields(line);
            std::string slot, local, remote, state;
            fields >> slot >> local >> remote >> state;
            if (state == "0A" && local.ends_with(std::string(":") + port_hex)) {
                addresses.push_back(local);
            }
        }
    }
    return addresses;
}

}  // namespace

TEST_CASE("brownout experiment: a short run stops, stays on loopback and writes sane figures",
          "[brownout]") {
    const TemporaryDirectory directory;
    const fs::path csv = directory.path / "brownout.csv";
    const fs::path svg = directory.path / "brownout.svg";
    const fs::path json = directory.path / "brownout.json";
    const auto began = std::chrono::steady_clock::now();
    const auto run = run_command({kExperiment,
                                  "--capacity",
                                  "40",
                                  "--queue",
                                  "20",
                                  "--brownout-start-ms",
                                  "1000",
                                  "--brownout-ms",
                                  "1000",
                                  "--after-ms",
                                  "1500",
                                  "--sample-ms",
                                  "500",
                                  "--strategies",
                                  "none,immediate",
                                  "--csv",
                                  csv.string(),
                                  "--svg",
                                  svg.string(),
                                  "--json",
                                  json.string()});
    const auto took = std::chrono::steady_clock::now() - began;
    INFO(run.out << run.err);
    REQUIRE(run.exit_code == 0);
    // Two strategies of 3.5 s each; a generous bound, only to show that it stops by itself.
    CHECK(took < std::chrono::seconds(60));
    CHECK(run.out.find("none ") != std::string::npos);
    CHECK(run.out.find("immediate ") != std::string::npos);

    const nlohmann::json summary = nlohmann::json::parse(rebound::testing::read_file(json));
    CHECK(summary.at("host") == "127.0.0.1");
    CHECK(summary.at("arrival_rate").get<double>() == Approx(32.0));
    REQUIRE(summary.at("strategies").size() == 2);
    for (const nlohmann::json& strategy : summary.at("strategies")) {
        INFO(strategy.dump());
        // Every server the experiment started is gone.
        CHECK_FALSE(process_exists(strategy.at("server_pid").get<int>()));
        CHECK(strategy.at("server_received").get<std::uint64_t>() >=
              strategy.at("server_served").get<std::uint64_t>() +
                  strategy.at("server_shed").get<std::uint64_t>());
        CHECK(strategy.at("largest_queue").get<std::uint64_t>() <= 20);
        // Connections are kept between calls (docs/protocols.md, "Connections").
        CHECK(strategy.at("server_connections").get<std::uint64_t>() >= 1);
        CHECK(strategy.at("server_connections").get<std::uint64_t>() <=
              strategy.at("server_received").get<std::uint64_t>());
        CHECK(strategy.at("peak_amplification").get<double>() >= 0.0);
    }
    CHECK(summary.at("policy_file") == "simulation/policies/brownout.yaml");
    const nlohmann::json& none = summary.at("strategies")[0];
    const nlohmann::json& immediate = summary.at("strategies")[1];
    CHECK(none.at("strategy") == "none");
    CHECK(none.at("peak_amplification").get<double>() <= 1.1);
    // The policies of simulation/policies/brownout.yaml, as the simulation runs them.
    CHECK(none.at("policy").at("max_attempts") == 1);
    CHECK(none.at("brownout_retries") == 0);
    CHECK(immediate.at("strategy") == "immediate");
    CHECK(immediate.at("policy").at("max_attempts") == 4);
    CHECK(immediate.at("policy").at("first_backoff_ms").get<double>() == 0.0);
    CHECK(immediate.at("policy").at("budget").is_null());
    CHECK(immediate.at("brownout_amplification").get<double>() >=
          none.at("brownout_amplification").get<double>() * 0.9);

    // The CSV: the simulation's header, 7 samples of 0.5 s per strategy, offered / arrivals.
    std::ifstream in(csv);
    std::string line;
    std::getline(in, line);
    CHECK(line == "strategy,time_s,arrivals,offered,goodput,amplification");
    std::vector<std::string> strategies;
    double none_arrivals = 0.0;
    double none_offered = 0.0;
    double immediate_offered = 0.0;
    while (std::getline(in, line)) {
        const std::vector<std::string> fields = split(line, ',');
        REQUIRE(fields.size() == 6);
        strategies.push_back(fields[0]);
        const double arrivals = std::stod(fields[2]);
        const double offered = std::stod(fields[3]);
        const double goodput = std::stod(fields[4]);
        const double amplification = std::stod(fields[5]);
        CHECK(arrivals == Approx(32.0).margin(4.0));  // 16 evenly spaced arrivals per 0.5 s
        CHECK(offered >= 0.0);
        CHECK(goodput >= 0.0);
        CHECK(amplification == Approx(offered / arrivals).margin(0.01));
        if (fields[0] == "none") {
            none_arrivals += arrivals;
            none_offered += offered;
        } else {
            immediate_offered += offered;
        }
    }
    CHECK(std::count(strategies.begin(), strategies.end(), "none") == 7);
    CHECK(std::count(strategies.begin(), strategies.end(), "immediate") == 7);
    // Without retries every arrival is one attempt; retries can only add attempts.
    CHECK(none_offered <= none_arrivals + 2.0);
    CHECK(immediate_offered >= none_offered * 0.9);

    const std::string chart = rebound::testing::read_file(svg);
    CHECK(chart.find("<svg") != std::string::npos);
    CHECK(chart.find(">immediate<") != std::string::npos);
}

TEST_CASE("brownout experiment: bad options get a clear error and start nothing", "[brownout]") {
    const auto zero = run_command({kExperiment, "--capacity", "0"});
    CHECK(zero.exit_code == 2);
    CHECK(zero.err.find("--capacity") != std::string::npos);
    const auto unknown = run_command({kExperiment, "--strategies", "none,storm"});
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.err.find("no strategy 'storm'") != std::string::npos);
}

TEST_CASE("brownout server: listens on 127.0.0.1 only", "[brownout]") {
    const rebound::testing::LoopbackHttpServer server(kServer, {"--max-seconds", "30"});
    const std::vector<std::string> addresses = listening_addresses(server.port());
    INFO("port " << server.port());
    REQUIRE(addresses.size() == 1);
    CHECK(addresses.front().starts_with("0100007F:"));  // 127.0.0.1, little-endian hex
}

TEST_CASE("brownout server: stops by itself after --max-seconds", "[brownout]") {
    const auto began = std::chrono::steady_clock::now();
    const auto run = run_command({kPython, kServer, "--max-seconds", "1"});
    const auto took = std::chrono::steady_clock::now() - began;
    CHECK(run.exit_code == 3);
    CHECK(run.err.find("--max-seconds 1") != std::string::npos);
    CHECK(took < std::chrono::seconds(20));
}

TEST_CASE("brownout server: bad options get a clear error", "[brownout]") {
    const auto run = run_command({kPython, kServer, "--capacity", "-5"});
    CHECK(run.exit_code == 2);
    CHECK(run.err.find("--capacity: must be positive, got -5") != std::string::npos);
}
