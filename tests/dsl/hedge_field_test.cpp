// The `hedge` field (docs/hedging.md) in YAML, JSON and the text DSL: what loads, every value
// rule and conflict with the position of the value at fault, and inheritance as one value.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "rebound/dsl/emit.hpp"
#include "rebound/dsl/load.hpp"

using rebound::dsl::Diagnostic;
using rebound::dsl::DiagnosticCode;
using rebound::dsl::LoadResult;
using rebound::dsl::SourcePosition;
using rebound::dsl::Syntax;
using namespace std::chrono_literals;

namespace {

LoadResult yaml(const std::string& policies) {
    return rebound::dsl::load_text("rebound: 1\nservice: s\npolicies:\n" + policies, "s.yaml",
                                   Syntax::Yaml);
}

LoadResult dsl(const std::string& policies) {
    return rebound::dsl::load_text("rebound 1\nservice s\n" + policies, "s.rebound", Syntax::Text);
}

std::string describe(const LoadResult& result) {
    std::string text;
    for (const Diagnostic& d : result.diagnostics) {
        text += rebound::dsl::format_diagnostic(d) + "\n";
    }
    return text;
}

// The load has exactly one error: `code` at line:column, its message holding `words`.
void require_one_error(const LoadResult& result, DiagnosticCode code, std::uint32_t line,
                       std::uint32_t column, const std::string& words) {
    INFO(describe(result));
    REQUIRE(result.diagnostics.size() == 1);
    const Diagnostic& d = result.diagnostics.front();
    CHECK(d.code == code);
    CHECK(d.position == SourcePosition{line, column});
    CHECK_THAT(d.message + " " + d.suggestion, Catch::Contains(words));
    CHECK(result.policy_set == nullptr);
}

const rebound::PolicySpec& spec_of(const LoadResult& result, const std::string& name) {
    INFO(describe(result));
    REQUIRE(result.policy_set != nullptr);
    const auto policy = result.policy_set->find(name);
    REQUIRE(policy != nullptr);
    return policy->spec();
}

}  // namespace

TEST_CASE("hedge: a fixed delay with every setting, in YAML and the DSL", "[hedge]") {
    const LoadResult from_yaml = yaml(
        "  p:\n    max_attempts: 3\n    hedge:\n      delay: 20ms\n      max_extra_load: 5%\n"
        "      burst: 7\n      on_failure: wait\n");
    const LoadResult from_dsl =
        dsl("policy p {\n  attempts 3\n  hedge after 20ms extra 5% burst 7 on failure wait\n}\n");
    for (const LoadResult* result : {&from_yaml, &from_dsl}) {
        const rebound::PolicySpec& spec = spec_of(*result, "p");
        REQUIRE(spec.hedge);
        CHECK(spec.hedge->fixed_delay == rebound::Duration(20ms));
        CHECK_FALSE(spec.hedge->learned);
        CHECK(spec.hedge->max_extra_load == 0.05);
        CHECK(spec.hedge->burst == 7);
        CHECK(spec.hedge->on_failure == rebound::HedgeOnFailure::Wait);
        CHECK_FALSE(spec.hedge->window);
    }
    CHECK(spec_of(from_yaml, "p") == spec_of(from_dsl, "p"));
}

TEST_CASE("hedge: a learned delay, a quantile as a percentage or a number", "[hedge]") {
    const LoadResult percent = yaml(
        "  p:\n    max_attempts: 2\n    hedge:\n      delay: { quantile: 99.9%, max: 250ms }\n"
        "      window: 1m\n      warmup: 50\n");
    const LoadResult number = yaml(
        "  p:\n    max_attempts: 2\n    hedge:\n      delay: { quantile: 0.999, max: 250ms }\n"
        "      window: 1m\n      warmup: 50\n");
    const LoadResult text = dsl(
        "policy p {\n  attempts 2\n  hedge after p99.9 within 0ms..250ms window 1m warmup 50\n}\n");
    for (const LoadResult* result : {&percent, &number, &text}) {
        const rebound::PolicySpec& spec = spec_of(*result, "p");
        REQUIRE(spec.hedge);
        REQUIRE(spec.hedge->learned);
        CHECK(spec.hedge->learned->quantile == 0.999);
        CHECK(spec.hedge->learned->min == rebound::Duration(0));
        CHECK(spec.hedge->learned->max == rebound::Duration(250ms));
        CHECK(spec.hedge->window == rebound::Duration(1min));
        CHECK(spec.hedge->warmup == 50);
    }
}

TEST_CASE("hedge: each value rule is reported at the value", "[hedge]") {
    // Line 6 is `    hedge:`; its keys are on line 7 and 8.
    const std::string head = "  p:\n    max_attempts: 2\n    hedge:\n";
    const std::string fixed = head + "      delay: 20ms\n";
    const std::string learned = head + "      delay: { quantile: 95%, max: 5ms }\n";
    require_one_error(yaml(head + "      delay: 0ms\n"), DiagnosticCode::OutOfRange, 7, 14,
                      "greater than 0");
    require_one_error(yaml(head + "      delay: { quantile: 100%, max: 5ms }\n"),
                      DiagnosticCode::OutOfRange, 7, 26, "quantile");
    require_one_error(yaml(head + "      delay: { quantile: 95%, min: 5ms, max: 5ms }\n"),
                      DiagnosticCode::InconsistentValues, 7, 46, "above its min");
    require_one_error(yaml(head + "      delay: { quantile: 95% }\n"), DiagnosticCode::MissingField,
                      7, 14, "needs 'max'");
    require_one_error(yaml(head + "      burst: 10\n"), DiagnosticCode::InvalidValue, 7, 7,
                      "needs a delay");
    require_one_error(yaml(fixed + "      max_extra_load: 0%\n"), DiagnosticCode::OutOfRange, 8, 23,
                      "max_extra_load");
    require_one_error(yaml(fixed + "      max_extra_load: 1.5\n"), DiagnosticCode::OutOfRange, 8,
                      23, "got 150%");
    require_one_error(yaml(fixed + "      burst: 1001\n"), DiagnosticCode::OutOfRange, 8, 14,
                      "burst must be between 1 and 1000");
    require_one_error(yaml(fixed + "      on_failure: later\n"), DiagnosticCode::UnknownValue, 8,
                      19, "later");
    require_one_error(yaml(fixed + "      window: 30s\n"), DiagnosticCode::ConflictingFields, 8, 15,
                      "learned delay only");
    require_one_error(yaml(fixed + "      warmup: 10\n"), DiagnosticCode::ConflictingFields, 8, 15,
                      "learned delay only");
    require_one_error(yaml(learned + "      window: 2h\n"), DiagnosticCode::OutOfRange, 8, 15,
                      "between 1s and 1h");
    require_one_error(yaml(learned + "      warmup: 0\n"), DiagnosticCode::OutOfRange, 8, 15,
                      "warmup must be between 1 and 100000");
    require_one_error(yaml(fixed + "      jitter: full\n"), DiagnosticCode::UnknownKey, 8, 7,
                      "jitter");
}

TEST_CASE("hedge: the DSL's value rules are reported at the value", "[hedge]") {
    const auto policy = [](const std::string& statement) {
        return dsl("policy p {\n  attempts 2\n  " + statement + "\n}\n");
    };
    require_one_error(policy("hedge after p95"), DiagnosticCode::MissingField, 5, 15,
                      "within MIN..MAX");
    require_one_error(policy("hedge after px within 1ms..2ms"), DiagnosticCode::WrongType, 5, 15,
                      "quantile such as p95");
    require_one_error(policy("hedge after p95 within 2ms..1ms"), DiagnosticCode::InconsistentValues,
                      5, 31, "above its min");
    require_one_error(policy("hedge after p95 within 2ms-5ms"), DiagnosticCode::InvalidValue, 5, 26,
                      "2ms..250ms");
    require_one_error(policy("hedge after p95 within 2ms..5 window 30s"),
                      DiagnosticCode::InvalidDuration, 5, 31, "unit");
    require_one_error(policy("hedge after 20ms within 2ms..5ms"), DiagnosticCode::ConflictingFields,
                      5, 27, "learned delay");
    require_one_error(policy("hedge after 20ms window 30s"), DiagnosticCode::ConflictingFields, 5,
                      27, "learned delay only");
    require_one_error(policy("hedge after 20ms extra 150%"), DiagnosticCode::OutOfRange, 5, 26,
                      "max_extra_load");
    require_one_error(policy("hedge after 20ms on failure later"), DiagnosticCode::UnknownValue, 5,
                      31, "later");
    require_one_error(policy("hedge after 20ms burst 5 extra 5%"), DiagnosticCode::SyntaxError, 5,
                      28, "in this order");
    require_one_error(policy("hedge"), DiagnosticCode::SyntaxError, 5, 8, "'after D' or 'none'");
}

TEST_CASE("hedge: a hedging policy has no backoff, jitter, routes or min_attempt_budget",
          "[hedge]") {
    require_one_error(yaml("  p:\n    max_attempts: 2\n    backoff: { type: fixed, delay: 1s }\n"
                           "    hedge: { delay: 20ms }\n"),
                      DiagnosticCode::ConflictingFields, 6, 14, "hedges and has a backoff");
    require_one_error(
        yaml("  p:\n    max_attempts: 2\n    jitter: none\n    hedge: { delay: 20ms }\n"),
        DiagnosticCode::ConflictingFields, 6, 13, "hedges and has a jitter");
    require_one_error(yaml("  p:\n    max_attempts: 2\n    min_attempt_budget: 10ms\n"
                           "    hedge: { delay: 20ms }\n"),
                      DiagnosticCode::ConflictingFields, 6, 25, "min_attempt_budget");
    require_one_error(yaml("  p:\n    max_attempts: 2\n    routes: [{ up_to: 1s, target: r }]\n"
                           "    hedge: { delay: 20ms }\n"),
                      DiagnosticCode::ConflictingFields, 6, 14, "no routes");
    require_one_error(yaml("  p:\n    max_attempts: 11\n    hedge: { delay: 20ms }\n"),
                      DiagnosticCode::OutOfRange, 5, 19, "between 2 and 10 with a hedge");
    require_one_error(yaml("  p:\n    max_attempts: 1\n    hedge: { delay: 20ms }\n"),
                      DiagnosticCode::OutOfRange, 5, 19, "between 2 and 10 with a hedge");
    // A backoff from `defaults` conflicts too, and is reported where it is written.
    const LoadResult from_defaults = rebound::dsl::load_text(
        "rebound: 1\nservice: s\ndefaults:\n  backoff: { type: fixed, delay: 1s }\npolicies:\n"
        "  p:\n    max_attempts: 2\n    hedge: { delay: 20ms }\n",
        "s.yaml", Syntax::Yaml);
    require_one_error(from_defaults, DiagnosticCode::ConflictingFields, 4, 12, "has a backoff");
}

TEST_CASE("hedge: inherited as one value, and `none` drops it", "[hedge]") {
    const std::string file =
        "  base:\n    max_attempts: 3\n    hedge:\n      delay: { quantile: 90%, max: 1s }\n"
        "      warmup: 10\n      burst: 3\n"
        "  child:\n    extends: base\n    hedge: { delay: 15ms }\n"
        "  same:\n    extends: base\n"
        "  retrying:\n    extends: base\n    hedge: none\n"
        "    backoff: { type: fixed, delay: 50ms }\n";
    const LoadResult result = yaml(file);
    const rebound::PolicySpec& child = spec_of(result, "child");
    REQUIRE(child.hedge);
    CHECK(child.hedge->fixed_delay == rebound::Duration(15ms));
    CHECK(child.hedge->burst == rebound::HedgeSettings::kDefaultBurst);  // not the parent's 3
    CHECK_FALSE(child.hedge->warmup);
    CHECK(spec_of(result, "same").hedge == spec_of(result, "base").hedge);
    CHECK_FALSE(spec_of(result, "retrying").hedge);
    CHECK(spec_of(result, "retrying").backoff.type == rebound::BackoffType::Fixed);

    // The DSL says the same, and each syntax converts to the others and back.
    const std::string text = rebound::dsl::emit_text(result.document);
    const LoadResult reread = rebound::dsl::load_text(text, "s.rebound", Syntax::Text);
    INFO(text);
    for (const char* name : {"base", "child", "same", "retrying"}) {
        CHECK(spec_of(reread, name) == spec_of(result, name));
    }
    const std::string json = rebound::dsl::emit_json(result.document);
    const LoadResult from_json = rebound::dsl::load_text(json, "s.json", Syntax::Json);
    for (const char* name : {"base", "child", "same", "retrying"}) {
        CHECK(spec_of(from_json, name) == spec_of(result, name));
    }
}
