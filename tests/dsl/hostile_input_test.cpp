// Input the format does not have is refused with a diagnostic, never ignored: YAML tags, and a
// '+' before a number, the same in YAML and in the DSL.
#include <catch2/catch.hpp>

#include <string>

#include "rebound/dsl/load.hpp"

using rebound::dsl::Diagnostic;
using rebound::dsl::DiagnosticCode;
using rebound::dsl::load_text;
using rebound::dsl::LoadResult;
using rebound::dsl::Syntax;

namespace {

const Diagnostic& only_error(const LoadResult& result) {
    INFO((result.diagnostics.empty() ? std::string("no diagnostic")
                                     : result.diagnostics.front().message));
    REQUIRE(result.diagnostics.size() == 1);
    return result.diagnostics.front();
}

LoadResult yaml_policy(const std::string& fields) {
    return load_text("rebound: 1\nservice: s\npolicies:\n  p:\n" + fields, "s.yaml", Syntax::Yaml);
}

}  // namespace

TEST_CASE("YAML tags are refused where they are written", "[hostile][yaml]") {
    const LoadResult binary = yaml_policy("    max_attempts: !!binary aGVsbG8=\n");
    CHECK(only_error(binary).code == DiagnosticCode::WrongType);
    CHECK(only_error(binary).message == "YAML tags are not supported, got '!!binary'");
    CHECK(only_error(binary).position.line == 5);
    CHECK(only_error(binary).position.column == 19);

    const LoadResult custom = yaml_policy("    retry_on: [deadlock, !custom transient]\n");
    CHECK(only_error(custom).message == "YAML tags are not supported, got '!custom'");
    CHECK(only_error(custom).position.column == 26);

    const LoadResult on_map = yaml_policy("    backoff: !thing {type: fixed, delay: 1s}\n");
    CHECK(only_error(on_map).message == "YAML tags are not supported, got '!thing'");

    const LoadResult root =
        load_text("--- !app\nrebound: 1\nservice: s\npolicies: {p: {}}\n", "s.yaml", Syntax::Yaml);
    CHECK(only_error(root).message == "YAML tags are not supported, got '!app'");

    // !!str is how YAML says "text" and stays allowed (a quoted value, as documented).
    CHECK(yaml_policy("    max_attempts: 3\nhandlers:\n  !!str H: p\n").policy_set != nullptr);
}

TEST_CASE("a number with a '+' sign is the same error in YAML and in the DSL", "[hostile]") {
    const LoadResult yaml = yaml_policy("    max_attempts: +3\n");
    const LoadResult dsl = load_text("rebound 1\nservice s\npolicy p {\n  attempts +3\n}\n",
                                     "s.rebound", Syntax::Text);
    CHECK(only_error(yaml).code == DiagnosticCode::WrongType);
    CHECK(only_error(dsl).code == DiagnosticCode::WrongType);
    CHECK(only_error(yaml).message == "'max_attempts' must be a whole number, got '+3'");
    CHECK(only_error(dsl).message == "'attempts' must be a whole number, got '+3'");

    const LoadResult factor =
        yaml_policy("    backoff: {type: exponential, initial: 50ms, multiplier: +2, max: 1s}\n");
    CHECK(only_error(factor).code == DiagnosticCode::WrongType);
    CHECK(only_error(factor).message.find("got '+2'") != std::string::npos);
    CHECK(only_error(yaml_policy("    deadline: +5000\n")).code == DiagnosticCode::InvalidDuration);
    CHECK(yaml_policy("    max_attempts: 3\n").policy_set != nullptr);
}
