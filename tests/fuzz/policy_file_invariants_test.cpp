// The fuzz targets' invariants (policy_file_invariants.hpp): each check reports what breaks it,
// and every seed of the fuzz corpus, valid fixture and conformance vector keeps them all.
#include "policy_file_invariants.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using rebound::dsl::Diagnostic;
using rebound::dsl::DiagnosticCode;
using rebound::dsl::Syntax;
using rebound::fuzz::Violations;

namespace {

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::optional<Syntax> syntax_of(const fs::path& path) {
    const std::string extension = path.extension().string();
    if (extension == ".yaml" || extension == ".yml") {
        return Syntax::Yaml;
    }
    if (extension == ".json") {
        return Syntax::Json;
    }
    if (extension == ".rebound") {
        return Syntax::Text;
    }
    return std::nullopt;
}

// The policy files directly in `directory`, sorted (the conformance vectors' expected outputs,
// *.explain.json, *.hedge.json and *.expect.json, are not policy files).
std::vector<fs::path> policy_files_in(const fs::path& directory) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(directory)) {
        if (entry.is_regular_file() && syntax_of(entry.path()) &&
            !entry.path().filename().string().ends_with(".explain.json") &&
            !entry.path().filename().string().ends_with(".hedge.json") &&
            !entry.path().filename().string().ends_with(".expect.json")) {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

Diagnostic diagnostic_at(std::uint32_t line, std::uint32_t column) {
    Diagnostic d;
    d.code = DiagnosticCode::UnknownKey;
    d.message = "placed by the test";
    d.position = {line, column};
    return d;
}

std::string joined(const Violations& violations) {
    std::string text;
    for (const std::string& v : violations) {
        text += v + "\n";
    }
    return text;
}

const std::string kTwoPolicies = R"(rebound: 1
service: orders
policies:
  interactive:
    max_attempts: 3
    backoff: {type: fixed, delay: 10ms}
  batch:
    max_attempts: 5
handlers:
  ApproveCase: interactive
  jobs.*: batch
default: interactive
)";

}  // namespace

TEST_CASE("diagnostic positions: inside the input, at its end, or unknown pass",
          "[fuzz][invariants]") {
    const std::string text = "ab\ncdef\n";  // lines "ab", "cdef" and the empty line after
    const rebound::dsl::Diagnostics inside{diagnostic_at(1, 1), diagnostic_at(1, 3),
                                           diagnostic_at(2, 5), diagnostic_at(3, 1),
                                           diagnostic_at(0, 0)};
    CHECK(rebound::fuzz::diagnostic_position_violations(inside, text).empty());
}

TEST_CASE("diagnostic positions: a line or column outside the input is a violation",
          "[fuzz][invariants]") {
    const std::string text = "ab\ncdef\n";
    const auto [line, column, expected] = GENERATE(
        table<std::uint32_t, std::uint32_t, std::string>({{4, 1, "line beyond the 3 lines"},
                                                          {1, 4, "column outside line 1 (2 bytes)"},
                                                          {2, 0, "column outside line 2"},
                                                          {3, 2, "column outside line 3 (0 bytes)"},
                                                          {0, 7, "a column without a line"}}));
    const Violations violations =
        rebound::fuzz::diagnostic_position_violations({diagnostic_at(line, column)}, text);
    REQUIRE(violations.size() == 1);
    CHECK_THAT(violations.front(), Catch::Contains(expected) && Catch::Contains("RB002"));
}

TEST_CASE("JSON check: text that does not parse is a violation", "[fuzz][invariants]") {
    CHECK(rebound::fuzz::json_violations(R"({"a": [1, 2.5, "x"]})", "sample").empty());
    const Violations broken = rebound::fuzz::json_violations(R"({"a": [1, 2.5, "x"})", "sample");
    REQUIRE(broken.size() == 1);
    CHECK_THAT(broken.front(), Catch::StartsWith("sample is not JSON"));
    CHECK(rebound::fuzz::json_violations("{\"a\": \"\xff\"}", "invalid UTF-8").size() == 1);
}

TEST_CASE("round trip: a document that explains the same in every syntax passes",
          "[fuzz][invariants]") {
    const auto loaded = rebound::dsl::load_text(kTwoPolicies, "two.yaml", Syntax::Yaml);
    REQUIRE(loaded.policy_set);
    CHECK(joined(rebound::fuzz::round_trip_violations(loaded)).empty());
}

TEST_CASE("round trip: a printed document that explains differently is a violation",
          "[fuzz][invariants]") {
    // The policy set of one file with the document of another: what the document prints no
    // longer explains as the policy set does, as a printer that lost a field would.
    auto loaded = rebound::dsl::load_text(kTwoPolicies, "two.yaml", Syntax::Yaml);
    std::string changed = kTwoPolicies;
    changed.replace(changed.find("max_attempts: 5"), 15, "max_attempts: 6");
    const auto other = rebound::dsl::load_text(changed, "changed.yaml", Syntax::Yaml);
    REQUIRE(loaded.policy_set);
    REQUIRE(other.policy_set);
    loaded.document = other.document;
    const Violations violations = rebound::fuzz::round_trip_violations(loaded);
    REQUIRE(violations.size() == 3);  // printed as YAML, JSON and the DSL
    for (const std::string& violation : violations) {
        CHECK_THAT(violation, Catch::Contains("explains differently"));
    }
}

TEST_CASE(
    "every seed of the fuzz corpus, valid fixture and conformance vector keeps the invariants",
    "[fuzz][invariants]") {
    const fs::path corpus(REBOUND_FUZZ_CORPUS_DIR);
    std::vector<fs::path> files;
    for (const char* syntax : {"yaml", "json", "text"}) {
        const auto seeds = policy_files_in(corpus / syntax);
        files.insert(files.end(), seeds.begin(), seeds.end());
    }
    // sqlstate-not-utf8.rebound: the engine's message quotes the SQLSTATE's bytes as written,
    // and `rebound lint --format json` threw on them (found by the invariants).
    // mark-past-end-after-nul.yaml: yaml-cpp placed its error past the end of the only line.
    // alias-amplification.yaml, deep-extends-chain.yaml, tags.yaml: the limits and refusals of
    // issue 17 (docs/policy-format.md, Limits), small enough to mutate quickly.
    REQUIRE(files.size() == 36);
    const auto fixtures = policy_files_in(fs::path(REBOUND_TEST_DATA_DIR) / "valid");
    const auto schema_invalid = policy_files_in(fs::path(REBOUND_TEST_DATA_DIR) / "schema-invalid");
    const auto vectors = policy_files_in(fs::path(REBOUND_SPEC_DIR) / "conformance");
    const auto invalid_vectors =
        policy_files_in(fs::path(REBOUND_SPEC_DIR) / "conformance/invalid");
    REQUIRE(fixtures.size() == 4);
    REQUIRE(schema_invalid.size() >= 79);
    REQUIRE(vectors.size() == 10);
    REQUIRE(invalid_vectors.size() == 11);
    for (const auto* more : {&fixtures, &schema_invalid, &vectors, &invalid_vectors}) {
        files.insert(files.end(), more->begin(), more->end());
    }
    for (const fs::path& file : files) {
        INFO(file.string());
        CHECK(joined(rebound::fuzz::policy_file_violations(read_file(file), *syntax_of(file))) ==
              "");
    }
}
