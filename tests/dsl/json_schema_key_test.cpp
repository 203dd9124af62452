// A JSON policy file may name its JSON Schema with a top-level `$schema` key, for editors (JSON
// has no comment to hold a yaml-language-server modeline): the front end accepts and ignores it,
// and the shipped schema allows it and names itself with an `$id`.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "rebound/dsl/load.hpp"

namespace {

constexpr const char* kSchemaId =
    "https://raw.githubusercontent.com/rebound-retry/rebound/main/policies/schema/"
    "rebound-policy.schema.json";

std::string policy_json(const std::string& schema_value) {
    return R"({
  "$schema": )" +
           schema_value +
           R"(,
  "rebound": 1,
  "service": "fetcher",
  "policies": {"fetch": {"max_attempts": 3, "backoff": {"type": "fixed", "delay": "10ms"},
                         "jitter": "none", "retry_on": ["transient"]}}
})";
}

}  // namespace

TEST_CASE("a JSON policy file may name its schema with $schema", "[json]") {
    const std::string uri = std::string("\"") + kSchemaId + "\"";
    const rebound::dsl::LoadResult loaded =
        rebound::dsl::load_text(policy_json(uri), "fetch.json", rebound::dsl::Syntax::Json);
    CHECK(loaded.diagnostics.empty());
    REQUIRE(loaded.policy_set);
    CHECK(loaded.policy_set->service() == "fetcher");
    CHECK(loaded.policy_set->find("fetch")->max_attempts() == 3);
}

TEST_CASE("$schema must be one value, and is the only key with a dollar", "[json]") {
    const rebound::dsl::LoadResult list = rebound::dsl::load_text(
        policy_json("[\"a\", \"b\"]"), "list.json", rebound::dsl::Syntax::Json);
    REQUIRE(list.diagnostics.size() == 1);
    CHECK(list.diagnostics[0].code == rebound::dsl::DiagnosticCode::WrongType);
    CHECK(list.diagnostics[0].position.line == 2);
    CHECK_FALSE(list.policy_set);

    std::string other = policy_json("\"x\"");
    other.replace(other.find("$schema"), 7, "$comment");
    const rebound::dsl::LoadResult unknown =
        rebound::dsl::load_text(other, "unknown.json", rebound::dsl::Syntax::Json);
    REQUIRE_FALSE(unknown.diagnostics.empty());
    CHECK(unknown.diagnostics[0].code == rebound::dsl::DiagnosticCode::UnknownKey);
}

TEST_CASE("the policy schema has an $id and allows $schema", "[json]") {
    std::ifstream file(REBOUND_POLICY_SCHEMA);
    REQUIRE(file);
    const nlohmann::json schema = nlohmann::json::parse(file);
    CHECK(schema.at("$id") == kSchemaId);
    CHECK(schema.at("properties").at("$schema").at("type") == "string");
    CHECK(schema.at("additionalProperties") == false);
}
