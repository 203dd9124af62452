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

TEST_CASE("encoding problems are named plainly, at the first bad byte, in every syntax",
          "[hostile]") {
    for (const Syntax syntax : {Syntax::Yaml, Syntax::Text}) {
        const std::string header =
            syntax == Syntax::Yaml ? "rebound: 1\nservice: s" : "rebound 1\nservice s";
        const LoadResult nul = load_text(header + std::string("\0\n", 2), "s", syntax);
        CHECK(only_error(nul).code == DiagnosticCode::SyntaxError);
        CHECK(only_error(nul).message == "the file contains a NUL byte: a policy file is text");
        CHECK(only_error(nul).position.line == 2);
        CHECK(only_error(nul).position.column == (syntax == Syntax::Yaml ? 11 : 10));

        const LoadResult latin1 = load_text(header + "\ncaf\xe9\n", "s", syntax);
        CHECK(only_error(latin1).message ==
              "the file is not valid UTF-8: byte 0xe9 here does not belong to a UTF-8 character");
        CHECK(only_error(latin1).position.line == 3);
        CHECK(only_error(latin1).position.column == 4);

        const LoadResult utf16 = load_text(std::string("\xff\xfer\0e\0", 6), "s", syntax);
        CHECK(only_error(utf16).message.find("UTF-16") != std::string::npos);
        CHECK(only_error(utf16).suggestion == "save the file as UTF-8");
    }
}

TEST_CASE("a YAML key over 1024 characters and a multiplier just over 100 say what is wrong",
          "[hostile]") {
    const LoadResult long_key =
        load_text("rebound: 1\nservice: s\npolicies:\n  " + std::string(1100, 'k') + ": {}\n",
                  "s.yaml", Syntax::Yaml);
    CHECK(only_error(long_key).message ==
          "invalid YAML: this key is longer than 1024 characters, the most YAML allows for a key "
          "(and names are at most 256 bytes)");
    CHECK(only_error(long_key).position.line == 4);
    CHECK(only_error(long_key).position.column == 3);

    const LoadResult multiplier = yaml_policy(
        "    backoff: {type: exponential, initial: 1ms, multiplier: 100.0001, max: 1s}\n");
    CHECK(only_error(multiplier).message ==
          "multiplier must be greater than 1.0 and at most 100, got 100.0001");
}
