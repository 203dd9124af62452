// The vocabularies (rebound/vocabulary.hpp) against what they drive: parsing, both front ends and
// their did-you-mean, the field table, the shipped JSON Schema and the docs.
#include <catch2/catch.hpp>

#include "run_command.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/backoff.hpp"
#include "rebound/circuit_breaker.hpp"
#include "rebound/decision.hpp"
#include "rebound/dsl/load.hpp"
#include "rebound/dsl/syntax.hpp"
#include "rebound/hedge.hpp"
#include "rebound/jitter.hpp"
#include "rebound/policy_field.hpp"
#include "rebound/policy_spec.hpp"
#include "rebound/server_delay.hpp"

using rebound::JitterType;
using rebound::dsl::Diagnostics;
using rebound::dsl::Syntax;

namespace {

// The file's text through the shared helper; a missing or empty file fails the test.
std::string read_file(const std::string& path) {
    std::string text = rebound::testing::read_file(path);
    REQUIRE_FALSE(text.empty());
    return text;
}

template <rebound::Vocabulary Enum>
void check_round_trip() {
    for (const auto& row : vocabulary(Enum{})) {
        INFO(row.word);
        CHECK(rebound::to_string(row.value) == row.word);
        CHECK(rebound::parse_word<Enum>(row.word) == row.value);
        CHECK_FALSE(row.help.empty());
    }
    CHECK_FALSE(rebound::parse_word<Enum>("no such word"));
}

std::vector<std::string> strings(const std::vector<std::string_view>& words) {
    return {words.begin(), words.end()};
}

std::vector<std::string> enum_of(const nlohmann::json& schema) {
    return schema.at("enum").get<std::vector<std::string>>();
}

// A one-policy file whose policy holds `line`, in YAML or in the text DSL.
Diagnostics load_policy(Syntax syntax, const std::string& line) {
    const std::string text = syntax == Syntax::Text
                                 ? "rebound 1\nservice s\npolicy p {\n  " + line + "\n}\n"
                                 : "rebound: 1\nservice: s\npolicies:\n  p:\n    " + line + "\n";
    return rebound::dsl::load_text(text, syntax == Syntax::Text ? "s.rebound" : "s.yaml", syntax)
        .diagnostics;
}

}  // namespace

TEST_CASE("vocabulary: every word reads back as its value", "[vocabulary]") {
    check_round_trip<rebound::JitterType>();
    check_round_trip<rebound::BackoffType>();
    check_round_trip<rebound::ExhaustedAction>();
    check_round_trip<rebound::ServerDelayUse>();
    check_round_trip<rebound::OverCapAction>();
    check_round_trip<rebound::HedgeOnFailure>();
    check_round_trip<rebound::BreakerTrip>();
    check_round_trip<rebound::BreakerState>();
    check_round_trip<rebound::DecisionReason>();
    CHECK(rebound::to_string(static_cast<JitterType>(200)).empty());
}

TEST_CASE("vocabulary: the field table's word rows list the words", "[vocabulary]") {
    using rebound::PolicyField;
    CHECK(rebound::info_of(PolicyField::BackoffType).range == "fixed, linear, exponential or none");
    CHECK(rebound::info_of(PolicyField::OnExhausted).range == "`fail` or `dead_letter`");
    CHECK(rebound::info_of(PolicyField::ServerDelayOverCap).docs ==
          "stop: stop with server_delay_too_long; cap: wait the cap; ignore: use the backoff "
          "delay alone");
    const auto words = rebound::info_of(PolicyField::OnExhausted).words;
    CHECK(std::vector<std::string_view>(words.begin(), words.end()) ==
          rebound::dsl::words_of<rebound::ExhaustedAction>());
}

TEST_CASE("vocabulary: both front ends accept each bare jitter kind and suggest it",
          "[vocabulary]") {
    for (const std::string_view word : rebound::dsl::bare_jitter_words()) {
        const std::string kind(word);
        INFO(kind);
        CHECK(rebound::is_bare_word(*rebound::parse_word<JitterType>(word)));
        CHECK(load_policy(Syntax::Text, "jitter " + kind).empty());
        CHECK(load_policy(Syntax::Yaml, "jitter: " + kind).empty());
        CHECK(load_policy(Syntax::Yaml, "jitter: { type: " + kind + " }").empty());
        const std::string typo = kind + "x";
        for (const auto& [syntax, line] : {std::pair{Syntax::Text, "jitter " + typo},
                                           std::pair{Syntax::Yaml, "jitter: " + typo}}) {
            const Diagnostics diagnostics = load_policy(syntax, line);
            REQUIRE(diagnostics.size() == 1);
            CHECK(diagnostics.front().suggestion == "did you mean '" + kind + "'?");
        }
    }
}

TEST_CASE("vocabulary: the shipped JSON Schema's enum arrays are the tables' words",
          "[vocabulary]") {
    const nlohmann::json schema = nlohmann::json::parse(read_file(REBOUND_POLICY_SCHEMA));
    const nlohmann::json& definitions = schema.at("definitions");
    const std::vector<std::string> bare = strings(rebound::dsl::bare_jitter_words());
    const nlohmann::json& jitter = definitions.at("jitter").at("oneOf");
    CHECK(enum_of(jitter.at(0)) == bare);
    CHECK(enum_of(jitter.back().at("properties").at("type")) == bare);
    std::vector<std::string> typed;
    for (const nlohmann::json& shape : jitter) {
        if (shape.contains("properties") && shape["properties"]["type"].contains("const")) {
            typed.push_back(shape["properties"]["type"]["const"]);
        }
    }
    for (const rebound::JitterKindRow& row : rebound::kJitterKinds) {
        if (!rebound::is_bare_word(row.value)) {
            CHECK(std::count(typed.begin(), typed.end(), std::string(row.word)) == 1);
        }
    }
    std::vector<std::string> backoff;
    for (const nlohmann::json& shape : definitions.at("backoff").at("oneOf")) {
        if (shape.contains("properties")) {
            backoff.push_back(shape["properties"]["type"]["const"]);
        }
    }
    CHECK(backoff == strings(rebound::dsl::words_of<rebound::BackoffType>()));
    CHECK(enum_of(definitions.at("onExhausted")) ==
          strings(rebound::dsl::words_of<rebound::ExhaustedAction>()));
    const nlohmann::json& server_delay = definitions.at("serverDelay").at("properties");
    CHECK(enum_of(server_delay.at("use")) ==
          strings(rebound::dsl::words_of<rebound::ServerDelayUse>()));
    CHECK(enum_of(server_delay.at("over_cap")) ==
          strings(rebound::dsl::words_of<rebound::OverCapAction>()));
    const std::string hedge = definitions.at("hedge").dump();
    CHECK(hedge.find(R"("enum":["next","wait"])") != std::string::npos);
}

TEST_CASE("vocabulary: the docs name every jitter kind and backoff type", "[vocabulary]") {
    const std::string docs = read_file(REBOUND_DOCS_DIR "/policy-format.md");
    const std::size_t backoff = docs.find("\n## Backoff\n");
    const std::size_t jitter = docs.find("\n## Jitter\n");
    const std::size_t after = docs.find("\n## ", jitter + 1);
    REQUIRE(backoff < jitter);
    REQUIRE(jitter < after);
    for (const auto& row : rebound::kBackoffTypes) {
        INFO(row.word);
        CHECK(docs.substr(backoff, jitter - backoff).find("`" + std::string(row.word) + "`") !=
              std::string::npos);
    }
    for (const auto& row : rebound::kJitterKinds) {
        INFO(row.word);
        CHECK(docs.substr(jitter, after - jitter).find("{ type: " + std::string(row.word)) !=
              std::string::npos);
    }
}
