// The field table (rebound/policy_field.hpp) against what it drives and what it is checked
// against: paths, key lists and did-you-mean, the JSON Schema and the docs' field table.
#include <catch2/catch.hpp>

#include "run_command.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "rebound/dsl/load.hpp"
#include "rebound/dsl/parse.hpp"
#include "rebound/policy_field.hpp"

using rebound::FieldPlace;
using rebound::PolicyField;
using rebound::PolicyFieldInfo;

namespace {

// The file's text through the shared helper; a missing or empty file fails the test.
std::string read_file(const std::string& path) {
    std::string text = rebound::testing::read_file(path);
    REQUIRE_FALSE(text.empty());
    return text;
}

// The keys of a policy mapping (with `extends`) or of `defaults` (without), in table order.
std::vector<std::string> body_keys(bool with_extends) {
    std::vector<std::string> keys;
    for (const PolicyFieldInfo& info : rebound::policy_fields()) {
        if (info.place == FieldPlace::PolicyBody ||
            (with_extends && info.place == FieldPlace::PolicyOnly)) {
            keys.emplace_back(info.wire_name);
        }
    }
    return keys;
}

std::vector<std::string> property_names(const nlohmann::json& definition) {
    std::vector<std::string> names;
    for (const auto& [name, value] : definition.at("properties").items()) {
        names.push_back(name);
    }
    return names;
}

}  // namespace

TEST_CASE("field table: paths are spelt from the table", "[field_table]") {
    CHECK(rebound::field_path(PolicyField::MaxAttempts) == "max_attempts");
    CHECK(rebound::field_path(PolicyField::BackoffMax) == "backoff.max");
    CHECK(rebound::field_path(PolicyField::RouteUpTo) == "routes.up_to");
    CHECK(rebound::field_path(PolicyField::RouteUpTo, 2) == "routes[2].up_to");
    CHECK(rebound::field_path(PolicyField::RetryOn, 0) == "retry_on[0]");
    CHECK(rebound::field_path(PolicyField::BudgetTokenRatio, 7) == "budget.token_ratio");
    for (const PolicyFieldInfo& info : rebound::policy_fields()) {
        CHECK(&rebound::info_of(info.id) == &info);
        CHECK(rebound::is_top_level(info.id) == (info.place != FieldPlace::InsideParent));
    }
}

TEST_CASE("field table: the JSON Schema has the table's keys, in its order", "[field_table]") {
    const nlohmann::json schema = nlohmann::json::parse(read_file(REBOUND_POLICY_SCHEMA));
    const nlohmann::json& definitions = schema.at("definitions");
    // nlohmann::json orders object keys alphabetically: compare as sets of names.
    std::vector<std::string> policy = body_keys(true);
    std::vector<std::string> defaults = body_keys(false);
    std::sort(policy.begin(), policy.end());
    std::sort(defaults.begin(), defaults.end());
    CHECK(property_names(definitions.at("policy")) == policy);
    CHECK(property_names(definitions.at("defaults")) == defaults);
}

TEST_CASE("field table: the docs' field table states each field as the table does",
          "[field_table]") {
    const std::string docs = read_file(REBOUND_DOCS_DIR "/policy-format.md");
    for (const PolicyFieldInfo& info : rebound::policy_fields()) {
        if (info.place != FieldPlace::PolicyBody && info.place != FieldPlace::PolicyOnly) {
            continue;
        }
        INFO(info.wire_name);
        const std::string row_start = "| `" + std::string(info.wire_name) + "` |";
        const std::size_t start = docs.find("\n" + row_start);
        REQUIRE(start != std::string::npos);
        const std::string row = docs.substr(start + 1, docs.find('\n', start + 1) - start - 1);
        // "| range | default | meaning |", the default cell empty ("| |") where there is none.
        const std::string default_cell =
            info.default_value.empty() ? "" : std::string(info.default_value) + " ";
        const std::string expected_end = " | " + std::string(info.range) + " | " + default_cell +
                                         "| " + std::string(info.docs) + " |";
        CHECK(row.ends_with(expected_end));
    }
}

TEST_CASE("field table: every key of a policy is read, and a misspelt one is named",
          "[field_table]") {
    for (const std::string& key : body_keys(true)) {
        INFO(key);
        const std::string typo = key.substr(0, key.size() - 1) + "x";
        const rebound::dsl::LoadResult result = rebound::dsl::load_text(
            "rebound: 1\nservice: s\npolicies:\n  p:\n    " + typo + ": 1\n", "s.yaml",
            rebound::dsl::Syntax::Yaml);
        REQUIRE_FALSE(result.diagnostics.empty());
        const rebound::dsl::Diagnostic& first = result.diagnostics.front();
        CHECK(first.code == rebound::dsl::DiagnosticCode::UnknownKey);
        CHECK(first.suggestion == "did you mean '" + key + "'?");
    }
}

// The text DSL has no statement of its own for a duration field: the table's rows are its
// statements (text/grammar.hpp), so each row is read, named in messages and checked for
// duplicates by its DSL keyword.
TEST_CASE("field table: the text DSL reads every duration field by its keyword", "[field_table]") {
    for (const PolicyFieldInfo& info : rebound::policy_fields()) {
        if (info.kind != rebound::FieldKind::TimeSpan || info.place != FieldPlace::PolicyBody) {
            continue;
        }
        const std::string keyword(info.dsl_keyword);
        INFO(keyword);
        REQUIRE_FALSE(keyword.empty());
        REQUIRE_FALSE(info.example.empty());

        const std::string head = "rebound 1\nservice s\npolicy p {\n  ";
        const rebound::dsl::ParseResult read =
            rebound::dsl::parse_text(head + keyword + " 250ms\n}\n", "s.rebound");
        CHECK(read.diagnostics.empty());
        REQUIRE(read.document.policies.size() == 1);
        const auto value = read.document.policies.front().fields.duration(info.id);
        REQUIRE(value);
        CHECK(value->value == std::chrono::milliseconds(250));
        CHECK(value->position ==
              rebound::dsl::SourcePosition{4, static_cast<std::uint32_t>(keyword.size() + 4)});

        const rebound::dsl::ParseResult missing =
            rebound::dsl::parse_text(head + keyword + "\n}\n", "s.rebound");
        REQUIRE(missing.diagnostics.size() == 1);
        CHECK(missing.diagnostics.front().message == "expected a duration such as " +
                                                         std::string(info.example) + " after '" +
                                                         keyword + "', got the end of the line");
        CHECK(missing.diagnostics.front().field == "policies.p." + std::string(info.wire_name));

        const rebound::dsl::ParseResult twice = rebound::dsl::parse_text(
            head + keyword + " 1s\n  " + keyword + " 2s\n}\n", "s.rebound");
        REQUIRE(twice.diagnostics.size() == 1);
        CHECK(twice.diagnostics.front().message ==
              "duplicate '" + keyword + "' (first given at line 4)");

        const rebound::dsl::ParseResult misspelt =
            rebound::dsl::parse_text(head + keyword + "x 1s\n}\n", "s.rebound");
        REQUIRE(misspelt.diagnostics.size() == 1);
        CHECK(misspelt.diagnostics.front().code == rebound::dsl::DiagnosticCode::UnknownKey);
        CHECK(misspelt.diagnostics.front().suggestion == "did you mean '" + keyword + "'?");
    }
}
