#include <catch2/catch.hpp>

#include <set>

#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/syntax.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"

using namespace std::chrono_literals;
using rebound::Duration;
using rebound::dsl::parse_duration;

namespace {

Duration duration(std::string_view text) {
    std::string error;
    const auto value = parse_duration(text, error);
    INFO(text << ": " << error);
    REQUIRE(value.has_value());
    return *value;
}

std::string duration_error(std::string_view text) {
    std::string error;
    const auto value = parse_duration(text, error);
    REQUIRE_FALSE(value.has_value());
    return error;
}

}  // namespace

TEST_CASE("durations are read exactly in every unit", "[syntax]") {
    CHECK(duration("250us") == 250us);
    CHECK(duration("50ms") == 50ms);
    CHECK(duration("1.5s") == 1500ms);
    CHECK(duration("0.1s") == 100ms);
    CHECK(duration("2m") == 2min);
    CHECK(duration("1h") == 1h);
    CHECK(duration("0ms") == 0ms);
    CHECK(duration("1.001ms") == 1001us);
    CHECK(duration("720h") == std::chrono::hours(720));
}

TEST_CASE("bad durations are refused with a sentence a user understands", "[syntax]") {
    CHECK(duration_error("5 seconds") == "expected a duration such as 250ms, got '5 seconds'");
    CHECK(duration_error("500") ==
          "duration '500' needs a unit: us, ms, s, m or h (such as 500ms)");
    CHECK(duration_error("5sec") == "unknown duration unit in '5sec': use us, ms, s, m or h");
    CHECK(duration_error("-5ms") == "durations must not be negative, got '-5ms'");
    CHECK(duration_error("1.5us") == "duration '1.5us' is finer than a microsecond");
    CHECK(duration_error("") == "expected a duration such as 250ms, got an empty value");
    CHECK(duration_error(".5s") == "expected a duration such as 250ms, got '.5s'");
    CHECK(duration_error("1..5s") == "expected a duration such as 250ms, got '1..5s'");
    CHECK(duration_error("5 ms").find("write 5ms") != std::string::npos);
    CHECK(duration_error("99999999999999999999h").find("too large") != std::string::npos);
    CHECK(duration_error("9999999999h").find("too large") != std::string::npos);
}

TEST_CASE("syntax is chosen by file extension", "[syntax]") {
    using rebound::dsl::Syntax;
    CHECK(rebound::dsl::syntax_for_path("a/b.yaml") == Syntax::Yaml);
    CHECK(rebound::dsl::syntax_for_path("b.yml") == Syntax::Yaml);
    CHECK(rebound::dsl::syntax_for_path("b.json") == Syntax::Json);
    CHECK(rebound::dsl::syntax_for_path("b.rebound") == Syntax::Text);
    CHECK_FALSE(rebound::dsl::syntax_for_path("b.toml").has_value());
}

TEST_CASE("did-you-mean picks a close word or nothing", "[syntax]") {
    using rebound::dsl::closest_match;
    CHECK(closest_match("max_atempts", {"max_attempts", "max_retries", "deadline"}) ==
          "max_attempts");
    CHECK(closest_match("interactiv", {"interactive", "background"}) == "interactive");
    CHECK(closest_match("fulll", rebound::dsl::bare_jitter_words()) == "full");
    CHECK(closest_match("zzzzzz", {"max_attempts", "deadline"}).empty());
    CHECK(closest_match("x", {}).empty());
}

TEST_CASE("a diagnostic prints with its position, source line and caret", "[syntax]") {
    rebound::dsl::Diagnostic d;
    d.code = rebound::dsl::DiagnosticCode::InvalidDuration;
    d.message = "expected a duration such as 250ms after 'fixed'";
    d.file = "svc.rebound";
    d.position = {2, 17};
    d.suggestion = "did you mean '500ms'?";
    const std::string source = "policy p {\n  backoff fixed 500\n}\n";
    CHECK(rebound::dsl::format_diagnostic(d, source) ==
          "svc.rebound:2:17: error: expected a duration such as 250ms after 'fixed' "
          "[RB007 invalid-duration]\n"
          "      backoff fixed 500\n"
          "                    ^\n"
          "    did you mean '500ms'?");
    CHECK(rebound::dsl::format_diagnostic(d) ==
          "svc.rebound:2:17: error: expected a duration such as 250ms after 'fixed' "
          "[RB007 invalid-duration]\n    did you mean '500ms'?");
}

TEST_CASE("every diagnostic code has a distinct id, rule name and summary", "[syntax]") {
    std::set<std::string_view> ids;
    std::set<std::string_view> rules;
    for (const auto code : rebound::dsl::all_codes()) {
        CHECK(ids.insert(rebound::dsl::code_id(code)).second);
        CHECK(rules.insert(rebound::dsl::rule_name(code)).second);
        CHECK_FALSE(rebound::dsl::code_summary(code).empty());
    }
    CHECK(ids.size() == 20);
}

TEST_CASE("a duration with a space before its unit says what to write", "[syntax]") {
    CHECK(duration_error("500 ms") ==
          "a duration has no space before its unit: write 500ms, not "
          "'500 ms'");
    CHECK(duration_error("1.5\ts") ==
          "a duration has no space before its unit: write 1.5s, not "
          "'1.5\ts'");
    CHECK(duration_error("500 apples").starts_with("expected a duration such as 250ms"));
    CHECK(duration_error("1.5") ==
          "duration '1.5' needs a unit: us, ms, s, m or h (such as 1.5ms)");
}
