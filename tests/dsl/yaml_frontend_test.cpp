// The YAML and JSON front end: what parse_yaml puts in the Document, where, and what it reports.
// Semantic rules (ranges, references) are the validator's and are tested in compile_test.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "document_testing.hpp"
#include "rebound/dsl/parse.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"

using namespace std::chrono_literals;
using rebound::BackoffType;
using rebound::Duration;
using rebound::ErrorCategory;
using rebound::JitterType;
using rebound::Matcher;
using rebound::Vendor;
using rebound::dsl::Diagnostic;
using rebound::dsl::DiagnosticCode;
using rebound::dsl::Document;
using rebound::dsl::HandlerNode;
using rebound::dsl::parse_yaml;
using rebound::dsl::ParseResult;
using rebound::dsl::PolicyFields;
using rebound::dsl::PolicyNode;
using rebound::dsl::Severity;
using rebound::dsl::SourcePosition;
using rebound::dsl::testing::is_version_2_vector;

namespace {

std::filesystem::path conformance_dir() {
    return std::filesystem::path(REBOUND_SPEC_DIR) / "conformance";
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

ParseResult parse(const std::string& text) {
    return parse_yaml(text, "svc.yaml");
}

SourcePosition at(std::uint32_t line, std::uint32_t column) {
    return {line, column};
}

// Every diagnostic names the file, has a known position, is an error, and speaks the user's
// words (nothing of yaml-cpp).
void check_well_formed(const ParseResult& result, const std::string& file = "svc.yaml") {
    for (const Diagnostic& d : result.diagnostics) {
        INFO(rebound::dsl::format_diagnostic(d));
        CHECK(d.file == file);
        CHECK(d.position.known());
        CHECK(d.position.column >= 1);
        CHECK(d.severity == Severity::Error);
        CHECK_FALSE(d.message.empty());
        CHECK(d.message.find("yaml-cpp") == std::string::npos);
    }
    CHECK(result.document.file == file);
}

// The single diagnostic of `text`, which must have `code`.
Diagnostic only_diagnostic(const std::string& text, DiagnosticCode code) {
    const ParseResult result = parse(text);
    check_well_formed(result);
    for (const Diagnostic& d : result.diagnostics) {
        UNSCOPED_INFO(rebound::dsl::format_diagnostic(d));
    }
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.diagnostics.front().code == code);
    return result.diagnostics.front();
}

Document clean_document(const std::string& text) {
    const ParseResult result = parse(text);
    for (const Diagnostic& d : result.diagnostics) {
        UNSCOPED_INFO(rebound::dsl::format_diagnostic(d));
    }
    REQUIRE(result.diagnostics.empty());
    return result.document;
}

const PolicyNode& policy(const Document& document, std::string_view name) {
    const auto found = std::find_if(document.policies.begin(), document.policies.end(),
                                    [&](const PolicyNode& p) { return p.name.value == name; });
    REQUIRE(found != document.policies.end());
    return *found;
}

// The fields of the only policy of a file made of a header and `body` (indented by 4).
PolicyFields fields_of(const std::string& body) {
    const Document document = clean_document("rebound: 1\nservice: s\npolicies:\n  p:\n" + body);
    REQUIRE(document.policies.size() == 1);
    return document.policies.front().fields;
}

// The single diagnostic of a policy `body` (starts on line 5).
Diagnostic policy_diagnostic(const std::string& body, DiagnosticCode code) {
    return only_diagnostic("rebound: 1\nservice: s\npolicies:\n  p:\n" + body, code);
}

std::vector<Matcher> matchers_of(const PolicyFields& fields) {
    REQUIRE(fields.retry_on.has_value());
    std::vector<Matcher> matchers;
    for (const auto& item : fields.retry_on->items) {
        matchers.push_back(item.value);
    }
    return matchers;
}

// The numbers of the JSON array `key` in an expect file, or empty.
std::vector<std::uint32_t> numbers_after(const std::string& json, const std::string& key) {
    const nlohmann::json document = nlohmann::json::parse(json);
    std::vector<std::uint32_t> numbers;
    if (document.contains(key)) {
        for (const nlohmann::json& item : document.at(key)) {
            numbers.push_back(item.get<std::uint32_t>());
        }
    }
    return numbers;
}

std::vector<std::string> strings_after(const std::string& json, const std::string& key) {
    const nlohmann::json document = nlohmann::json::parse(json);
    std::vector<std::string> strings;
    if (document.contains(key)) {
        for (const nlohmann::json& item : document.at(key)) {
            strings.push_back(item.get<std::string>());
        }
    }
    return strings;
}

}  // namespace

// ---- Conformance vectors ------------------------------------------------------------------------

TEST_CASE("every valid conformance file parses without diagnostics", "[yaml]") {
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(conformance_dir())) {
        if (entry.path().extension() != ".yaml" || is_version_2_vector(entry.path())) {
            continue;
        }
        INFO(entry.path());
        const std::string file = entry.path().filename().string();
        const ParseResult result = parse_yaml(read_file(entry.path()), file);
        check_well_formed(result, file);
        CHECK(result.diagnostics.empty());
        CHECK(result.document.version->value == 1);
        CHECK(result.document.service.has_value());
        CHECK_FALSE(result.document.policies.empty());
        ++files;
    }
    CHECK(files >= 5);
}

TEST_CASE("01-fixed: retries, bare millisecond delay, no jitter", "[yaml]") {
    const Document document = clean_document(read_file(conformance_dir() / "01-fixed.yaml"));
    CHECK(document.version->value == 1);
    CHECK(document.version->position == at(2, 10));
    CHECK(document.service->value == "outbox");
    CHECK(document.has_policies_section);
    CHECK(document.policies_position == at(4, 1));
    const PolicyNode& fixed = policy(document, "fixed");
    CHECK(fixed.position == at(5, 3));
    CHECK(fixed.fields.count(rebound::PolicyField::MaxRetries)->value == 5);
    CHECK(fixed.fields.count(rebound::PolicyField::MaxRetries)->position == at(6, 18));
    CHECK_FALSE(fixed.fields.count(rebound::PolicyField::MaxAttempts).has_value());
    REQUIRE(fixed.fields.backoff.has_value());
    CHECK(fixed.fields.backoff->type.value == BackoffType::Fixed);
    CHECK(fixed.fields.backoff->delay->value == 5s);
    CHECK(fixed.fields.backoff->delay->position == at(7, 36));
    CHECK(fixed.fields.backoff->position == at(7, 14));
    CHECK(fixed.fields.jitter->type.value == JitterType::None);
    CHECK(fixed.fields.jitter->type.position == at(8, 13));
    CHECK_FALSE(document.default_policy.has_value());
    CHECK_FALSE(document.defaults.has_value());
}

TEST_CASE("02-linear: linear backoff, error and http matchers, default", "[yaml]") {
    const Document document = clean_document(read_file(conformance_dir() / "02-linear.yaml"));
    const PolicyFields& linear = policy(document, "linear").fields;
    CHECK(linear.backoff->type.value == BackoffType::Linear);
    CHECK(linear.backoff->initial->value == 2s);
    CHECK(linear.backoff->increment->value == 2s);
    CHECK(linear.backoff->max->value == 60s);
    CHECK(matchers_of(linear) ==
          std::vector<Matcher>{Matcher::error_type("io.timeout"), Matcher::http_class(5)});
    CHECK(linear.retry_on->position == at(8, 15));
    CHECK(linear.retry_on->items[1].position == at(8, 39));
    REQUIRE(linear.never_retry_on->items.size() == 1);
    CHECK(linear.never_retry_on->items[0].value == Matcher::error_type("app.validation"));
    CHECK(document.default_policy->value == "linear");
    CHECK(document.default_policy->position == at(10, 10));
}

TEST_CASE("03: bare integer jitter is bounded by that many milliseconds", "[yaml]") {
    const Document document =
        clean_document(read_file(conformance_dir() / "03-exponential-bounded-jitter.yaml"));
    const PolicyFields& fields = policy(document, "exponential").fields;
    CHECK(fields.count(rebound::PolicyField::MaxRetries)->value == 7);
    CHECK(fields.backoff->type.value == BackoffType::Exponential);
    CHECK(fields.backoff->multiplier->value == 2.0);
    CHECK(fields.backoff->max->value == 60s);
    REQUIRE(fields.jitter.has_value());
    CHECK(fields.jitter->type.value == JitterType::Bounded);
    CHECK(fields.jitter->amount->value == 1s);
    CHECK(fields.jitter->amount->position == at(7, 13));
    CHECK(matchers_of(fields) == std::vector<Matcher>{Matcher::transient()});
}

TEST_CASE("04-tiers: policies in order, extends, matchers, budget, routes, handlers", "[yaml]") {
    const Document document = clean_document(read_file(conformance_dir() / "04-tiers.yaml"));
    CHECK(document.service->value == "casework");
    REQUIRE(document.defaults.has_value());
    CHECK(document.defaults->position == at(4, 1));
    CHECK(document.defaults->fields.jitter->type.value == JitterType::Full);
    CHECK(document.defaults->fields.jitter->type.position == at(5, 11));

    REQUIRE(document.policies.size() == 3);
    CHECK(document.policies[0].name.value == "interactive");
    CHECK(document.policies[1].name.value == "background");
    CHECK(document.policies[2].name.value == "outbox_publish");
    CHECK(document.policies[0].name.position == at(7, 3));
    CHECK(document.policies[2].position == at(23, 3));

    const PolicyFields& interactive = document.policies[0].fields;
    CHECK_FALSE(interactive.text(rebound::PolicyField::Extends).has_value());
    CHECK(interactive.count(rebound::PolicyField::MaxAttempts)->value == 3);
    CHECK(interactive.count(rebound::PolicyField::MaxAttempts)->position == at(8, 19));
    CHECK(interactive.backoff->type.value == BackoffType::Exponential);
    CHECK(interactive.backoff->type.position == at(9, 22));
    CHECK(interactive.backoff->initial->value == 50ms);
    CHECK(interactive.backoff->multiplier->value == 2.0);
    CHECK(interactive.backoff->max->value == 200ms);
    CHECK(interactive.jitter->type.value == JitterType::Equal);
    CHECK(interactive.duration(rebound::PolicyField::Deadline)->value == 3s);
    CHECK(interactive.duration(rebound::PolicyField::Deadline)->position == at(11, 15));
    CHECK(interactive.duration(rebound::PolicyField::MinAttemptBudget)->value == 100ms);
    CHECK(interactive.duration(rebound::PolicyField::AttemptTimeout)->value == 1s);
    CHECK(matchers_of(interactive) ==
          std::vector<Matcher>{Matcher::of_category(ErrorCategory::Deadlock),
                               Matcher::of_category(ErrorCategory::SerializationFailure)});
    REQUIRE(interactive.never_retry_on->items.size() == 1);
    CHECK(interactive.never_retry_on->items[0].value == Matcher::sqlstate_class("23"));
    CHECK(interactive.never_retry_on->items[0].position == at(15, 22));

    const PolicyFields& background = document.policies[1].fields;
    CHECK(background.text(rebound::PolicyField::Extends)->value == "interactive");
    CHECK(background.text(rebound::PolicyField::Extends)->position == at(17, 14));
    CHECK(background.count(rebound::PolicyField::MaxAttempts)->value == 5);
    CHECK_FALSE(background.backoff->multiplier.has_value());
    CHECK(background.duration(rebound::PolicyField::Deadline)->value == 2min);
    CHECK(matchers_of(background) == std::vector<Matcher>{Matcher::transient(),
                                                          Matcher::sqlstate("55P03"),
                                                          Matcher::native(Vendor::MySql, 1205)});
    CHECK(background.text(rebound::PolicyField::OnExhausted)->value == "dead_letter");
    CHECK(background.text(rebound::PolicyField::OnExhausted)->position == at(22, 19));
    CHECK_FALSE(background.jitter.has_value());

    const PolicyFields& outbox = document.policies[2].fields;
    CHECK(outbox.backoff->multiplier->value == 3.0);
    CHECK(outbox.backoff->max->value == 1min);
    REQUIRE(outbox.budget.has_value());
    CHECK(outbox.budget->max_tokens->value == 100);
    CHECK(outbox.budget->token_ratio->value == Approx(0.1));
    CHECK(outbox.budget->position == at(26, 13));
    REQUIRE(outbox.routes.has_value());
    REQUIRE(outbox.routes->items.size() == 2);
    CHECK(outbox.routes->position == at(28, 7));
    CHECK(outbox.routes->items[0].position == at(28, 9));
    CHECK(outbox.routes->items[0].up_to->value == 10s);
    CHECK(outbox.routes->items[0].target->value == "casework.retry.10s");
    CHECK(outbox.routes->items[1].up_to->value == 1min);
    CHECK(outbox.routes->items[1].target->value == "casework.retry.1m");
    CHECK(matchers_of(outbox) ==
          std::vector<Matcher>{Matcher::transient(), Matcher::http_status(503)});

    REQUIRE(document.handlers.size() == 4);
    CHECK(document.handlers[0].key.value == "ApproveCase");
    CHECK(document.handlers[0].key.position == at(32, 3));
    CHECK(document.handlers[0].policy.value == "interactive");
    CHECK(document.handlers[0].policy.position == at(32, 16));
    CHECK_FALSE(document.handlers[0].idempotent.has_value());
    CHECK(document.handlers[1].key.value == "RemoveReviewer");
    CHECK(document.handlers[1].policy.value == "interactive");
    CHECK(document.handlers[1].idempotent->value);
    CHECK(document.handlers[2].key.value == "jobs.*");
    CHECK(document.handlers[2].policy.value == "background");
    CHECK(document.handlers[3].key.value == "jobs.outbox.*");
    CHECK(document.handlers[3].policy.value == "outbox_publish");
    CHECK(document.default_policy->value == "interactive");
    CHECK(document.default_policy->position == at(36, 10));
}

TEST_CASE("05-deadline: fractional seconds and minimum attempt budget", "[yaml]") {
    const Document document = clean_document(read_file(conformance_dir() / "05-deadline.yaml"));
    const PolicyFields& fields = policy(document, "bounded_by_deadline").fields;
    CHECK(fields.count(rebound::PolicyField::MaxAttempts)->value == 6);
    CHECK(fields.duration(rebound::PolicyField::Deadline)->value == 3500ms);
    CHECK(fields.duration(rebound::PolicyField::MinAttemptBudget)->value == 500ms);
    CHECK(fields.backoff->delay->value == 1s);
}

TEST_CASE("invalid conformance files: shape errors here, semantic values placed for the validator",
          "[yaml]") {
    // Files whose problem is the front end's to report.
    const std::vector<std::string> front_end_errors{"bad-duration.yaml", "duplicate-key.yaml",
                                                    "unknown-key.yaml"};
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(conformance_dir() / "invalid")) {
        if (entry.path().extension() != ".yaml") {
            continue;
        }
        const std::string name = entry.path().filename().string();
        INFO(name);
        const std::string expect = read_file(entry.path().string() + ".expect.json");
        std::vector<std::uint32_t> lines = numbers_after(expect, "error_lines");
        const std::vector<std::uint32_t> any_of = numbers_after(expect, "error_lines_any_of");
        const std::vector<std::string> contains = strings_after(expect, "message_contains");
        const ParseResult result = parse_yaml(read_file(entry.path()), name);
        check_well_formed(result, name);
        ++files;
        if (std::find(front_end_errors.begin(), front_end_errors.end(), name) ==
            front_end_errors.end()) {
            // The validator reports it; the front end must read the file cleanly.
            CHECK(result.diagnostics.empty());
            continue;
        }
        REQUIRE_FALSE(result.diagnostics.empty());
        for (const std::uint32_t line : lines) {
            const auto on_line =
                std::find_if(result.diagnostics.begin(), result.diagnostics.end(),
                             [&](const Diagnostic& d) { return d.position.line == line; });
            REQUIRE(on_line != result.diagnostics.end());
            for (const std::string& text : contains) {
                CHECK((on_line->message + " " + on_line->suggestion).find(text) !=
                      std::string::npos);
            }
        }
        CHECK(any_of.empty());
    }
    CHECK(files >= 9);
}

TEST_CASE("invalid conformance files: the values the validator needs are at the right lines",
          "[yaml]") {
    const auto document_of = [](const std::string& name) {
        const ParseResult result =
            parse_yaml(read_file(conformance_dir() / "invalid" / name), name);
        REQUIRE(result.diagnostics.empty());
        return result.document;
    };
    SECTION("wrong version") {
        const Document document = document_of("wrong-version.yaml");
        CHECK(document.version->value == 2);
        CHECK(document.version->position.line == 1);
    }
    SECTION("attempts and retries") {
        const PolicyFields fields = document_of("attempts-and-retries.yaml").policies[0].fields;
        CHECK(fields.count(rebound::PolicyField::MaxAttempts)->position.line == 5);
        CHECK(fields.count(rebound::PolicyField::MaxRetries)->position.line == 6);
    }
    SECTION("extends cycle") {
        const Document document = document_of("extends-cycle.yaml");
        CHECK(policy(document, "a").fields.text(rebound::PolicyField::Extends)->position.line == 5);
        CHECK(policy(document, "b").fields.text(rebound::PolicyField::Extends)->position.line == 7);
    }
    SECTION("backoff values") {
        CHECK(
            document_of("max-below-initial.yaml").policies[0].fields.backoff->max->position.line ==
            5);
        const auto multiplier =
            document_of("multiplier-too-small.yaml").policies[0].fields.backoff->multiplier;
        CHECK(multiplier->value == 1.0);
        CHECK(multiplier->position.line == 5);
    }
    SECTION("unknown policy") {
        const Document document = document_of("unknown-policy.yaml");
        CHECK(document.handlers[0].policy.value == "interactiv");
        CHECK(document.handlers[0].policy.position == at(7, 16));
    }
}

TEST_CASE("conformance invalid files: exact front-end diagnostics", "[yaml]") {
    const auto diagnostics_of = [](const std::string& name) {
        return parse_yaml(read_file(conformance_dir() / "invalid" / name), name).diagnostics;
    };
    SECTION("duplicate key at the second place, first line in the message") {
        const auto diagnostics = diagnostics_of("duplicate-key.yaml");
        REQUIRE(diagnostics.size() == 1);
        CHECK(diagnostics[0].code == DiagnosticCode::DuplicateKey);
        CHECK(diagnostics[0].position == at(7, 5));
        CHECK(diagnostics[0].message == "duplicate key 'max_attempts' (first given at line 5)");
        CHECK(diagnostics[0].field == "policies.p.max_attempts");
    }
    SECTION("unknown key with a suggestion") {
        const auto diagnostics = diagnostics_of("unknown-key.yaml");
        REQUIRE(diagnostics.size() == 1);
        CHECK(diagnostics[0].code == DiagnosticCode::UnknownKey);
        CHECK(diagnostics[0].position == at(5, 5));
        CHECK(diagnostics[0].message == "unknown key 'max_atempts' in policy 'p'");
        CHECK(diagnostics[0].suggestion == "did you mean 'max_attempts'?");
        CHECK(diagnostics[0].field == "policies.p.max_atempts");
    }
    SECTION("bad duration with parse_duration's sentence") {
        const auto diagnostics = diagnostics_of("bad-duration.yaml");
        REQUIRE(diagnostics.size() == 1);
        CHECK(diagnostics[0].code == DiagnosticCode::InvalidDuration);
        CHECK(diagnostics[0].position == at(7, 14));
        CHECK(diagnostics[0].field == "policies.p.backoff.delay");
        CHECK(diagnostics[0].message.find("5 seconds") != std::string::npos);
    }
}

// ---- Duplicates ---------------------------------------------------------------------------------

TEST_CASE("duplicate keys are reported at every level and the first is kept", "[yaml]") {
    SECTION("top level") {
        const ParseResult result = parse("rebound: 1\nservice: a\nservice: b\npolicies: {p: {}}\n");
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].code == DiagnosticCode::DuplicateKey);
        CHECK(result.diagnostics[0].position == at(3, 1));
        CHECK(result.diagnostics[0].message.find("line 2") != std::string::npos);
        CHECK(result.document.service->value == "a");
    }
    SECTION("policy names") {
        const ParseResult result = parse(
            "rebound: 1\nservice: s\npolicies:\n  p:\n    max_attempts: 2\n  p:\n"
            "    max_attempts: 9\n");
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].code == DiagnosticCode::DuplicateKey);
        CHECK(result.diagnostics[0].message == "duplicate policy 'p' (first given at line 4)");
        CHECK(result.diagnostics[0].position == at(6, 3));
        REQUIRE(result.document.policies.size() == 1);
        CHECK(result.document.policies[0].fields.count(rebound::PolicyField::MaxAttempts)->value ==
              2);
    }
    SECTION("handlers") {
        const ParseResult result =
            parse("rebound: 1\nservice: s\npolicies: {p: {}, q: {}}\nhandlers:\n  H: p\n  H: q\n");
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].message == "duplicate handler 'H' (first given at line 5)");
        REQUIRE(result.document.handlers.size() == 1);
        CHECK(result.document.handlers[0].policy.value == "p");
    }
    SECTION("nested mappings") {
        const std::vector<std::pair<std::string, std::string>> cases{
            {"    backoff: { type: fixed, delay: 1s, delay: 2s }\n", "policies.p.backoff.delay"},
            {"    jitter: { type: bounded, amount: 1s, type: full }\n", "policies.p.jitter.type"},
            {"    budget: { max_tokens: 1, max_tokens: 2, token_ratio: 1 }\n",
             "policies.p.budget.max_tokens"},
            {"    routes: [{ up_to: 1s, target: a, target: b }]\n", "policies.p.routes[0].target"},
            {"    retry_on: [{ sqlstate: \"40001\", sqlstate: \"40002\" }]\n",
             "policies.p.retry_on[0].sqlstate"},
        };
        for (const auto& [body, field] : cases) {
            INFO(body);
            const Diagnostic d = policy_diagnostic(body, DiagnosticCode::DuplicateKey);
            CHECK(d.field == field);
            CHECK(d.message.find("(first given at line 5)") != std::string::npos);
        }
    }
    SECTION("handler mapping and defaults") {
        CHECK(only_diagnostic("rebound: 1\nservice: s\npolicies: {p: {}}\nhandlers:\n"
                              "  H: { policy: p, policy: p }\n",
                              DiagnosticCode::DuplicateKey)
                  .field == "handlers.H.policy");
        CHECK(only_diagnostic("rebound: 1\nservice: s\ndefaults:\n  jitter: full\n  jitter: none\n"
                              "policies: {p: {}}\n",
                              DiagnosticCode::DuplicateKey)
                  .position == at(5, 3));
    }
}

// ---- Unknown keys and words ---------------------------------------------------------------------

TEST_CASE("a matcher written as one kind:value word is shown as the mapping it means", "[yaml]") {
    const auto suggestion_for = [](const std::string& word) {
        return policy_diagnostic("    retry_on: [" + word + "]\n", DiagnosticCode::UnknownValue)
            .suggestion;
    };
    CHECK(suggestion_for("grpc:UNAVAILABLE") == "write it as a mapping: { grpc: UNAVAILABLE }");
    CHECK(suggestion_for("http:503") == "write it as a mapping: { http: 503 }");
    CHECK(suggestion_for("sqlstate:40001") == "write it as a mapping: { sqlstate: \"40001\" }");
    CHECK(suggestion_for("native:mysql:1213") ==
          "write it as a mapping: { native: 1213, vendor: mysql }");
    CHECK(suggestion_for("category:deadlock") == "write the category alone: deadlock");
    CHECK(suggestion_for("vendor:mysql").find("expected a category") == 0);
    CHECK(suggestion_for("deadlok") == "did you mean 'deadlock'?");
}

TEST_CASE("unknown keys get a did-you-mean or the list of keys", "[yaml]") {
    SECTION("top level") {
        const Diagnostic d = only_diagnostic("rebound: 1\nservice: s\npolices: {p: {}}\n",
                                             DiagnosticCode::UnknownKey);
        CHECK(d.position == at(3, 1));
        CHECK(d.suggestion == "did you mean 'policies'?");
        CHECK(d.field == "polices");
    }
    SECTION("backoff") {
        const Diagnostic d = policy_diagnostic("    backoff: { type: exponential, multipler: 2 }\n",
                                               DiagnosticCode::UnknownKey);
        CHECK(d.suggestion == "did you mean 'multiplier'?");
        CHECK(d.message == "unknown key 'multipler' in the backoff of policy 'p'");
        CHECK(d.field == "policies.p.backoff.multipler");
    }
    SECTION("matcher") {
        const Diagnostic d = policy_diagnostic("    retry_on: [{ sqlsate: \"40001\" }]\n",
                                               DiagnosticCode::UnknownKey);
        CHECK(d.suggestion == "did you mean 'sqlstate'?");
    }
    SECTION("handler") {
        const Diagnostic d = only_diagnostic(
            "rebound: 1\nservice: s\npolicies: {p: {}}\nhandlers:\n  H: { policy: p, idempotnet: "
            "true }\n",
            DiagnosticCode::UnknownKey);
        CHECK(d.suggestion == "did you mean 'idempotent'?");
        CHECK(d.message == "unknown key 'idempotnet' in handler 'H'");
    }
    SECTION("nothing close: the allowed keys") {
        const Diagnostic d =
            policy_diagnostic("    budget: { zzz: 1 }\n", DiagnosticCode::UnknownKey);
        CHECK(d.suggestion == "expected one of max_tokens, token_ratio");
    }
    SECTION("extends in defaults") {
        const Diagnostic d =
            only_diagnostic("rebound: 1\nservice: s\ndefaults:\n  extends: p\npolicies: {p: {}}\n",
                            DiagnosticCode::UnknownKey);
        CHECK(d.message.find("defaults cannot extend") != std::string::npos);
        CHECK(d.position == at(4, 3));
    }
    SECTION("merge keys") {
        const Diagnostic d =
            policy_diagnostic("    <<: { max_attempts: 2 }\n", DiagnosticCode::UnknownKey);
        CHECK(d.message.find("merge keys") != std::string::npos);
    }
}

TEST_CASE("unknown words get a did-you-mean", "[yaml]") {
    const std::vector<std::tuple<std::string, std::string, std::string>> cases{
        {"    backoff: { type: exponentail }\n", "did you mean 'exponential'?",
         "policies.p.backoff.type"},
        {"    backoff: linaer\n", "did you mean 'linear'?", "policies.p.backoff"},
        {"    jitter: ful\n", "did you mean 'full'?", "policies.p.jitter"},
        {"    jitter: { type: proportinal, factor: 0.2 }\n", "did you mean 'proportional'?",
         "policies.p.jitter.type"},
        {"    on_exhausted: dead_leter\n", "did you mean 'dead_letter'?",
         "policies.p.on_exhausted"},
        {"    retry_on: [deadlok]\n", "did you mean 'deadlock'?", "policies.p.retry_on[0]"},
        {"    retry_on: [transiant]\n", "did you mean 'transient'?", "policies.p.retry_on[0]"},
        {"    retry_on: [{ native: 1213, vendor: mysq }]\n", "did you mean 'mysql'?",
         "policies.p.retry_on[0].vendor"},
    };
    for (const auto& [body, suggestion, field] : cases) {
        INFO(body);
        const Diagnostic d = policy_diagnostic(body, DiagnosticCode::UnknownValue);
        CHECK(d.suggestion == suggestion);
        CHECK(d.field == field);
        CHECK(d.position.line == 5);
    }
    const Diagnostic far =
        policy_diagnostic("    on_exhausted: explode\n", DiagnosticCode::UnknownValue);
    CHECK(far.suggestion == "expected one of fail, dead_letter");
    CHECK(far.message == "unknown on_exhausted action 'explode'");
}

// ---- Types --------------------------------------------------------------------------------------

TEST_CASE("values of the wrong kind are WrongType and left absent", "[yaml]") {
    SECTION("a quoted count is text") {
        const ParseResult result =
            parse("rebound: 1\nservice: s\npolicies:\n  p:\n    max_attempts: \"3\"\n");
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].code == DiagnosticCode::WrongType);
        CHECK(result.diagnostics[0].message.find("whole number") != std::string::npos);
        CHECK(result.diagnostics[0].suggestion == "write 3 without quotes");
        CHECK(result.diagnostics[0].position == at(5, 19));
        CHECK_FALSE(result.document.policies[0]
                        .fields.count(rebound::PolicyField::MaxAttempts)
                        .has_value());
    }
    SECTION("other wrong values") {
        const std::vector<std::string> bodies{
            "    max_attempts: 3.0\n",
            "    max_retries: [1]\n",
            "    max_attempts: three\n",
            "    max_attempts:\n",
            "    backoff: [fixed]\n",
            "    jitter: [full]\n",
            "    retry_on: deadlock\n",
            "    retry_on: { sqlstate: \"40001\" }\n",
            "    retry_on: [[deadlock]]\n",
            "    retry_if: [{ a: b }]\n",
            "    budget: 5\n",
            "    routes: [5s]\n",
            "    backoff: { type: fixed, delay: [1] }\n",
            "    backoff: { type: exponential, multiplier: \"2\" }\n",
            "    extends: { a: b }\n",
            "    retry_on: [{ native: \"1213\", vendor: mysql }]\n",
            "    retry_on: [{ message: [a] }]\n",
        };
        for (const std::string& body : bodies) {
            INFO(body);
            const Diagnostic d = policy_diagnostic(body, DiagnosticCode::WrongType);
            CHECK(d.position.line == 5);
            CHECK(d.field.starts_with("policies.p."));
        }
    }
    SECTION("a list given a scalar suggests the one-item list") {
        const Diagnostic d =
            policy_diagnostic("    retry_on: deadlock\n", DiagnosticCode::WrongType);
        CHECK(d.suggestion == "write [deadlock] for a list of one");
    }
    SECTION("booleans are true or false only") {
        for (const std::string value : {"yes", "on", "1", "\"true\""}) {
            INFO(value);
            only_diagnostic(
                "rebound: 1\nservice: s\npolicies: {p: {}}\nhandlers:\n  H: { policy: p, "
                "idempotent: " +
                    value + " }\n",
                DiagnosticCode::WrongType);
        }
        const Document document = clean_document(
            "rebound: 1\nservice: s\npolicies: {p: {}}\nhandlers:\n  H: { policy: p, idempotent: "
            "False }\n");
        CHECK_FALSE(document.handlers[0].idempotent->value);
    }
    SECTION("version and sections") {
        CHECK(only_diagnostic("rebound: \"1\"\nservice: s\npolicies: {p: {}}\n",
                              DiagnosticCode::WrongType)
                  .position == at(1, 10));
        CHECK(only_diagnostic("rebound: 1.0\nservice: s\npolicies: {p: {}}\n",
                              DiagnosticCode::WrongType)
                  .field == "rebound");
        CHECK(only_diagnostic("rebound: 1\nservice: [a]\npolicies: {p: {}}\n",
                              DiagnosticCode::WrongType)
                  .field == "service");
        const ParseResult listed = parse("rebound: 1\nservice: s\npolicies: [p]\n");
        REQUIRE(listed.diagnostics.size() == 1);
        CHECK(listed.diagnostics[0].code == DiagnosticCode::WrongType);
        CHECK(listed.document.has_policies_section);
        CHECK(only_diagnostic("rebound: 1\nservice: s\npolicies:\n  p: 5\n",
                              DiagnosticCode::WrongType)
                  .position == at(4, 6));
        CHECK(only_diagnostic("rebound: 1\nservice: s\npolicies: {p: {}}\nhandlers: [a]\n",
                              DiagnosticCode::WrongType)
                  .field == "handlers");
        CHECK(only_diagnostic("rebound: 1\nservice: s\npolicies: {p: {}}\nhandlers:\n  H:\n",
                              DiagnosticCode::WrongType)
                  .position == at(5, 3));
    }
    SECTION("a root that is not a mapping") {
        CHECK(only_diagnostic("- rebound\n- 1\n", DiagnosticCode::WrongType).position == at(1, 1));
        CHECK(only_diagnostic("just text\n", DiagnosticCode::WrongType).position == at(1, 1));
    }
}

TEST_CASE("empty sections and empty policies", "[yaml]") {
    const Document document =
        clean_document("rebound: 1\nservice: s\ndefaults:\npolicies:\n  p:\n  q: {}\nhandlers:\n");
    CHECK(document.defaults.has_value());
    REQUIRE(document.policies.size() == 2);
    CHECK(document.policies[0].fields == PolicyFields{});
    CHECK(document.handlers.empty());
    const Document no_policies = clean_document("rebound: 1\nservice: s\npolicies:\n");
    CHECK(no_policies.has_policies_section);
    CHECK(no_policies.policies_position == at(3, 1));
    CHECK(no_policies.policies.empty());
    CHECK_FALSE(clean_document("rebound: 1\nservice: s\n").has_policies_section);
}

// ---- Numbers and durations ----------------------------------------------------------------------

TEST_CASE("counts are plain integers, stored wide", "[yaml]") {
    CHECK(fields_of("    max_attempts: -4\n").count(rebound::PolicyField::MaxAttempts)->value ==
          -4);
    CHECK(
        fields_of("    max_attempts: 1000000\n").count(rebound::PolicyField::MaxAttempts)->value ==
        1000000);
    // Numbers are written without '+', as in the DSL (docs/policy-format.md, Values).
    CHECK(policy_diagnostic("    max_attempts: +7\n", DiagnosticCode::WrongType).message ==
          "'max_attempts' must be a whole number, got '+7'");
    const Diagnostic huge = policy_diagnostic(
        "    max_attempts: 1234567890123456789012345678901234567890\n", DiagnosticCode::OutOfRange);
    CHECK(huge.message.find("too large") != std::string::npos);
    CHECK(policy_diagnostic("    budget: { max_tokens: 99999999999999999999 }\n",
                            DiagnosticCode::OutOfRange)
              .field == "policies.p.budget.max_tokens");
}

TEST_CASE("factors are finite numbers", "[yaml]") {
    CHECK(fields_of("    backoff: { type: exponential, multiplier: 3 }\n")
              .backoff->multiplier->value == 3.0);
    CHECK(fields_of("    backoff: { type: exponential, multiplier: 1.5e0 }\n")
              .backoff->multiplier->value == 1.5);
    CHECK(fields_of("    jitter: { type: proportional, factor: .25 }\n").jitter->factor->value ==
          0.25);
    CHECK(fields_of("    budget: { token_ratio: -1 }\n").budget->token_ratio->value == -1.0);
    for (const std::string value : {".inf", "-.Inf", ".nan", "1e999"}) {
        INFO(value);
        policy_diagnostic("    backoff: { type: exponential, multiplier: " + value + " }\n",
                          DiagnosticCode::OutOfRange);
    }
    policy_diagnostic("    backoff: { type: exponential, multiplier: two }\n",
                      DiagnosticCode::WrongType);
}

TEST_CASE("durations: units, or a bare integer meaning milliseconds", "[yaml]") {
    const auto deadline = [](const std::string& value) {
        return fields_of("    deadline: " + value + "\n")
            .duration(rebound::PolicyField::Deadline)
            ->value;
    };
    CHECK(deadline("5000") == 5s);
    CHECK(deadline("0") == 0s);
    CHECK(deadline("250us") == 250us);
    CHECK(deadline("50ms") == 50ms);
    CHECK(deadline("1.5s") == 1500ms);
    CHECK(deadline("2m") == 2min);
    CHECK(deadline("1h") == 1h);
    CHECK(deadline("\"3s\"") == 3s);
    CHECK(deadline("1000000000000") == Duration{1'000'000'000'000'000});

    const auto error_of = [](const std::string& value) {
        const Diagnostic d =
            policy_diagnostic("    deadline: " + value + "\n", DiagnosticCode::InvalidDuration);
        CHECK(d.position == at(5, 15));
        CHECK(d.field == "policies.p.deadline");
        return d.message;
    };
    CHECK(error_of("1.5") == "a bare number is milliseconds and must be an integer; write 1.5ms");
    CHECK(error_of("1e3").ends_with("write a duration such as 1500ms"));
    CHECK(error_of("-5").find("must not be negative") != std::string::npos);
    CHECK(error_of("-1.5s").find("must not be negative") != std::string::npos);
    CHECK(error_of("5 seconds").find("'5 seconds'") != std::string::npos);
    CHECK(error_of("5sec").find("unit") != std::string::npos);
    CHECK(error_of("\"5000\"").find("needs a unit") != std::string::npos);
    CHECK(error_of("99999999999999999999999").find("too large") != std::string::npos);
    CHECK(error_of("1000000000001").find("too large") != std::string::npos);
    CHECK(error_of("999999999999999h").find("too large") != std::string::npos);
}

// ---- Backoff and jitter -------------------------------------------------------------------------

TEST_CASE("backoff forms", "[yaml]") {
    const PolicyFields none = fields_of("    backoff: none\n");
    CHECK(none.backoff->type.value == BackoffType::None);
    CHECK(none.backoff->position == at(5, 14));
    const PolicyFields block = fields_of(
        "    backoff:\n      type: linear\n      initial: 1s\n      increment: 500ms\n      max: "
        "10s\n");
    CHECK(block.backoff->position == at(6, 7));
    CHECK(block.backoff->type.position == at(6, 13));
    CHECK(block.backoff->increment->value == 500ms);
    CHECK(block.backoff->increment->position == at(8, 18));

    SECTION("a missing type is reported at the backoff and the other fields still checked") {
        const ParseResult result =
            parse("rebound: 1\nservice: s\npolicies:\n  p:\n    backoff: { delay: 5 seconds }\n");
        REQUIRE(result.diagnostics.size() == 2);
        CHECK(result.diagnostics[0].code == DiagnosticCode::InvalidDuration);
        CHECK(result.diagnostics[1].code == DiagnosticCode::MissingField);
        CHECK(result.diagnostics[1].position == at(5, 14));
        CHECK(result.diagnostics[1].field == "policies.p.backoff.type");
        CHECK_FALSE(result.document.policies[0].fields.backoff.has_value());
    }
}

TEST_CASE("jitter forms", "[yaml]") {
    const auto jitter = [](const std::string& value) {
        const PolicyFields fields = fields_of("    jitter: " + value + "\n");
        REQUIRE(fields.jitter.has_value());
        CHECK(fields.jitter->position == at(5, 13));
        return *fields.jitter;
    };
    CHECK(jitter("none").type.value == JitterType::None);
    CHECK(jitter("full").type.value == JitterType::Full);
    CHECK(jitter("equal").type.value == JitterType::Equal);
    CHECK(jitter("decorrelated").type.value == JitterType::Decorrelated);
    CHECK(jitter("1s").type.value == JitterType::Bounded);
    CHECK(jitter("1s").amount->value == 1s);
    CHECK(jitter("250").amount->value == 250ms);
    const auto bounded = jitter("{ type: bounded, amount: 2s }");
    CHECK(bounded.type.value == JitterType::Bounded);
    CHECK(bounded.type.position == at(5, 21));
    CHECK(bounded.amount->value == 2s);
    const auto proportional = jitter("{ type: proportional, factor: 0.2 }");
    CHECK(proportional.type.value == JitterType::Proportional);
    CHECK(proportional.factor->value == Approx(0.2));
    CHECK(jitter("{ type: full }").type.value == JitterType::Full);

    policy_diagnostic("    jitter: 1.5\n", DiagnosticCode::InvalidDuration);
    policy_diagnostic("    jitter: -1s\n", DiagnosticCode::InvalidDuration);
    policy_diagnostic("    jitter: bounded\n", DiagnosticCode::MissingField);
    CHECK(policy_diagnostic("    jitter: { amount: 1s }\n", DiagnosticCode::MissingField).field ==
          "policies.p.jitter.type");
    const Diagnostic far = policy_diagnostic("    jitter: chaotic\n", DiagnosticCode::UnknownValue);
    CHECK(far.suggestion.find("expected one of none, full, equal, decorrelated") == 0);
}

// ---- Matchers, lists, budget, routes ------------------------------------------------------------

TEST_CASE("matchers in every form", "[yaml]") {
    const PolicyFields fields = fields_of(
        "    retry_on:\n"
        "      - deadlock\n"
        "      - transient\n"
        "      - { sqlstate: \"40001\" }\n"
        "      - { sqlstate: 40002 }\n"
        "      - { sqlstate_class: 08 }\n"
        "      - { sqlstate_class: 23 }\n"
        "      - { native: 1213, vendor: mysql }\n"
        "      - { vendor: db2, native: -911 }\n"
        "      - { error: io.timeout }\n"
        "      - { http: 503 }\n"
        "      - { http: 5xx }\n"
        "      - { http: \"4XX\" }\n"
        "      - { message: \"connection reset\" }\n"
        "      - \"lock_timeout\"\n");
    CHECK(matchers_of(fields) == std::vector<Matcher>{
                                     Matcher::of_category(ErrorCategory::Deadlock),
                                     Matcher::transient(),
                                     Matcher::sqlstate("40001"),
                                     Matcher::sqlstate("40002"),
                                     Matcher::sqlstate_class("08"),
                                     Matcher::sqlstate_class("23"),
                                     Matcher::native(Vendor::MySql, 1213),
                                     Matcher::native(Vendor::Db2, -911),
                                     Matcher::error_type("io.timeout"),
                                     Matcher::http_status(503),
                                     Matcher::http_class(5),
                                     Matcher::http_class(4),
                                     Matcher::message("connection reset"),
                                     Matcher::of_category(ErrorCategory::LockTimeout),
                                 });
    CHECK(fields.retry_on->position == at(6, 7));
    CHECK(fields.retry_on->items[0].position == at(6, 9));
    CHECK(fields.retry_on->items[2].position == at(8, 9));

    SECTION("bad matchers are reported and left out of the list") {
        const ParseResult result = parse(
            "rebound: 1\nservice: s\npolicies:\n  p:\n    retry_on: [deadlock, { http: abc }]\n");
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].code == DiagnosticCode::InvalidValue);
        CHECK(result.diagnostics[0].field == "policies.p.retry_on[1].http");
        CHECK(result.document.policies[0].fields.retry_on->items.size() == 1);
    }
    SECTION("shapes that are not one matcher") {
        CHECK(policy_diagnostic("    retry_on: [{ native: 1213 }]\n", DiagnosticCode::MissingField)
                  .field == "policies.p.retry_on[0].vendor");
        CHECK(policy_diagnostic("    retry_on: [{ vendor: mysql }]\n", DiagnosticCode::MissingField)
                  .field == "policies.p.retry_on[0].native");
        policy_diagnostic("    retry_on: [{}]\n", DiagnosticCode::MissingField);
        policy_diagnostic("    retry_on: [{ sqlstate: \"40001\", http: 503 }]\n",
                          DiagnosticCode::ConflictingFields);
        policy_diagnostic("    retry_on: [{ sqlstate: \"40001\", vendor: mysql }]\n",
                          DiagnosticCode::ConflictingFields);
        policy_diagnostic("    never_retry_on: [{ http: 99999999999 }]\n",
                          DiagnosticCode::OutOfRange);
        policy_diagnostic("    never_retry_on: [{ native: 99999999999999999999, vendor: mysql }]\n",
                          DiagnosticCode::OutOfRange);
    }
}

TEST_CASE("retry_if, on_exhausted, budget and routes", "[yaml]") {
    const PolicyFields fields = fields_of(
        "    retry_if: [is_retryable, app.check]\n"
        "    on_exhausted: fail\n"
        "    budget: { max_tokens: 10 }\n"
        "    routes:\n"
        "      - up_to: 1s\n"
        "        target: fast\n"
        "      - { target: slow }\n");
    REQUIRE(fields.retry_if->items.size() == 2);
    CHECK(fields.retry_if->items[1].value == "app.check");
    CHECK(fields.retry_if->items[1].position == at(5, 30));
    CHECK(fields.text(rebound::PolicyField::OnExhausted)->value == "fail");
    CHECK(fields.budget->max_tokens->value == 10);
    CHECK_FALSE(fields.budget->token_ratio.has_value());  // the validator requires it
    REQUIRE(fields.routes->items.size() == 2);
    CHECK(fields.routes->items[0].position == at(9, 9));
    CHECK(fields.routes->items[0].up_to->position == at(9, 16));
    CHECK_FALSE(fields.routes->items[1].up_to.has_value());
    CHECK(fields.routes->items[1].target->value == "slow");
    CHECK(fields_of("    retry_on: []\n").retry_on->items.empty());
}

TEST_CASE("handlers: a policy name or a mapping", "[yaml]") {
    const Diagnostic missing = only_diagnostic(
        "rebound: 1\nservice: s\npolicies: {p: {}}\nhandlers:\n  H: { idempotent: true }\n",
        DiagnosticCode::MissingField);
    CHECK(missing.position == at(5, 6));
    CHECK(missing.field == "handlers.H.policy");
    const ParseResult result = parse(
        "rebound: 1\nservice: s\npolicies: {p: {}}\nhandlers:\n  H: { idempotent: true }\n  G: "
        "p\n");
    REQUIRE(result.document.handlers.size() == 1);
    CHECK(result.document.handlers[0].key.value == "G");
    CHECK(only_diagnostic("rebound: 1\nservice: s\npolicies: {p: {}}\ndefault: [p]\n",
                          DiagnosticCode::WrongType)
              .field == "default");
}

// ---- JSON and YAML features ---------------------------------------------------------------------

TEST_CASE("JSON is read as YAML, with positions", "[yaml]") {
    const std::string json = R"({
  "rebound": 1,
  "service": "outbox",
  "policies": {
    "fixed": {
      "max_retries": 5,
      "backoff": {"type": "fixed", "delay": 5000},
      "jitter": "none",
      "retry_on": ["deadlock", {"sqlstate": "40001"}, {"http": 503}]
    }
  },
  "handlers": {"Send": {"policy": "fixed", "idempotent": true}}
})";
    const ParseResult result = parse_yaml(json, "outbox.json");
    check_well_formed(result, "outbox.json");
    REQUIRE(result.diagnostics.empty());
    const Document& document = result.document;
    CHECK(document.service->value == "outbox");
    const PolicyFields& fields = policy(document, "fixed").fields;
    CHECK(policy(document, "fixed").position == at(5, 5));
    CHECK(fields.count(rebound::PolicyField::MaxRetries)->value == 5);
    CHECK(fields.backoff->delay->value == 5s);
    CHECK(fields.jitter->type.value == JitterType::None);
    CHECK(matchers_of(fields) == std::vector<Matcher>{Matcher::of_category(ErrorCategory::Deadlock),
                                                      Matcher::sqlstate("40001"),
                                                      Matcher::http_status(503)});
    CHECK(document.handlers[0].idempotent->value);

    // The same service in YAML gives the same values.
    const Document yaml = clean_document(read_file(conformance_dir() / "01-fixed.yaml"));
    CHECK(yaml.policies[0].fields.backoff->delay->value == fields.backoff->delay->value);
    CHECK(yaml.policies[0].fields.count(rebound::PolicyField::MaxRetries)->value ==
          fields.count(rebound::PolicyField::MaxRetries)->value);

    SECTION("JSON strings are text: a quoted count is wrong") {
        const ParseResult quoted = parse_yaml(
            R"({"rebound": 1, "service": "s", "policies": {"p": {"max_attempts": "3"}}})",
            "q.json");
        REQUIRE(quoted.diagnostics.size() == 1);
        CHECK(quoted.diagnostics[0].code == DiagnosticCode::WrongType);
        CHECK(quoted.diagnostics[0].file == "q.json");
    }
    SECTION("JSON duplicate keys") {
        const ParseResult duplicate =
            parse_yaml("{\"rebound\": 1,\n \"service\": \"s\",\n \"rebound\": 1}", "d.json");
        REQUIRE(duplicate.diagnostics.size() == 1);
        CHECK(duplicate.diagnostics[0].code == DiagnosticCode::DuplicateKey);
        CHECK(duplicate.diagnostics[0].position == at(3, 2));
    }
}

TEST_CASE("anchors and aliases", "[yaml]") {
    const Document document = clean_document(
        "rebound: 1\nservice: s\npolicies:\n"
        "  a:\n"
        "    backoff: &shared { type: fixed, delay: 1s }\n"
        "    retry_on: &errors [deadlock, { sqlstate: \"40001\" }]\n"
        "  b:\n"
        "    backoff: *shared\n"
        "    retry_on: *errors\n");
    const PolicyFields& a = policy(document, "a").fields;
    const PolicyFields& b = policy(document, "b").fields;
    CHECK(b.backoff == a.backoff);  // values and the positions of the anchored text
    CHECK(b.retry_on == a.retry_on);

    SECTION("aliases that refer to themselves do not loop") {
        const ParseResult list =
            parse("rebound: 1\nservice: s\npolicies:\n  p:\n    retry_on: &x [deadlock, *x]\n");
        check_well_formed(list);
        REQUIRE(list.diagnostics.size() == 1);
        CHECK(list.diagnostics[0].code == DiagnosticCode::WrongType);
        const ParseResult map = parse("rebound: 1\nservice: s\npolicies: &p\n  q: *p\n");
        check_well_formed(map);
        CHECK_FALSE(map.diagnostics.empty());
    }
    SECTION("exponential alias expansion stays cheap") {
        std::string text = "rebound: 1\nservice: s\nx0: &a0 [deadlock, deadlock]\n";
        for (int level = 1; level < 30; ++level) {
            const std::string number = std::to_string(level);
            const std::string previous = "*a" + std::to_string(level - 1);
            text += "x" + number;
            text += ": &a" + number;
            text += " [" + previous;
            text += ", " + previous;
            text += "]\n";
        }
        text += "policies:\n  p:\n    retry_on: *a29\n";
        const ParseResult result = parse(text);
        check_well_formed(result);
        CHECK_FALSE(result.diagnostics.empty());  // unknown keys x0..x29, two wrong items
    }
    SECTION("an alias to an undefined anchor is a syntax error") {
        const Diagnostic d =
            only_diagnostic("rebound: 1\nservice: *nope\n", DiagnosticCode::SyntaxError);
        CHECK(d.position.line == 2);
    }
}

// ---- Syntax and robustness ----------------------------------------------------------------------

TEST_CASE("empty input is an empty document, for the validator to report", "[yaml]") {
    for (const std::string text :
         {"", "\n\n", "# only a comment\n", "~\n", "---\n", "---\n...\n"}) {
        INFO(text);
        const ParseResult result = parse(text);
        CHECK(result.diagnostics.empty());
        CHECK(result.document.file == "svc.yaml");
        CHECK_FALSE(result.document.version.has_value());
        CHECK_FALSE(result.document.has_policies_section);
    }
}

TEST_CASE("syntax errors have positions and plain words", "[yaml]") {
    const Diagnostic flow = only_diagnostic(
        "rebound: 1\nservice: s\npolicies: [a, b\nhandlers: {}\n", DiagnosticCode::SyntaxError);
    CHECK(flow.message.find("not closed") != std::string::npos);
    CHECK(flow.position.line >= 3);
    const Diagnostic tab =
        only_diagnostic("rebound: 1\npolicies:\n\t- p\n", DiagnosticCode::SyntaxError);
    CHECK(tab.position.line == 3);
    // A tab that yaml-cpp reads as the end of a mapping still gets the tab message, at the tab.
    for (const char* text : {"rebound: 1\nservice: s\npolicies:\n  p:\n\tmax_attempts: 3\n",
                             "rebound: 1\nservice: s\npolicies:\n  p:\n  \tmax_attempts: 3\n"}) {
        const Diagnostic tabbed = only_diagnostic(text, DiagnosticCode::SyntaxError);
        INFO(text);
        CHECK(tabbed.message == "invalid YAML: tabs cannot indent YAML; use spaces");
        CHECK(tabbed.position.line == 5);
    }
    const Diagnostic escape =
        only_diagnostic("rebound: 1\nservice: \"bad \\q escape\"\n", DiagnosticCode::SyntaxError);
    CHECK(escape.position == at(2, 17));
    CHECK(escape.message == "invalid YAML: unknown escape sequence in a double-quoted text");
    const Diagnostic indent =
        only_diagnostic("rebound: 1\n  service: s\n", DiagnosticCode::SyntaxError);
    CHECK(indent.position.line == 2);
    const Diagnostic second_document =
        only_diagnostic("rebound: 1\nservice: s\npolicies: {p: {}}\n---\nrebound: 2\n",
                        DiagnosticCode::SyntaxError);
    CHECK(second_document.position.line == 5);
}

TEST_CASE("text that is not UTF-8 is rejected at the bad byte", "[yaml]") {
    const Diagnostic d =
        only_diagnostic("rebound: 1\nservice: ab\xff\xfe\n", DiagnosticCode::SyntaxError);
    CHECK(d.position == at(2, 12));
    CHECK(d.message.find("UTF-8") != std::string::npos);
    only_diagnostic("service: \xc0\xaf\n", DiagnosticCode::SyntaxError);      // overlong
    only_diagnostic("service: \xed\xa0\x80\n", DiagnosticCode::SyntaxError);  // surrogate
    only_diagnostic("service: \xe2\x82\n", DiagnosticCode::SyntaxError);      // truncated
    const Document accented = clean_document("rebound: 1\nservice: caf\xc3\xa9\n");
    CHECK(accented.service->value == "caf\xc3\xa9");
}

TEST_CASE("hostile input does not crash", "[yaml]") {
    const std::vector<std::string> inputs{
        std::string(10000, '['),
        std::string(10000, '{'),
        std::string(5000, '[') + std::string(5000, ']'),
        [] {
            std::string nested;
            for (int depth = 0; depth < 3000; ++depth) {
                nested += std::string(static_cast<std::size_t>(depth), ' ') + "a:\n";
            }
            return nested;
        }(),
        [] {
            std::string nested;
            for (int depth = 0; depth < 3000; ++depth) {
                nested += std::string(static_cast<std::size_t>(depth) * 2, ' ') + "- \n";
            }
            return nested;
        }(),
        std::string("rebound: 1\0service: s\n", 22),
        "rebound: 1\nservice: s\npolicies:\n  p:\n    retry_on: " + std::string(3000, '[') + "\n",
        "rebound: 1\nservice: s\npolicies:\n  ? [a, b]\n  : {}\n",
        "rebound: 1\nservice: s\npolicies:\n  : {}\n",
        "? - a\n: b\n",
        "!!binary AAAA: 1\n",
        "rebound: !!int x\n",
        "&a a: *a\n",
        // yaml-cpp 0.7's LoadAll loops forever on a stray comma (found by the fuzzer).
        ",",
        " , in s:aice: s\npozs ",
        "rebound: 1\n---\n,\n",
    };
    for (const std::string& text : inputs) {
        INFO(text.substr(0, 60));
        const ParseResult result = parse(text);
        check_well_formed(result);
    }
    CHECK_FALSE(parse(std::string(10000, '[')).diagnostics.empty());
    CHECK(parse(std::string(10000, '[')).diagnostics[0].message.find("nested too deeply") !=
          std::string::npos);
}

TEST_CASE("only one document per file", "[yaml]") {
    CHECK(parse("rebound: 1\nservice: s\n---\n").diagnostics.empty());
    CHECK(parse("---\nrebound: 1\nservice: s\n...\n").diagnostics.empty());
    const ParseResult two = parse("rebound: 1\nservice: s\n---\nservice: t\n");
    REQUIRE(two.diagnostics.size() == 1);
    CHECK(two.diagnostics[0].position == at(4, 1));
    CHECK(two.diagnostics[0].message.find("second one starts here") != std::string::npos);
}

TEST_CASE("every prefix of a conformance file is read without crashing", "[yaml]") {
    const std::string text = read_file(conformance_dir() / "04-tiers.yaml");
    for (std::size_t length = 0; length <= text.size(); ++length) {
        const ParseResult result = parse(text.substr(0, length));
        check_well_formed(result);
    }
}

TEST_CASE("a percentage where a jitter goes says how to write it", "[yaml]") {
    const Diagnostic percent = only_diagnostic(
        "rebound: 1\nservice: s\npolicies:\n  p:\n    jitter: 20%\n", DiagnosticCode::InvalidValue);
    CHECK(percent.position == at(5, 13));
    CHECK(percent.message == "jitter '20%' is not a jitter: a percentage is written as a factor");
    CHECK(percent.suggestion == "write { type: proportional, factor: 0.2 }");
}

TEST_CASE("handlers: calls and redeliveries in the mapping form", "[yaml]") {
    const ParseResult result = parse(
        "rebound: 1\nservice: s\npolicies: {p: {}}\nhandlers:\n"
        "  a: { policy: p, calls: [b.c, d], redeliveries: 4 }\n  b.*: p\n");
    check_well_formed(result, "svc.yaml");
    REQUIRE(result.diagnostics.empty());
    const HandlerNode& a = result.document.handlers.at(0);
    REQUIRE(a.calls.has_value());
    REQUIRE(a.calls->items.size() == 2);
    CHECK(a.calls->items[0].value == "b.c");
    CHECK(a.calls->items[0].position == at(5, 27));
    CHECK(a.redeliveries->value == 4);
    CHECK_FALSE(result.document.handlers.at(1).calls.has_value());

    const Diagnostic not_a_list = only_diagnostic(
        "rebound: 1\nservice: s\npolicies: {p: {}}\nhandlers:\n  a: { policy: p, calls: b }\n",
        DiagnosticCode::WrongType);
    CHECK(not_a_list.message.find("a list of handler names") != std::string::npos);
    const Diagnostic misspelt = only_diagnostic(
        "rebound: 1\nservice: s\npolicies: {p: {}}\nhandlers:\n  a: { policy: p, call: [b] }\n",
        DiagnosticCode::UnknownKey);
    CHECK(misspelt.suggestion.find("calls") != std::string::npos);
}

TEST_CASE("grpc matchers: a status name in any case or its code", "[yaml]") {
    const PolicyFields fields = fields_of(
        "    retry_on: [{ grpc: UNAVAILABLE }, { grpc: resource_exhausted }, { grpc: 10 }]\n");
    CHECK(matchers_of(fields) ==
          std::vector<Matcher>{Matcher::grpc_status(rebound::GrpcStatus::Unavailable),
                               Matcher::grpc_status(rebound::GrpcStatus::ResourceExhausted),
                               Matcher::grpc_status(rebound::GrpcStatus::Aborted)});
    const Diagnostic unknown =
        policy_diagnostic("    retry_on: [{ grpc: UNAVAILABL }]\n", DiagnosticCode::UnknownValue);
    CHECK(unknown.field == "policies.p.retry_on[0].grpc");
    CHECK(unknown.suggestion == "did you mean 'UNAVAILABLE'?");
    policy_diagnostic("    retry_on: [{ grpc: 17 }]\n", DiagnosticCode::UnknownValue);
    policy_diagnostic("    retry_on: [{ grpc: UNAVAILABLE, http: 503 }]\n",
                      DiagnosticCode::ConflictingFields);
}
