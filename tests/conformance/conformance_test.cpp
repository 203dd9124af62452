// The spec's conformance vectors (../shared/spec/conformance), run through the `rebound` binary
// exactly as conformance/README.md describes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "run_command.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using rebound::testing::CommandResult;
using rebound::testing::run_command;

namespace {

const fs::path kConformance = fs::path(REBOUND_SPEC_DIR) / "conformance";
const std::string kCli = REBOUND_CLI_PATH;

json read_json(const fs::path& path) {
    std::ifstream in(path);
    return json::parse(in);
}

CommandResult run_cli(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), kCli);
    return run_command(arguments);
}

json explain(const std::string& file, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> arguments{"explain", file, "--format", "json"};
    arguments.insert(arguments.end(), extra.begin(), extra.end());
    const CommandResult result = run_cli(arguments);
    INFO("rebound explain " << file << "\n" << result.err);
    REQUIRE(result.exit_code == 0);
    return json::parse(result.out);
}

// Every key of `expected` is in `actual` with the same value; numbers within 0.001.
void require_contains(const json& actual, const json& expected, const std::string& path = "$") {
    INFO("at " << path);
    if (expected.is_object()) {
        REQUIRE(actual.is_object());
        for (const auto& [key, value] : expected.items()) {
            INFO("missing key " << path << "." << key);
            REQUIRE(actual.contains(key));
            require_contains(actual.at(key), value, path + "." + key);
        }
    } else if (expected.is_array()) {
        REQUIRE(actual.is_array());
        REQUIRE(actual.size() == expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            require_contains(actual[i], expected[i], path + "[" + std::to_string(i) + "]");
        }
    } else if (expected.is_number()) {
        REQUIRE(actual.is_number());
        REQUIRE(std::abs(actual.get<double>() - expected.get<double>()) <= 0.001);
    } else {
        REQUIRE(actual == expected);
    }
}

std::vector<fs::path> files_matching(const fs::path& directory, const std::regex& pattern) {
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(directory)) {
        if (std::regex_match(entry.path().filename().string(), pattern)) {
            found.push_back(entry.path());
        }
    }
    std::sort(found.begin(), found.end());
    return found;
}

// The handler vectors: {handler name, expected explain JSON}.
std::vector<std::pair<std::string, fs::path>> handler_vectors() {
    std::vector<std::pair<std::string, fs::path>> vectors;
    const std::regex pattern(R"(04-tiers\.handler-(.+)\.explain\.json)");
    for (const fs::path& path : files_matching(kConformance, pattern)) {
        std::smatch match;
        const std::string name = path.filename().string();
        std::regex_match(name, match, pattern);
        vectors.emplace_back(match[1].str(), path);
    }
    return vectors;
}

// Version-2 vectors (breakers, server delay hints, protocol matchers, `calls`): they run in the
// `version 2` test cases at the end of this file.
bool is_version_2(const fs::path& file) {
    return file.filename().string().starts_with("06-resilience");
}

// The vectors whose whole explain output is given (NN-name.explain.json); the hedging vectors
// (07-hedging) give the `hedge` value of each policy instead (hedging_vectors).
std::vector<fs::path> valid_vectors(bool version_2 = false) {
    std::vector<fs::path> found;
    for (const fs::path& file :
         files_matching(kConformance, std::regex(R"(\d\d-[a-z-]+\.(yaml|rebound))"))) {
        const bool has_explain =
            fs::exists(kConformance / (file.stem().string() + ".explain.json"));
        if (has_explain && is_version_2(file) == version_2) {
            found.push_back(file);
        }
    }
    return found;
}

// 07-hedging.yaml and its DSL twin 07-hedging.rebound, with 07-hedging.hedge.json.
std::vector<fs::path> hedging_vectors() {
    return files_matching(kConformance, std::regex(R"(07-hedging\.(yaml|rebound))"));
}

// The policy named `name` in the explain output of a whole file.
json policy_named(const json& explained, const std::string& name) {
    for (const json& policy : explained.at("policies")) {
        if (policy.at("policy") == name) {
            return policy;
        }
    }
    FAIL("no policy " << name << " in the explain output");
    return nullptr;
}

// The decide vectors, one JSON object a line, split by whether their file is a version-2 one.
std::vector<std::string> decide_vectors(bool version_2) {
    std::ifstream lines(kConformance / "decide-cases.jsonl");
    std::vector<std::string> found;
    std::string line;
    while (std::getline(lines, line)) {
        if (!line.empty() &&
            is_version_2(json::parse(line)["file"].get<std::string>()) == version_2) {
            found.push_back(line);
        }
    }
    return found;
}

void check_decide_vector(const std::string& line) {
    const json vector = json::parse(line);
    std::vector<std::string> arguments{"decide",
                                       (kConformance / vector["file"].get<std::string>()).string()};
    for (const auto& arg : vector["args"]) {
        arguments.push_back(arg.get<std::string>());
    }
    const json& expect = vector["expect"];
    for (int seed = 1; seed <= 20; ++seed) {
        std::vector<std::string> seeded = arguments;
        seeded.insert(seeded.end(), {"--seed", std::to_string(seed * 7919), "--format", "json"});
        const CommandResult result = run_cli(seeded);
        INFO(line << "\nseed " << seed * 7919 << "\n" << result.err << result.out);
        REQUIRE(result.exit_code == 0);
        const json decision = json::parse(result.out);
        for (const auto& [key_name, value] : expect.items()) {
            if (key_name == "delay_us_min") {
                CHECK(decision["delay_us"].get<std::int64_t>() >= value.get<std::int64_t>());
            } else if (key_name == "delay_us_max") {
                CHECK(decision["delay_us"].get<std::int64_t>() <= value.get<std::int64_t>());
            } else {
                CHECK(decision[key_name] == value);
            }
        }
    }
}

}  // namespace

TEST_CASE("explain of every valid vector matches its expected JSON", "[conformance]") {
    const auto files = valid_vectors();
    REQUIRE(files.size() == 6);
    for (const fs::path& file : files) {
        const std::string stem = file.stem().string();
        const fs::path expected = kConformance / (stem + ".explain.json");
        REQUIRE(fs::exists(expected));
        SECTION(file.filename().string()) {
            require_contains(explain(file.string()), read_json(expected));
        }
    }
}

TEST_CASE("explain --handler of the tier vectors matches, for YAML and DSL", "[conformance]") {
    const auto vectors = handler_vectors();
    REQUIRE(vectors.size() == 5);
    for (const std::string source : {"04-tiers.yaml", "04-tiers.rebound"}) {
        for (const auto& [handler, expected] : vectors) {
            SECTION(source + " --handler " + handler) {
                require_contains(explain((kConformance / source).string(), {"--handler", handler}),
                                 read_json(expected));
            }
        }
    }
}

TEST_CASE("decide cases hold for 20 seeds each", "[conformance]") {
    // Cases with --sqlstate/--vendor/--native are classified with the shipped vendor maps
    // (policies/vendors/) before the decision, as the ODBC adapter does.
    const auto vectors = decide_vectors(false);
    REQUIRE(vectors.size() == 20);
    for (const std::string& line : vectors) {
        check_decide_vector(line);
    }
}

TEST_CASE("version-3: the hedging vectors in YAML and the DSL load to the same policies",
          "[conformance]") {
    const auto files = hedging_vectors();
    REQUIRE(files.size() == 2);
    for (const fs::path& file : files) {
        const CommandResult lint = run_cli({"lint", "--format", "json", file.string()});
        INFO(file << "\n" << lint.out << lint.err);
        CHECK(lint.exit_code == 0);
    }
    const json yaml = explain(files[1].string());
    CHECK(yaml.at("policies").size() == 4);
    CHECK(explain(files[0].string()) == yaml);
}

TEST_CASE("version-3: explain gives each policy's hedge value of 07-hedging.hedge.json",
          "[conformance]") {
    const json expected = read_json(kConformance / "07-hedging.hedge.json");
    REQUIRE(expected.size() == 4);
    for (const fs::path& file : hedging_vectors()) {
        const json explained = explain(file.string());
        for (const auto& [name, hedge] : expected.items()) {
            SECTION(file.filename().string() + " " + name) {
                const json policy = policy_named(explained, name);
                REQUIRE(policy.contains("hedge"));
                require_contains(policy.at("hedge"), hedge, name + ".hedge");
                if (hedge.is_null()) {
                    CHECK(policy.at("hedge").is_null());
                }
            }
        }
    }
}

TEST_CASE("invalid vectors fail lint and explain at the expected lines", "[conformance]") {
    const auto files =
        files_matching(kConformance / "invalid", std::regex(R"(.*\.(yaml|rebound))"));
    REQUIRE(files.size() == 11);
    for (const fs::path& file : files) {
        SECTION(file.filename().string()) {
            const json expect = read_json(file.string() + ".expect.json");
            const CommandResult lint = run_cli({"lint", "--format", "json", file.string()});
            INFO(lint.out << lint.err);
            REQUIRE(lint.exit_code == expect["exit_code"].get<int>());
            const json report = json::parse(lint.out);
            // Each error diagnostic's message and suggestion, by line.
            std::multimap<int, std::string> errors;
            for (const json& d : report["diagnostics"]) {
                if (d["severity"] == "error") {
                    errors.emplace(d["line"].get<int>(), d["message"].get<std::string>() + " " +
                                                             d.value("suggestion", ""));
                }
            }
            std::vector<std::string> needles;
            for (const auto& needle : expect.value("message_contains", json::array())) {
                needles.push_back(needle.get<std::string>());
            }
            // An error on `line` whose text holds every expected string (the spec's
            // message_contains applies to the diagnostic on the expected line, not to any).
            const auto expected_error_on = [&](int line) {
                const auto [first, last] = errors.equal_range(line);
                return std::any_of(first, last, [&](const auto& error) {
                    return std::all_of(needles.begin(), needles.end(), [&](const std::string& n) {
                        return error.second.find(n) != std::string::npos;
                    });
                });
            };
            INFO("message_contains: " << expect.value("message_contains", json::array()).dump());
            if (expect.contains("error_lines")) {
                for (const int line : expect["error_lines"]) {
                    INFO("expected line " << line);
                    CHECK(expected_error_on(line));
                }
            }
            if (expect.contains("error_lines_any_of")) {
                const json& lines = expect["error_lines_any_of"];
                CHECK(std::any_of(lines.begin(), lines.end(), [&](const json& line) {
                    return expected_error_on(line.get<int>());
                }));
            }
            REQUIRE((expect.contains("error_lines") || expect.contains("error_lines_any_of")));
            // explain fails the same way, naming the same positions on stderr.
            const CommandResult explained = run_cli({"explain", "--format", "json", file.string()});
            CHECK(explained.exit_code == 1);
            for (const auto& [line, text] : errors) {
                CHECK(explained.err.find(file.string() + ":" + std::to_string(line) + ":") !=
                      std::string::npos);
            }
        }
    }
}

TEST_CASE("convert round-trips every valid vector through every syntax", "[conformance][convert]") {
    const fs::path scratch = rebound::testing::make_temporary_directory("rebound-convert");
    const auto handlers = handler_vectors();
    auto files = valid_vectors();
    REQUIRE(files.size() == 6);
    REQUIRE(handlers.size() == 5);
    for (const fs::path& hedging : hedging_vectors()) {
        files.push_back(hedging);
    }
    for (const fs::path& file : files) {
        for (const auto& [target, extension] : std::vector<std::pair<std::string, std::string>>{
                 {"yaml", ".yaml"}, {"dsl", ".rebound"}, {"json", ".json"}}) {
            SECTION(file.filename().string() + " to " + target) {
                const fs::path converted =
                    scratch / (file.stem().string() + "-" + target + extension);
                const CommandResult result =
                    run_cli({"convert", file.string(), "--to", target, "-o", converted.string()});
                INFO(result.err);
                REQUIRE(result.exit_code == 0);
                CHECK(explain(converted.string()) == explain(file.string()));
                if (file.stem() == "04-tiers") {
                    for (const auto& [handler, expected] : handlers) {
                        CHECK(explain(converted.string(), {"--handler", handler}) ==
                              explain(file.string(), {"--handler", handler}));
                    }
                }
            }
        }
    }
    fs::remove_all(scratch);
}

// The project's own valid fixtures (tests/data/valid: every field, every form) convert without
// losing meaning too, including what only they hold: empty lists that override inherited ones
// (`_private.tier-2` of every-field.yaml) and every binding form.
TEST_CASE("convert round-trips every valid test fixture through every syntax",
          "[conformance][convert]") {
    const fs::path scratch = rebound::testing::make_temporary_directory("rebound-convert-fixtures");
    const auto fixtures =
        files_matching(fs::path(REBOUND_TEST_DATA_DIR) / "valid", std::regex(R"(.*\.(yaml|json))"));
    REQUIRE(fixtures.size() == 4);
    const std::vector<std::string> handlers{
        "ApproveCase", "RiskBackfillChunk", "RemoveReviewer", "Nightly",
        "orders.x",    "orders.email.x",    "Legacy",         "Unbound"};
    for (const fs::path& file : fixtures) {
        for (const auto& [target, extension] : std::vector<std::pair<std::string, std::string>>{
                 {"yaml", ".yaml"}, {"dsl", ".rebound"}, {"json", ".json"}}) {
            SECTION(file.filename().string() + " to " + target) {
                const fs::path converted =
                    scratch / (file.stem().string() + "-" + target + extension);
                const CommandResult result =
                    run_cli({"convert", file.string(), "--to", target, "-o", converted.string()});
                INFO(result.err);
                REQUIRE(result.exit_code == 0);
                CHECK(explain(converted.string()) == explain(file.string()));
                for (const std::string& handler : handlers) {
                    CHECK(explain(converted.string(), {"--handler", handler}) ==
                          explain(file.string(), {"--handler", handler}));
                }
            }
        }
    }
    fs::remove_all(scratch);
}

TEST_CASE("classify of protocol failures (HTTP, transport, gRPC) matches every vector",
          "[conformance]") {
    std::ifstream lines(kConformance / "classify-protocol-cases.jsonl");
    std::string line;
    int checked = 0;
    while (std::getline(lines, line)) {
        if (line.empty()) {
            continue;
        }
        const json vector = json::parse(line);
        std::vector<std::string> arguments{"classify"};
        for (const auto& arg : vector["args"]) {
            arguments.push_back(arg.get<std::string>());
        }
        arguments.insert(arguments.end(), {"--format", "json"});
        const CommandResult result = run_cli(arguments);
        INFO(line << "\n" << result.err << result.out);
        REQUIRE(result.exit_code == 0);
        require_contains(json::parse(result.out), vector["expect"]);
        ++checked;
    }
    CHECK(checked > 0);
}

// Version 2 of the contract, not implemented yet: each vector must still fail. When one of these
// cases starts to pass, the feature has landed: move its vectors into the cases above.
TEST_CASE("version 2: explain of the resilience vectors (breakers, server_delay, calls)",
          "[conformance][version2]") {
    const auto files = valid_vectors(true);
    REQUIRE(files.size() == 2);
    const std::regex pattern(R"(06-resilience\.handler-(.+)\.explain\.json)");
    const auto handlers = files_matching(kConformance, pattern);
    REQUIRE(handlers.size() == 4);
    for (const fs::path& file : files) {
        require_contains(explain(file.string()),
                         read_json(kConformance / "06-resilience.explain.json"));
        for (const fs::path& expected : handlers) {
            std::smatch match;
            const std::string name = expected.filename().string();
            std::regex_match(name, match, pattern);
            INFO(file.filename().string() << " --handler " << match[1].str());
            require_contains(explain(file.string(), {"--handler", match[1].str()}),
                             read_json(expected));
        }
    }
}

TEST_CASE("version 2: decide cases with server hints and protocol statuses",
          "[conformance][version2]") {
    const auto vectors = decide_vectors(true);
    REQUIRE(vectors.size() == 8);
    for (const std::string& line : vectors) {
        check_decide_vector(line);
    }
}

TEST_CASE("version 2: replay of breaker event traces", "[conformance][version2]") {
    const auto traces = files_matching(kConformance / "replay", std::regex(R"(.*\.events)"));
    REQUIRE(traces.size() == 2);
    for (const fs::path& events : traces) {
        std::ifstream in(events);
        std::string first;
        std::getline(in, first);
        const std::smatch match = [&] {
            std::smatch m;
            std::regex_search(first, m, std::regex(R"(breaker ([a-z0-9_.-]+))"));
            return m;
        }();
        REQUIRE(match.size() == 2);
        const CommandResult result =
            run_cli({"replay", (kConformance / "06-resilience.yaml").string(), "--breaker",
                     match[1].str(), events.string(), "--format", "json"});
        INFO(events << "\n" << result.err << result.out);
        REQUIRE(result.exit_code == 0);
        fs::path expected = events;
        expected.replace_extension(".expect.jsonl");
        std::ifstream want(expected);
        std::istringstream got(result.out);
        std::string want_line;
        std::string got_line;
        while (std::getline(want, want_line)) {
            REQUIRE(std::getline(got, got_line));
            require_contains(json::parse(got_line), json::parse(want_line));
        }
        CHECK_FALSE(std::getline(got, got_line));
    }
}
