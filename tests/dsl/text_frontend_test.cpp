// The text DSL front end (.rebound): what parse_text puts in the Document, where, and what it
// reports. Semantic rules (ranges, references) are the validator's and are tested in
// compile_test.cpp; the DSL's emitter in emit_test.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>
#include <tao/pegtl.hpp>
#include <tao/pegtl/contrib/analyze.hpp>

#include "document_testing.hpp"
#include "rebound/dsl/compile.hpp"
#include "rebound/dsl/emit.hpp"
#include "rebound/dsl/parse.hpp"
#include "text/grammar.hpp"

using namespace std::chrono_literals;
using rebound::BackoffType;
using rebound::Duration;
using rebound::ErrorCategory;
using rebound::JitterType;
using rebound::Matcher;
using rebound::PolicySpec;
using rebound::Vendor;
using rebound::dsl::Diagnostic;
using rebound::dsl::DiagnosticCode;
using rebound::dsl::Document;
using rebound::dsl::emit_text;
using rebound::dsl::HandlerNode;
using rebound::dsl::parse_text;
using rebound::dsl::parse_yaml;
using rebound::dsl::ParseResult;
using rebound::dsl::PolicyFields;
using rebound::dsl::PolicyNode;
using rebound::dsl::resolve_policies;
using rebound::dsl::Severity;
using rebound::dsl::SourcePosition;
using rebound::dsl::testing::is_version_2_vector;
using rebound::dsl::testing::strip_positions;

namespace {

std::filesystem::path conformance_dir() {
    return std::filesystem::path(REBOUND_SPEC_DIR) / "conformance";
}

std::filesystem::path test_data_dir() {
    return std::filesystem::path(REBOUND_TEST_DATA_DIR);
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

ParseResult parse(const std::string& text) {
    return parse_text(text, "svc.rebound");
}

SourcePosition at(std::uint32_t line, std::uint32_t column) {
    return {line, column};
}

std::string describe(const ParseResult& result) {
    std::string out;
    for (const Diagnostic& d : result.diagnostics) {
        out += rebound::dsl::format_diagnostic(d) + "\n";
    }
    return out;
}

// Words of the grammar's implementation that must never reach a user.
bool speaks_grammar(const std::string& text) {
    for (const char* word : {"pegtl", "tao::", "must<", "seq<", "sor<", "_argument", "_statement",
                             "_clause", "_keyword", "end_of", "matcher_list", "error_message"}) {
        if (text.find(word) != std::string::npos) {
            return true;
        }
    }
    return false;
}

// Every diagnostic names the file, has a known position, is an error, speaks the user's words
// and stays short whatever the input.
void check_well_formed(const ParseResult& result, const std::string& file = "svc.rebound") {
    for (const Diagnostic& d : result.diagnostics) {
        INFO(rebound::dsl::format_diagnostic(d));
        CHECK(d.file == file);
        CHECK(d.position.known());
        CHECK(d.position.column >= 1);
        CHECK(d.severity == Severity::Error);
        CHECK_FALSE(d.message.empty());
        CHECK_FALSE(speaks_grammar(d.message));
        CHECK_FALSE(speaks_grammar(d.suggestion));
        CHECK(d.message.size() < 600);
        CHECK(d.field.size() < 600);
    }
    CHECK(result.document.file == file);
}

// The single diagnostic of `text`, which must have `code`.
Diagnostic only_diagnostic(const std::string& text, DiagnosticCode code) {
    const ParseResult result = parse(text);
    check_well_formed(result);
    INFO(describe(result));
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.diagnostics.front().code == code);
    return result.diagnostics.front();
}

Document clean_document(const std::string& text) {
    const ParseResult result = parse(text);
    INFO(describe(result));
    REQUIRE(result.diagnostics.empty());
    return result.document;
}

const PolicyNode& policy(const Document& document, std::string_view name) {
    const auto found = std::find_if(document.policies.begin(), document.policies.end(),
                                    [&](const PolicyNode& p) { return p.name.value == name; });
    REQUIRE(found != document.policies.end());
    return *found;
}

// A file whose policy `p` holds `body`; the body starts on line 4.
std::string in_policy(const std::string& body) {
    return "rebound 1\nservice s\npolicy p {\n" + body + "}\n";
}

PolicyFields fields_of(const std::string& body) {
    const Document document = clean_document(in_policy(body));
    REQUIRE(document.policies.size() == 1);
    return document.policies.front().fields;
}

// The single diagnostic of a policy `body` (starts on line 4).
Diagnostic policy_diagnostic(const std::string& body, DiagnosticCode code) {
    return only_diagnostic(in_policy(body), code);
}

std::vector<Matcher> items_of(
    const std::optional<rebound::dsl::ListNode<rebound::dsl::Located<Matcher>>>& list) {
    REQUIRE(list.has_value());
    std::vector<Matcher> matchers;
    for (const auto& item : list->items) {
        matchers.push_back(item.value);
    }
    return matchers;
}

std::vector<std::uint32_t> numbers_after(const nlohmann::json& document, const std::string& key) {
    std::vector<std::uint32_t> numbers;
    if (document.contains(key)) {
        for (const nlohmann::json& item : document.at(key)) {
            numbers.push_back(item.get<std::uint32_t>());
        }
    }
    return numbers;
}

// The content of a Document: positions and the file name dropped.
Document content(Document document) {
    document = strip_positions(std::move(document));
    document.file.clear();
    return document;
}

// An exponential backoff without a multiplier has the default one; the DSL states it (`x2`).
void state_default_multiplier(PolicyFields& fields) {
    if (fields.backoff && fields.backoff->type.value == BackoffType::Exponential &&
        !fields.backoff->multiplier) {
        fields.backoff->multiplier =
            rebound::dsl::testing::field(rebound::Backoff::kDefaultMultiplier);
    }
}

Document with_default_multipliers(Document document) {
    if (document.defaults) {
        state_default_multiplier(document.defaults->fields);
    }
    for (PolicyNode& p : document.policies) {
        state_default_multiplier(p.fields);
    }
    return document;
}

const PolicySpec& resolved(const std::vector<PolicySpec>& specs, std::string_view name) {
    const auto found = std::find_if(specs.begin(), specs.end(),
                                    [&](const PolicySpec& s) { return s.name == name; });
    REQUIRE(found != specs.end());
    return *found;
}

}  // namespace

// ---- The grammar
// ----------------------------------------------------------------------------------

TEST_CASE("text: the grammar has no rule that can loop without consuming input", "[text]") {
    namespace text = rebound::dsl::text;
    CHECK(tao::pegtl::analyze<text::grammar>() == 0);
    CHECK(tao::pegtl::analyze<text::statement>() == 0);
    CHECK(tao::pegtl::analyze<text::matcher_list>() == 0);
    CHECK(tao::pegtl::analyze<text::quoted_text>() == 0);
}

// ---- Conformance vectors
// ----------------------------------------------------------------------------

TEST_CASE("text: every valid conformance .rebound parses cleanly and equals its YAML twin",
          "[text]") {
    int files = 0;
    int twins = 0;
    for (const auto& entry : std::filesystem::directory_iterator(conformance_dir())) {
        if (entry.path().extension() != ".rebound" || is_version_2_vector(entry.path())) {
            continue;
        }
        INFO(entry.path());
        const std::string file = entry.path().filename().string();
        const ParseResult result = parse_text(read_file(entry.path()), file);
        check_well_formed(result, file);
        INFO(describe(result));
        CHECK(result.diagnostics.empty());
        CHECK(result.document.version->value == 1);
        CHECK(result.document.service.has_value());
        CHECK_FALSE(result.document.policies.empty());
        ++files;

        std::filesystem::path twin = entry.path();
        twin.replace_extension(".yaml");
        if (!std::filesystem::exists(twin)) {
            continue;
        }
        const ParseResult yaml = parse_yaml(read_file(twin), twin.filename().string());
        REQUIRE(yaml.diagnostics.empty());
        // The one difference the DSL allows itself: it states the default multiplier (`x2`)
        // where YAML may leave it out.
        CHECK(content(with_default_multipliers(result.document)) ==
              content(with_default_multipliers(yaml.document)));
        CHECK(resolve_policies(result.document) == resolve_policies(yaml.document));
        ++twins;
    }
    CHECK(files >= 1);
    CHECK(twins >= 1);
}

TEST_CASE("text: 04-tiers values and their positions", "[text]") {
    const Document document = clean_document(read_file(conformance_dir() / "04-tiers.rebound"));
    CHECK(document.version->value == 1);
    CHECK(document.version->position == at(2, 9));
    CHECK(document.service->value == "casework");
    CHECK(document.service->position == at(3, 9));
    REQUIRE(document.defaults.has_value());
    CHECK(document.defaults->position == at(5, 1));
    CHECK(document.defaults->fields.jitter->type.value == JitterType::Full);
    CHECK(document.defaults->fields.jitter->type.position == at(6, 10));
    CHECK(document.has_policies_section);
    CHECK(document.policies_position == at(9, 1));

    REQUIRE(document.policies.size() == 3);
    CHECK(document.policies[0].name.value == "interactive");
    CHECK(document.policies[0].name.position == at(9, 8));
    CHECK(document.policies[0].position == at(9, 8));
    CHECK(document.policies[1].name.value == "background");
    CHECK(document.policies[2].name.value == "outbox_publish");

    const PolicyFields& interactive = document.policies[0].fields;
    CHECK_FALSE(interactive.text(rebound::PolicyField::Extends).has_value());
    CHECK(interactive.count(rebound::PolicyField::MaxAttempts)->value == 3);
    CHECK(interactive.count(rebound::PolicyField::MaxAttempts)->position == at(10, 12));
    REQUIRE(interactive.backoff.has_value());
    CHECK(interactive.backoff->position == at(11, 3));
    CHECK(interactive.backoff->type.value == BackoffType::Exponential);
    CHECK(interactive.backoff->type.position == at(11, 11));
    CHECK(interactive.backoff->initial->value == 50ms);
    CHECK(interactive.backoff->initial->position == at(11, 23));
    CHECK(interactive.backoff->multiplier->value == 2.0);
    CHECK(interactive.backoff->multiplier->position == at(11, 28));
    CHECK(interactive.backoff->max->value == 200ms);
    CHECK(interactive.backoff->max->position == at(11, 35));
    CHECK(interactive.jitter->type.value == JitterType::Equal);
    CHECK(interactive.jitter->type.position == at(12, 10));
    CHECK(interactive.duration(rebound::PolicyField::Deadline)->value == 3s);
    CHECK(interactive.duration(rebound::PolicyField::Deadline)->position == at(13, 12));
    CHECK(interactive.duration(rebound::PolicyField::MinAttemptBudget)->value == 100ms);
    CHECK(interactive.duration(rebound::PolicyField::MinAttemptBudget)->position == at(14, 22));
    CHECK(interactive.duration(rebound::PolicyField::AttemptTimeout)->value == 1s);
    CHECK(interactive.duration(rebound::PolicyField::AttemptTimeout)->position == at(15, 19));
    CHECK(items_of(interactive.retry_on) ==
          std::vector<Matcher>{Matcher::of_category(ErrorCategory::Deadlock),
                               Matcher::of_category(ErrorCategory::SerializationFailure)});
    CHECK(interactive.retry_on->position == at(16, 3));
    CHECK(interactive.retry_on->items[0].position == at(16, 12));
    CHECK(interactive.retry_on->items[1].position == at(16, 22));
    CHECK(items_of(interactive.never_retry_on) ==
          std::vector<Matcher>{Matcher::sqlstate_class("23")});
    CHECK(interactive.never_retry_on->items[0].position == at(17, 12));

    const PolicyFields& background = document.policies[1].fields;
    CHECK(background.text(rebound::PolicyField::Extends)->value == "interactive");
    CHECK(background.text(rebound::PolicyField::Extends)->position == at(20, 27));
    CHECK(background.count(rebound::PolicyField::MaxAttempts)->value == 5);
    CHECK(background.backoff->multiplier->value == 2.0);
    CHECK(background.duration(rebound::PolicyField::Deadline)->value == 2min);
    CHECK(items_of(background.retry_on) ==
          std::vector<Matcher>{Matcher::transient(), Matcher::sqlstate("55P03"),
                               Matcher::native(Vendor::MySql, 1205)});
    CHECK(background.retry_on->items[1].position == at(24, 23));
    CHECK(background.retry_on->items[2].position == at(24, 39));
    CHECK(background.text(rebound::PolicyField::OnExhausted)->value == "dead_letter");
    CHECK(background.text(rebound::PolicyField::OnExhausted)->position == at(25, 16));
    CHECK_FALSE(background.jitter.has_value());

    const PolicyFields& outbox = document.policies[2].fields;
    CHECK(outbox.backoff->multiplier->value == 3.0);
    CHECK(outbox.backoff->max->value == 1min);
    REQUIRE(outbox.budget.has_value());
    CHECK(outbox.budget->position == at(31, 3));
    CHECK(outbox.budget->max_tokens->value == 100);
    CHECK(outbox.budget->max_tokens->position == at(31, 17));
    CHECK(outbox.budget->token_ratio->value == 0.1);
    CHECK(outbox.budget->token_ratio->position == at(31, 27));
    REQUIRE(outbox.routes.has_value());
    REQUIRE(outbox.routes->items.size() == 2);
    CHECK(outbox.routes->position == at(32, 3));
    CHECK(outbox.routes->items[0].position == at(32, 3));
    CHECK(outbox.routes->items[0].up_to->value == 10s);
    CHECK(outbox.routes->items[0].up_to->position == at(32, 15));
    CHECK(outbox.routes->items[0].target->value == "casework.retry.10s");
    CHECK(outbox.routes->items[0].target->position == at(32, 22));
    CHECK(outbox.routes->items[1].up_to->value == 1min);
    CHECK(outbox.routes->items[1].target->value == "casework.retry.1m");
    CHECK(items_of(outbox.retry_on) ==
          std::vector<Matcher>{Matcher::transient(), Matcher::http_status(503)});

    REQUIRE(document.handlers.size() == 4);
    CHECK(document.handlers[0].key.value == "ApproveCase");
    CHECK(document.handlers[0].key.position == at(37, 9));
    CHECK(document.handlers[0].position == at(37, 9));
    CHECK(document.handlers[0].policy.value == "interactive");
    CHECK(document.handlers[0].policy.position == at(37, 26));
    CHECK_FALSE(document.handlers[0].idempotent.has_value());
    CHECK(document.handlers[1].key.value == "RemoveReviewer");
    CHECK(document.handlers[1].idempotent->value);
    CHECK(document.handlers[1].idempotent->position == at(38, 41));
    CHECK(document.handlers[2].key.value == "jobs.*");
    CHECK(document.handlers[2].policy.value == "background");
    CHECK(document.handlers[3].key.value == "jobs.outbox.*");
    CHECK(document.handlers[3].policy.value == "outbox_publish");
    CHECK(document.default_policy->value == "interactive");
    CHECK(document.default_policy->position == at(41, 14));
}

TEST_CASE("text: invalid conformance files give exactly their expected diagnostics", "[text]") {
    int files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(conformance_dir() / "invalid")) {
        if (entry.path().extension() != ".rebound") {
            continue;
        }
        const std::string name = entry.path().filename().string();
        INFO(name);
        const nlohmann::json expect =
            nlohmann::json::parse(read_file(entry.path().string() + ".expect.json"));
        const std::vector<std::uint32_t> lines = numbers_after(expect, "error_lines");
        const std::vector<std::uint32_t> any_of = numbers_after(expect, "error_lines_any_of");
        const ParseResult result = parse_text(read_file(entry.path()), name);
        check_well_formed(result, name);
        INFO(describe(result));
        REQUIRE_FALSE(result.diagnostics.empty());
        ++files;
        // Every diagnostic is on an expected line, and every expected line has one.
        for (const Diagnostic& d : result.diagnostics) {
            const bool expected =
                std::find(lines.begin(), lines.end(), d.position.line) != lines.end() ||
                std::find(any_of.begin(), any_of.end(), d.position.line) != any_of.end();
            CHECK(expected);
        }
        for (const std::uint32_t line : lines) {
            const auto on_line =
                std::find_if(result.diagnostics.begin(), result.diagnostics.end(),
                             [&](const Diagnostic& d) { return d.position.line == line; });
            REQUIRE(on_line != result.diagnostics.end());
            for (const nlohmann::json& text :
                 expect.value("message_contains", nlohmann::json::array())) {
                CHECK(
                    (on_line->message + " " + on_line->suggestion).find(text.get<std::string>()) !=
                    std::string::npos);
            }
        }
    }
    CHECK(files >= 2);
}

TEST_CASE("text: invalid conformance files, diagnostic by diagnostic", "[text]") {
    const auto diagnostics_of = [](const std::string& name) {
        return parse_text(read_file(conformance_dir() / "invalid" / name), name).diagnostics;
    };
    SECTION("a duration without its unit") {
        const auto diagnostics = diagnostics_of("missing-unit.rebound");
        REQUIRE(diagnostics.size() == 1);
        CHECK(diagnostics[0].code == DiagnosticCode::InvalidDuration);
        CHECK(diagnostics[0].position == at(6, 17));
        CHECK(diagnostics[0].field == "policies.p.backoff.delay");
        CHECK(diagnostics[0].message ==
              "expected a duration such as 500ms after 'fixed', got '500': a duration needs a "
              "unit (us, ms, s, m or h)");
        CHECK(diagnostics[0].suggestion == "write 500ms");
    }
    SECTION("a misspelt statement") {
        const auto diagnostics = diagnostics_of("unknown-statement.rebound");
        REQUIRE(diagnostics.size() == 1);
        CHECK(diagnostics[0].code == DiagnosticCode::UnknownKey);
        CHECK(diagnostics[0].position == at(6, 3));
        CHECK(diagnostics[0].field == "policies.p");
        CHECK(diagnostics[0].message.find("unknown statement 'retries_on' in policy 'p'") == 0);
        CHECK(diagnostics[0].suggestion == "did you mean 'retry on'?");
    }
}

// ---- Statement forms ----------------------------------------------------------------------------

TEST_CASE("text: attempts and retries", "[text]") {
    const PolicyFields attempts = fields_of("  attempts 3\n");
    CHECK(attempts.count(rebound::PolicyField::MaxAttempts)->value == 3);
    CHECK(attempts.count(rebound::PolicyField::MaxAttempts)->position == at(4, 12));
    CHECK_FALSE(attempts.count(rebound::PolicyField::MaxRetries).has_value());
    const PolicyFields retries = fields_of("  retries 0\n");
    CHECK(retries.count(rebound::PolicyField::MaxRetries)->value == 0);
    CHECK_FALSE(retries.count(rebound::PolicyField::MaxAttempts).has_value());
    // Both in one policy, and out-of-range counts, are the validator's to report.
    const PolicyFields both = fields_of("  attempts 3\n  retries 2\n");
    CHECK(both.count(rebound::PolicyField::MaxAttempts)->value == 3);
    CHECK(both.count(rebound::PolicyField::MaxRetries)->value == 2);
    CHECK(fields_of("  attempts 0\n").count(rebound::PolicyField::MaxAttempts)->value == 0);
    CHECK(fields_of("  attempts -5\n").count(rebound::PolicyField::MaxAttempts)->value == -5);
}

TEST_CASE("text: every backoff form", "[text]") {
    const auto backoff = [](const std::string& statement) {
        const PolicyFields fields = fields_of("  " + statement + "\n");
        REQUIRE(fields.backoff.has_value());
        CHECK(fields.backoff->position == at(4, 3));
        return *fields.backoff;
    };
    SECTION("fixed") {
        const auto b = backoff("backoff fixed 5s");
        CHECK(b.type.value == BackoffType::Fixed);
        CHECK(b.type.position == at(4, 11));
        CHECK(b.delay->value == 5s);
        CHECK(b.delay->position == at(4, 17));
        CHECK_FALSE(b.initial.has_value());
        CHECK_FALSE(b.max.has_value());
    }
    SECTION("linear with and without max") {
        const auto b = backoff("backoff linear 2s +500ms max 60s");
        CHECK(b.type.value == BackoffType::Linear);
        CHECK(b.initial->value == 2s);
        CHECK(b.initial->position == at(4, 18));
        CHECK(b.increment->value == 500ms);
        CHECK(b.increment->position == at(4, 21));
        CHECK(b.max->value == 60s);
        CHECK(b.max->position == at(4, 32));
        const auto no_max = backoff("backoff linear 2s +2s");
        CHECK(no_max.increment->value == 2s);
        CHECK_FALSE(no_max.max.has_value());
    }
    SECTION("exponential with every optional part") {
        const auto full = backoff("backoff exponential 1s x2 max 60s");
        CHECK(full.type.value == BackoffType::Exponential);
        CHECK(full.initial->value == 1s);
        CHECK(full.multiplier->value == 2.0);
        CHECK(full.max->value == 60s);
        const auto bare = backoff("backoff exponential 250us");
        CHECK(bare.initial->value == 250us);
        CHECK_FALSE(bare.multiplier.has_value());
        CHECK_FALSE(bare.max.has_value());
        const auto factor = backoff("backoff exponential 100ms x1.5");
        CHECK(factor.multiplier->value == 1.5);
        CHECK_FALSE(factor.max.has_value());
        const auto capped = backoff("backoff exponential 1.5s max 1h");
        CHECK(capped.initial->value == 1500ms);
        CHECK_FALSE(capped.multiplier.has_value());
        CHECK(capped.max->value == 1h);
    }
    SECTION("none") {
        const auto b = backoff("backoff none");
        CHECK(b.type.value == BackoffType::None);
        CHECK_FALSE(b.delay.has_value());
        CHECK_FALSE(b.initial.has_value());
    }
    SECTION("a bad value leaves the whole backoff out, with one error") {
        const ParseResult result = parse(in_policy("  backoff linear 1s +2 max 5s\n"));
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].code == DiagnosticCode::InvalidDuration);
        CHECK(result.diagnostics[0].field == "policies.p.backoff.increment");
        CHECK(result.diagnostics[0].position == at(4, 21));
        CHECK_FALSE(result.document.policies[0].fields.backoff.has_value());
    }
}

TEST_CASE("text: every jitter form", "[text]") {
    const auto jitter = [](const std::string& value) {
        const PolicyFields fields = fields_of("  jitter " + value + "\n");
        REQUIRE(fields.jitter.has_value());
        return *fields.jitter;
    };
    CHECK(jitter("none").type.value == JitterType::None);
    CHECK(jitter("full").type.value == JitterType::Full);
    CHECK(jitter("equal").type.value == JitterType::Equal);
    CHECK(jitter("decorrelated").type.value == JitterType::Decorrelated);
    CHECK(jitter("full").type.position == at(4, 10));

    const auto bounded = jitter("+-1s");
    CHECK(bounded.type.value == JitterType::Bounded);
    CHECK(bounded.type.position == at(4, 10));
    CHECK(bounded.amount->value == 1s);
    CHECK(bounded.amount->position == at(4, 12));
    CHECK(jitter("+-250ms").amount->value == 250ms);

    const auto proportional = jitter("20%");
    CHECK(proportional.type.value == JitterType::Proportional);
    CHECK(proportional.factor->value == 0.2);  // exactly the double YAML's `factor: 0.2` gives
    CHECK(proportional.factor->position == at(4, 10));
    CHECK(jitter("2.5%").factor->value == 0.025);
    CHECK(jitter("100%").factor->value == 1.0);
    CHECK(jitter("0.1%").factor->value == 0.001);
    CHECK_FALSE(jitter("20%").amount.has_value());
}

TEST_CASE("text: deadline, min_attempt_budget and attempt_timeout", "[text]") {
    const PolicyFields fields =
        fields_of("  deadline 3.5s\n  min_attempt_budget 500ms\n  attempt_timeout 250us\n");
    CHECK(fields.duration(rebound::PolicyField::Deadline)->value == 3500ms);
    CHECK(fields.duration(rebound::PolicyField::Deadline)->position == at(4, 12));
    CHECK(fields.duration(rebound::PolicyField::MinAttemptBudget)->value == 500ms);
    CHECK(fields.duration(rebound::PolicyField::MinAttemptBudget)->position == at(5, 22));
    CHECK(fields.duration(rebound::PolicyField::AttemptTimeout)->value == 250us);
    CHECK(fields.duration(rebound::PolicyField::AttemptTimeout)->position == at(6, 19));
    CHECK(fields_of("  deadline 2m\n").duration(rebound::PolicyField::Deadline)->value == 2min);
    CHECK(fields_of("  deadline 1h\n").duration(rebound::PolicyField::Deadline)->value == 1h);
    // Zero is the validator's to refuse for deadline; a duration is read as written.
    CHECK(fields_of("  min_attempt_budget 0ms\n")
              .duration(rebound::PolicyField::MinAttemptBudget)
              ->value == 0us);
}

TEST_CASE("text: retry on and never on with every matcher kind", "[text]") {
    const PolicyFields fields = fields_of(
        "  retry on deadlock, transient, sqlstate 40001, sqlstate 40p01, sqlstate class 08, "
        "native mysql 1213, native db2 -911, error io.timeout, http 503, http 5xx, http 4XX, "
        "message \"connection reset\", lock_timeout\n"
        "  never on constraint_violation,sqlstate class 23 ,  message \"say \\\"hi\\\" \\\\ "
        "\\t\\x41\"\n");
    CHECK(items_of(fields.retry_on) == std::vector<Matcher>{
                                           Matcher::of_category(ErrorCategory::Deadlock),
                                           Matcher::transient(),
                                           Matcher::sqlstate("40001"),
                                           Matcher::sqlstate("40p01"),
                                           Matcher::sqlstate_class("08"),
                                           Matcher::native(Vendor::MySql, 1213),
                                           Matcher::native(Vendor::Db2, -911),
                                           Matcher::error_type("io.timeout"),
                                           Matcher::http_status(503),
                                           Matcher::http_class(5),
                                           Matcher::http_class(4),
                                           Matcher::message("connection reset"),
                                           Matcher::of_category(ErrorCategory::LockTimeout),
                                       });
    CHECK(fields.retry_on->position == at(4, 3));
    CHECK(fields.retry_on->items[0].position == at(4, 12));
    CHECK(fields.retry_on->items[2].position == at(4, 33));  // the `sqlstate` keyword
    CHECK(items_of(fields.never_retry_on) ==
          std::vector<Matcher>{Matcher::of_category(ErrorCategory::ConstraintViolation),
                               Matcher::sqlstate_class("23"),
                               Matcher::message("say \"hi\" \\ \tA")});
    CHECK(fields.never_retry_on->position == at(5, 3));
    CHECK(fields.never_retry_on->items[1].position == at(5, 33));

    SECTION("every category word") {
        for (const std::string_view word : rebound::dsl::category_words()) {
            INFO(word);
            const PolicyFields one = fields_of("  retry on " + std::string(word) + "\n");
            REQUIRE(one.retry_on->items.size() == 1);
            CHECK(one.retry_on->items[0].value.kind == (word == "transient"
                                                            ? rebound::MatcherKind::TransientGroup
                                                            : rebound::MatcherKind::Category));
        }
    }
    SECTION("a bad matcher is reported and left out; the others are kept") {
        const ParseResult result = parse(in_policy("  retry on deadlock, http abc, deadlok\n"));
        check_well_formed(result);
        REQUIRE(result.diagnostics.size() == 2);
        CHECK(result.diagnostics[0].code == DiagnosticCode::InvalidValue);
        CHECK(result.diagnostics[0].position == at(4, 27));
        CHECK(result.diagnostics[0].field == "policies.p.retry_on");
        CHECK(result.diagnostics[1].code == DiagnosticCode::UnknownValue);
        CHECK(result.diagnostics[1].suggestion == "did you mean 'deadlock'?");
        CHECK(items_of(result.document.policies[0].fields.retry_on) ==
              std::vector<Matcher>{Matcher::of_category(ErrorCategory::Deadlock)});
    }
    SECTION("quoted text must be UTF-8 once unescaped") {
        const Diagnostic d =
            policy_diagnostic("  retry on message \"\\xff\"\n", DiagnosticCode::InvalidValue);
        CHECK(d.message.find("UTF-8") != std::string::npos);
        CHECK(fields_of("  retry on message \"caf\xc3\xa9\"\n").retry_on->items[0].value ==
              Matcher::message("caf\xc3\xa9"));
    }
}

TEST_CASE("text: retry if, on exhausted, budget and routes", "[text]") {
    const PolicyFields fields = fields_of(
        "  retry if is_retryable, app.checks.rate-limited\n"
        "  on exhausted dead_letter\n"
        "  budget tokens 100 ratio 0.1\n"
        "  route up to 10s -> \"orders.retry.10s\"\n"
        "  route up to 720h->\"orders.retry.slow\"\n");
    REQUIRE(fields.retry_if.has_value());
    REQUIRE(fields.retry_if->items.size() == 2);
    CHECK(fields.retry_if->position == at(4, 3));
    CHECK(fields.retry_if->items[0].value == "is_retryable");
    CHECK(fields.retry_if->items[0].position == at(4, 12));
    CHECK(fields.retry_if->items[1].value == "app.checks.rate-limited");
    CHECK(fields.retry_if->items[1].position == at(4, 26));
    CHECK(fields.text(rebound::PolicyField::OnExhausted)->value == "dead_letter");
    CHECK(fields.text(rebound::PolicyField::OnExhausted)->position == at(5, 16));
    CHECK(fields.budget->max_tokens->value == 100);
    CHECK(fields.budget->token_ratio->value == 0.1);
    REQUIRE(fields.routes->items.size() == 2);
    CHECK(fields.routes->items[1].position == at(8, 3));
    CHECK(fields.routes->items[1].up_to->value == 720h);
    CHECK(fields.routes->items[1].target->value == "orders.retry.slow");
    CHECK(fields_of("  on exhausted fail\n").text(rebound::PolicyField::OnExhausted)->value ==
          "fail");
}

TEST_CASE("text: handlers, prefixes, default, defaults and extends", "[text]") {
    const Document document = clean_document(
        "rebound 1\n"
        "service orders-api.v2\n"
        "defaults {\n"
        "  attempts 4\n"
        "  jitter full\n"
        "}\n"
        "policy base {\n"
        "}\n"
        "policy child extends base {\n"
        "  attempts 2\n"
        "}\n"
        "policy empty {}\n"
        "policy empty_child extends child { }\n"
        "handler ApproveCase uses base\n"
        "handler Risk uses child idempotent\n"
        "handler orders.* uses child\n"
        "handler orders.email.* uses empty_child   # the longer prefix wins\n"
        "handler Legacy uses builtin\n"
        "default uses base\n");
    CHECK(document.service->value == "orders-api.v2");
    REQUIRE(document.defaults.has_value());
    CHECK(document.defaults->position == at(3, 1));
    CHECK(document.defaults->fields.count(rebound::PolicyField::MaxAttempts)->value == 4);
    CHECK_FALSE(document.defaults->fields.text(rebound::PolicyField::Extends).has_value());
    REQUIRE(document.policies.size() == 4);
    CHECK(policy(document, "base").fields == PolicyFields{});
    CHECK(policy(document, "child").fields.text(rebound::PolicyField::Extends)->value == "base");
    CHECK(policy(document, "child").fields.text(rebound::PolicyField::Extends)->position ==
          at(9, 22));
    CHECK(policy(document, "empty").fields == PolicyFields{});
    CHECK(policy(document, "empty_child").fields.text(rebound::PolicyField::Extends)->value ==
          "child");
    REQUIRE(document.handlers.size() == 5);
    CHECK(document.handlers[1].idempotent->value);
    CHECK(document.handlers[2].key.value == "orders.*");
    CHECK(document.handlers[3].key.value == "orders.email.*");
    CHECK(document.handlers[3].policy.value == "empty_child");
    CHECK(document.handlers[4].policy.value == "builtin");
    CHECK(document.default_policy->value == "base");
    CHECK(document.default_policy->position == at(19, 14));
    const auto specs = resolve_policies(document);
    CHECK(resolved(specs, "child").max_attempts == 2);
    CHECK(resolved(specs, "base").max_attempts == 4);
    CHECK(resolved(specs, "empty_child").max_attempts == 2);
}

TEST_CASE("text: comments, blank lines, tabs, CRLF and a byte order mark", "[text]") {
    const Document document = clean_document(
        "\xEF\xBB\xBF# a comment before anything\r\n"
        "rebound 1   # the version\r\n"
        "\r\n"
        "   \t  \r\n"
        "service s#no space needed\r\n"
        "policy p {  # opens\r\n"
        "\tattempts\t3\t\r\n"
        "  retry on deadlock ,\tlock_timeout # two\r\n"
        "}   # closes\r\n"
        "# a comment after everything");
    CHECK(document.version->position == at(2, 9));
    CHECK(document.service->value == "s");
    const PolicyFields& fields = document.policies[0].fields;
    CHECK(fields.count(rebound::PolicyField::MaxAttempts)->value == 3);
    CHECK(fields.count(rebound::PolicyField::MaxAttempts)->position == at(7, 11));
    CHECK(fields.retry_on->items.size() == 2);
    CHECK(clean_document("rebound 1\nservice s\npolicy p {}").policies.size() == 1);
}

// ---- Empty lists
// ---------------------------------------------------------------------------------

TEST_CASE("text: 'none' states a present, empty list", "[text]") {
    const PolicyFields fields = fields_of(
        "  retry on none\n"
        "  never on none   # nothing is excluded\n"
        "  retry if none\n"
        "  routes none\n");
    REQUIRE(fields.retry_on.has_value());
    CHECK(fields.retry_on->items.empty());
    CHECK(fields.retry_on->position == at(4, 3));
    REQUIRE(fields.never_retry_on.has_value());
    CHECK(fields.never_retry_on->items.empty());
    REQUIRE(fields.retry_if.has_value());
    CHECK(fields.retry_if->items.empty());
    REQUIRE(fields.routes.has_value());
    CHECK(fields.routes->items.empty());
    CHECK(fields.routes->position == at(7, 3));

    SECTION("the same Document as YAML's []") {
        const ParseResult yaml = parse_yaml(
            "rebound: 1\nservice: s\npolicies:\n  p:\n    retry_on: []\n    never_retry_on: []\n"
            "    retry_if: []\n    routes: []\n",
            "svc.yaml");
        REQUIRE(yaml.diagnostics.empty());
        CHECK(content(yaml.document).policies[0].fields ==
              content(clean_document(in_policy("  retry on none\n  never on none\n"
                                               "  retry if none\n  routes none\n")))
                  .policies[0]
                  .fields);
    }
    SECTION("it overrides an inherited non-empty list") {
        const Document document = clean_document(
            "rebound 1\nservice s\n"
            "policy parent {\n"
            "  retry on deadlock\n  never on constraint_violation\n  retry if check\n"
            "  route up to 1s -> \"fast\"\n"
            "}\n"
            "policy child extends parent {\n"
            "  retry on none\n  never on none\n  retry if none\n  routes none\n"
            "}\n"
            "policy heir extends parent {}\n");
        const auto specs = resolve_policies(document);
        const PolicySpec& child = resolved(specs, "child");
        CHECK(child.retry_on.empty());
        CHECK(child.never_retry_on.empty());
        CHECK(child.retry_if.empty());
        CHECK(child.routes.empty());
        const PolicySpec& heir = resolved(specs, "heir");
        CHECK(heir.retry_on.size() == 1);
        CHECK(heir.never_retry_on.size() == 1);
        CHECK(heir.retry_if.size() == 1);
        CHECK(heir.routes.size() == 1);
    }
    SECTION("'none' cannot be a list item") {
        const ParseResult result = parse(in_policy("  retry on deadlock, none\n"));
        check_well_formed(result);
        REQUIRE(result.diagnostics.size() == 1);
        const Diagnostic& d = result.diagnostics[0];
        CHECK(d.code == DiagnosticCode::UnknownValue);
        CHECK(d.position == at(4, 22));
        CHECK(d.field == "policies.p.retry_on");
        CHECK(d.message ==
              "'none' cannot be a matcher in a list: 'retry on none' alone states an empty list");
        CHECK(d.suggestion.find("remove 'none'") == 0);
        CHECK(items_of(result.document.policies[0].fields.retry_on) ==
              std::vector<Matcher>{Matcher::of_category(ErrorCategory::Deadlock)});

        const Diagnostic first =
            policy_diagnostic("  never on none, deadlock\n", DiagnosticCode::UnknownValue);
        CHECK(first.position == at(4, 12));
        CHECK(first.message.find("'never on none' alone") != std::string::npos);

        const Diagnostic predicate =
            policy_diagnostic("  retry if none, is_busy\n", DiagnosticCode::InvalidName);
        CHECK(predicate.position == at(4, 12));
        CHECK(predicate.field == "policies.p.retry_if");
        CHECK(predicate.message ==
              "'none' cannot be a predicate name in a list: 'retry if none' alone states an "
              "empty list");
        // `none` as part of a longer name is an ordinary name.
        CHECK(fields_of("  retry if none_left, nonexistent\n").retry_if->items.size() == 2);
        CHECK(fields_of("  retry on error none.such\n").retry_on->items[0].value ==
              Matcher::error_type("none.such"));
    }
    SECTION("'routes' only takes 'none'") {
        const Diagnostic alone = policy_diagnostic("  routes\n", DiagnosticCode::SyntaxError);
        CHECK(alone.message ==
              "expected 'none' after 'routes', as in 'routes none' (a route is a line of its "
              "own: 'route up to 10s -> \"orders.retry.10s\"'), got the end of the line");
        CHECK(alone.position == at(4, 9));
        const Diagnostic route =
            policy_diagnostic("  routes up to 1s -> \"x\"\n", DiagnosticCode::SyntaxError);
        CHECK(route.position == at(4, 10));
        CHECK(route.message.find("got 'up'") != std::string::npos);
        const Diagnostic trailing =
            policy_diagnostic("  routes none please\n", DiagnosticCode::SyntaxError);
        CHECK(trailing.position == at(4, 10));
    }
    SECTION("'routes none' and route lines contradict each other; the first is kept") {
        const ParseResult after = parse(in_policy(
            "  route up to 1s -> \"fast\"\n  routes none\n  route up to 2s -> \"slow\"\n"));
        check_well_formed(after);
        REQUIRE(after.diagnostics.size() == 1);
        CHECK(after.diagnostics[0].code == DiagnosticCode::ConflictingFields);
        CHECK(after.diagnostics[0].position == at(5, 3));
        CHECK(after.diagnostics[0].message.find("at line 4") != std::string::npos);
        CHECK(after.diagnostics[0].field == "policies.p.routes");
        CHECK(after.document.policies[0].fields.routes->items.size() == 2);

        const ParseResult before =
            parse(in_policy("  routes none\n  route up to 1s -> \"fast\"\n"));
        check_well_formed(before);
        REQUIRE(before.diagnostics.size() == 1);
        CHECK(before.diagnostics[0].code == DiagnosticCode::ConflictingFields);
        CHECK(before.diagnostics[0].position == at(5, 3));
        CHECK(before.diagnostics[0].message.find("'routes none' given at line 4") !=
              std::string::npos);
        CHECK(before.document.policies[0].fields.routes->items.empty());
    }
    SECTION("given twice") {
        const Diagnostic twice =
            policy_diagnostic("  routes none\n  routes none\n", DiagnosticCode::DuplicateKey);
        CHECK(twice.message == "duplicate 'routes none' (first given at line 4)");
        const Diagnostic mixed = policy_diagnostic("  retry on none\n  retry on deadlock\n",
                                                   DiagnosticCode::DuplicateKey);
        CHECK(mixed.position == at(5, 3));
        CHECK(mixed.message == "duplicate 'retry on' (first given at line 4)");
    }
    SECTION("outside a block") {
        const ParseResult result = parse("rebound 1\nservice s\nroutes none\npolicy p {}\n");
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].message ==
              "'routes none' belongs inside a policy or defaults block");
    }
}

TEST_CASE("text: empty lists are emitted, and YAML -> DSL keeps their meaning", "[text]") {
    const std::string yaml_text = read_file(test_data_dir() / "valid" / "every-field.yaml");
    const ParseResult yaml = parse_yaml(yaml_text, "every-field.yaml");
    REQUIRE_FALSE(rebound::dsl::has_errors(yaml.diagnostics));
    const std::string dsl = emit_text(yaml.document);
    INFO(dsl);
    CHECK(dsl.find("policy _private.tier-2 extends background {\n"
                   "  retry on none\n"
                   "  never on none\n"
                   "  retry if none\n"
                   "  routes none\n"
                   "}\n") != std::string::npos);
    const ParseResult reread = parse_text(dsl, "every-field.rebound");
    check_well_formed(reread, "every-field.rebound");
    INFO(describe(reread));
    REQUIRE(reread.diagnostics.empty());
    const PolicyFields& tier2 = policy(reread.document, "_private.tier-2").fields;
    REQUIRE(tier2.retry_on.has_value());
    CHECK(tier2.retry_on->items.empty());
    REQUIRE(tier2.never_retry_on.has_value());
    CHECK(tier2.never_retry_on->items.empty());
    REQUIRE(tier2.retry_if.has_value());
    CHECK(tier2.retry_if->items.empty());
    REQUIRE(tier2.routes.has_value());
    CHECK(tier2.routes->items.empty());

    const auto specs = resolve_policies(reread.document);
    CHECK(specs == resolve_policies(yaml.document));
    CHECK(resolved(specs, "_private.tier-2").retry_on.empty());
    CHECK(resolved(specs, "_private.tier-2").routes.empty());
    CHECK_FALSE(resolved(specs, "background").retry_on.empty());
    CHECK_FALSE(resolved(specs, "background").routes.empty());
    // Emitting what was read gives the same text.
    CHECK(emit_text(reread.document) == dsl);
}

TEST_CASE("text: YAML -> DSL -> Document keeps the policies of every valid file", "[text]") {
    std::vector<std::filesystem::path> files;
    for (const auto& directory : {conformance_dir(), test_data_dir() / "valid"}) {
        for (const auto& entry : std::filesystem::directory_iterator(directory)) {
            const auto extension = entry.path().extension();
            // Expected outputs (NN.explain.json, 07-hedging.hedge.json) are not policy files.
            const std::string name = entry.path().filename().string();
            const bool expected_output = name.find(".explain.") != std::string::npos ||
                                         name.find(".hedge.") != std::string::npos;
            if (!expected_output && !is_version_2_vector(entry.path()) &&
                (extension == ".yaml" || extension == ".json")) {
                files.push_back(entry.path());
            }
        }
    }
    CHECK(files.size() >= 9);
    for (const auto& path : files) {
        INFO(path);
        const ParseResult yaml = parse_yaml(read_file(path), path.filename().string());
        REQUIRE_FALSE(rebound::dsl::has_errors(yaml.diagnostics));
        const std::string dsl = emit_text(yaml.document);
        const ParseResult reread = parse_text(dsl, "converted.rebound");
        INFO(dsl << describe(reread));
        REQUIRE(reread.diagnostics.empty());
        CHECK(resolve_policies(reread.document) == resolve_policies(yaml.document));
        CHECK(emit_text(reread.document) == dsl);
    }
}

// ---- Parse errors
// ----------------------------------------------------------------------------------

// The field a broken statement of policy p is reported on: the field the statement sets, so that
// findings on the policy's other fields are still reported.
std::string expected_field(std::string_view statement) {
    constexpr std::pair<std::string_view, std::string_view> kFields[] = {
        {"attempts", "max_attempts"}, {"retries", "max_retries"},  {"backoff", "backoff"},
        {"jitter", "jitter"},         {"deadline", "deadline"},    {"retry on", "retry_on"},
        {"retry if", "retry_if"},     {"never", "never_retry_on"}, {"on", "on_exhausted"},
        {"budget", "budget"},         {"route", "routes"}};
    statement.remove_prefix(statement.find_first_not_of(' '));
    for (const auto& [words, field] : kFields) {
        if (statement.starts_with(words) &&
            (statement.size() == words.size() || statement[words.size()] == ' ')) {
            return "policies.p." + std::string(field);
        }
    }
    return "policies.p";
}

TEST_CASE("text: parse errors say what was expected, in the user's words", "[text]") {
    // {statement in policy p (line 4), column, message}
    const std::vector<std::tuple<std::string, std::uint32_t, std::string>> cases{
        {"  backoff fixed", 16,
         "expected a duration such as 250ms after 'fixed', got the end of the line"},
        {"  backoff", 10,
         "expected a backoff type after 'backoff': fixed, linear, exponential or none, got the end "
         "of the line"},
        {"  backoff linear 1s", 20,
         "expected an increment such as +250ms after the initial delay, got the end of the line"},
        {"  backoff linear 1s 2s", 21,
         "expected an increment such as +250ms after the initial delay, got '2s'"},
        {"  backoff exponential", 22,
         "expected an initial delay such as 250ms after 'exponential', got the end of the line"},
        {"  backoff exponential 1s max", 29,
         "expected a duration such as 30s after 'max', got the end of the line"},
        {"  backoff fixed 1s 2s", 20,
         "expected the end of the backoff; the forms are 'fixed D', 'linear D +D [max D]', "
         "'exponential D [xF] [max D]' and 'none', got '2s'"},
        {"  jitter", 9,
         "expected none, full, equal, decorrelated, a bound such as +-1s or a percentage such as "
         "20% after 'jitter', got the end of the line"},
        {"  jitter +-", 12, "expected a duration such as 1s after '+-', got the end of the line"},
        {"  jitter full equal", 15, "expected the end of the line after the jitter, got 'equal'"},
        {"  attempts", 11,
         "expected a whole number after 'attempts', as in 'attempts 3', got the end of the line"},
        {"  attempts 3 4", 14, "expected the end of the line, got '4'"},
        {"  retries", 10,
         "expected a whole number after 'retries', as in 'retries 2', got the end of the line"},
        {"  deadline", 11,
         "expected a duration such as 3s after 'deadline', got the end of the line"},
        {"  retry", 8,
         "expected 'on' or 'if' after 'retry', as in 'retry on deadlock' or 'retry if is_busy', "
         "got the end of the line"},
        {"  retry when deadlock", 9,
         "expected 'on' or 'if' after 'retry', as in 'retry on deadlock' or 'retry if is_busy', "
         "got 'when'"},
        {"  retry on", 11,
         "expected a matcher after 'retry on': a category such as deadlock, sqlstate 40001, "
         "native mysql 1213, error io.timeout, http 503 or message \"text\" (or 'none' for an "
         "empty list), got the end of the line"},
        {"  retry on deadlock,", 21,
         "expected a matcher after ',': a category such as deadlock, sqlstate 40001, native "
         "mysql 1213, error io.timeout, http 503 or message \"text\", got the end of the line"},
        {"  retry on deadlock lock_timeout", 21,
         "expected ',' and another item, or the end of the line, got 'lock_timeout'"},
        {"  retry if", 11,
         "expected a predicate name after 'retry if' (or 'none' for an empty list), got the end "
         "of the line"},
        {"  never deadlock", 9,
         "expected 'on' after 'never', as in 'never on constraint_violation', got 'deadlock'"},
        {"  retry on sqlstate", 20,
         "expected a SQLSTATE such as 40001, or 'class' and a class such as 08, after "
         "'sqlstate', got the end of the line"},
        {"  retry on sqlstate class", 26,
         "expected a SQLSTATE class such as 08 after 'sqlstate class', got the end of the line"},
        {"  retry on native mysql", 24,
         "expected a native error code such as 1213 after the vendor, got the end of the line"},
        {"  retry on native", 18,
         "expected a vendor such as mysql after 'native', as in 'native mysql 1213', got the end "
         "of the line"},
        {"  retry on error", 17,
         "expected an error type such as io.timeout after 'error', got the end of the line"},
        {"  retry on http", 16,
         "expected an HTTP status such as 503 or a class such as 5xx after 'http', got the end of "
         "the line"},
        {"  retry on message text", 20,
         "expected a quoted text such as \"timed out\" after 'message', got 'text'"},
        {"  retry on message \"unclosed", 29,
         "expected a closing '\"' to end the text, got the end of the line"},
        {"  retry on message \"bad \\q\"", 26,
         "expected an escape sequence: \\\", \\\\, \\n, \\t, \\r or \\xNN, got 'q\"'"},
        {"  on exhausted", 15,
         "expected fail or dead_letter after 'on exhausted', got the end of the line"},
        {"  on failure fail", 6,
         "expected 'exhausted' after 'on', as in 'on exhausted dead_letter', got 'failure'"},
        {"  budget 10", 10,
         "expected 'tokens N' after 'budget', as in 'budget tokens 100 ratio 0.1', got '10'"},
        {"  budget tokens 10", 19,
         "expected 'ratio F' after the token count, as in 'budget tokens 100 ratio 0.1', got the "
         "end of the line"},
        {"  route to 10s -> \"x\"", 9,
         "expected 'up to' after 'route', as in 'route up to 10s -> \"orders.retry.10s\"', got "
         "'to'"},
        {"  route up to 10s \"x\"", 19, "expected '->' after the duration, got '\"x\"'"},
        {"  route up to 10s ->", 21,
         "expected a quoted target such as \"orders.retry.10s\" after '->', got the end of the "
         "line"},
    };
    for (const auto& [statement, column, message] : cases) {
        INFO(statement);
        const Diagnostic d = policy_diagnostic(statement + "\n", DiagnosticCode::SyntaxError);
        CHECK(d.message == message);
        CHECK(d.position == at(4, column));
        CHECK(d.field == expected_field(statement));
    }
}

TEST_CASE("text: header and binding errors", "[text]") {
    const auto top = [](const std::string& line) {
        return only_diagnostic("rebound 1\nservice s\npolicy p {}\n" + line + "\n",
                               DiagnosticCode::SyntaxError);
    };
    CHECK(top("policy {\n}").message ==
          "expected a policy name such as interactive after 'policy' (names match "
          "[A-Za-z_][A-Za-z0-9_.-]*), got '{'");
    CHECK(top("policy q").message ==
          "expected '{' (or 'extends NAME {') after the policy name, got the end of the line");
    CHECK(top("policy q extends {\n}").message ==
          "expected the name of the policy to extend after 'extends', got '{'");
    CHECK(top("policy q { attempts 3 }").message ==
          "expected the end of the line after '{' (each statement goes on a line of its own), got "
          "'attempts'");
    CHECK(top("handler H interactive").message ==
          "expected 'uses' after the handler name, as in 'handler ApproveCase uses interactive', "
          "got 'interactive'");
    CHECK(top("handler H uses").message ==
          "expected a policy name after 'uses', got the end of the line");
    CHECK(top("handler").message ==
          "expected a handler name or a prefix such as orders.* after 'handler', got the end of "
          "the line");
    CHECK(top("default p").message ==
          "expected 'uses' after 'default', as in 'default uses interactive', got 'p'");
    CHECK(only_diagnostic("rebound 1\nservice s\npolicy p {\n} }\n", DiagnosticCode::SyntaxError)
              .message == "expected the end of the line after '}', got '}'");
    CHECK(
        only_diagnostic("rebound\nservice s\n", DiagnosticCode::SyntaxError).message ==
        "expected the format version after 'rebound', as in 'rebound 1', got the end of the line");
    CHECK(only_diagnostic("rebound 1\nservice\n", DiagnosticCode::SyntaxError).position ==
          at(2, 8));
    CHECK(only_diagnostic("rebound 1\nservice 9lives\n", DiagnosticCode::SyntaxError).message ==
          "expected a service name such as payments after 'service' (names match "
          "[A-Za-z_][A-Za-z0-9_.-]*), got '9lives'");

    const Diagnostic option =
        only_diagnostic("rebound 1\nservice s\npolicy p {}\nhandler H uses p idempotnet\n",
                        DiagnosticCode::UnknownValue);
    CHECK(option.position == at(4, 18));
    CHECK(option.suggestion == "did you mean 'idempotent'?");
    CHECK(option.field == "handlers.H.idempotent");
    const Diagnostic version =
        only_diagnostic("rebound one\nservice s\n", DiagnosticCode::WrongType);
    CHECK(version.position == at(1, 9));
    CHECK(clean_document("rebound 2\nservice s\n").version->value == 2);  // the validator's
}

TEST_CASE("text: values that cannot be read are reported precisely", "[text]") {
    SECTION("counts") {
        const Diagnostic fraction =
            policy_diagnostic("  attempts 3.5\n", DiagnosticCode::WrongType);
        CHECK(fraction.message == "'attempts' must be a whole number, got '3.5'");
        CHECK(fraction.suggestion == "counts are whole numbers, such as 3");
        CHECK(fraction.position == at(4, 12));
        CHECK(fraction.field == "policies.p.max_attempts");
        policy_diagnostic("  retries three\n", DiagnosticCode::WrongType);
        const Diagnostic huge =
            policy_diagnostic("  attempts 99999999999999999999999\n", DiagnosticCode::OutOfRange);
        CHECK(huge.message == "'attempts' is too large: 99999999999999999999999");
        policy_diagnostic("  budget tokens 1e3 ratio 0.1\n", DiagnosticCode::WrongType);
        policy_diagnostic("  budget tokens 10 ratio much\n", DiagnosticCode::WrongType);
        policy_diagnostic("  budget tokens 10 ratio 1" + std::string(400, '0') + "\n",
                          DiagnosticCode::OutOfRange);
        policy_diagnostic("  retry on native mysql 99999999999999999999\n",
                          DiagnosticCode::OutOfRange);
        policy_diagnostic("  retry on http 99999999999\n", DiagnosticCode::OutOfRange);
    }
    SECTION("durations") {
        const Diagnostic bare =
            policy_diagnostic("  deadline 5\n", DiagnosticCode::InvalidDuration);
        CHECK(bare.message ==
              "expected a duration such as 5ms after 'deadline', got '5': a duration needs a unit "
              "(us, ms, s, m or h)");
        CHECK(bare.suggestion == "write 5ms");
        CHECK(bare.field == "policies.p.deadline");
        CHECK(policy_diagnostic("  deadline -1s\n", DiagnosticCode::InvalidDuration).position ==
              at(4, 12));
        policy_diagnostic("  deadline 5days\n", DiagnosticCode::InvalidDuration);
        policy_diagnostic("  attempt_timeout 1.5us\n", DiagnosticCode::InvalidDuration);
        policy_diagnostic("  deadline 99999999999999999999h\n", DiagnosticCode::InvalidDuration);
        CHECK(policy_diagnostic("  route up to soon -> \"x\"\n", DiagnosticCode::InvalidDuration)
                  .field == "policies.p.routes");
        CHECK(policy_diagnostic("  jitter +-5\n", DiagnosticCode::InvalidDuration).suggestion ==
              "write 5ms");
    }
    SECTION("multiplier and percentages") {
        const Diagnostic multiplier =
            policy_diagnostic("  backoff exponential 1s xtwo\n", DiagnosticCode::WrongType);
        CHECK(multiplier.message == "the multiplier must be a number such as x2, got 'xtwo'");
        CHECK(multiplier.field == "policies.p.backoff.multiplier");
        const Diagnostic percent = policy_diagnostic("  jitter abc%\n", DiagnosticCode::WrongType);
        CHECK(percent.message == "a proportional jitter is a percentage such as 20%, got 'abc%'");
    }
    SECTION("words, with did-you-mean") {
        const std::vector<std::tuple<std::string, std::string, std::string>> cases{
            {"  backoff exponentail 1s\n", "did you mean 'exponential'?",
             "policies.p.backoff.type"},
            {"  backoff 5s\n", "for a fixed delay, write 'backoff fixed 5s'",
             "policies.p.backoff.type"},
            {"  jitter ful\n", "did you mean 'full'?", "policies.p.jitter"},
            {"  jitter 20\n", "for a proportional jitter, write 'jitter 20%'", "policies.p.jitter"},
            {"  jitter 1s\n", "for a bounded jitter, write 'jitter +-1s'", "policies.p.jitter"},
            {"  on exhausted dead_leter\n", "did you mean 'dead_letter'?",
             "policies.p.on_exhausted"},
            {"  on exhausted explode\n", "expected one of fail, dead_letter",
             "policies.p.on_exhausted"},
            {"  retry on deadlok\n", "did you mean 'deadlock'?", "policies.p.retry_on"},
            {"  retry on transiant\n", "did you mean 'transient'?", "policies.p.retry_on"},
            {"  never on serialisation_failure\n", "did you mean 'serialization_failure'?",
             "policies.p.never_retry_on"},
            {"  retry on native mysq 1213\n", "did you mean 'mysql'?", "policies.p.retry_on"},
        };
        for (const auto& [body, suggestion, field] : cases) {
            INFO(body);
            const Diagnostic d = policy_diagnostic(body, DiagnosticCode::UnknownValue);
            CHECK(d.suggestion == suggestion);
            CHECK(d.field == field);
            CHECK(d.position.line == 4);
        }
        // A misspelt matcher keyword breaks the line's shape: a syntax error, with the hint.
        const Diagnostic keyword =
            policy_diagnostic("  never on sqlstat 40001\n", DiagnosticCode::SyntaxError);
        CHECK(keyword.message ==
              "expected ',' and another matcher, or the end of the line, got '40001'");
        CHECK(keyword.suggestion == "did you mean 'sqlstate'?");
        CHECK(policy_diagnostic("  retry on deadlock, nativ mysql 1213\n",
                                DiagnosticCode::SyntaxError)
                  .suggestion == "did you mean 'native'?");
        CHECK(policy_diagnostic("  retry on deadlock,\n", DiagnosticCode::SyntaxError)
                  .suggestion.empty());
        CHECK(policy_diagnostic("  retry on deadlok\n", DiagnosticCode::UnknownValue).message ==
              "unknown error category 'deadlok'");
        CHECK(policy_diagnostic("  jitter bounded\n", DiagnosticCode::MissingField).suggestion ==
              "write 'jitter +-1s'");
        CHECK(policy_diagnostic("  jitter proportional\n", DiagnosticCode::MissingField).field ==
              "policies.p.jitter.factor");
    }
}

// ---- Structure and recovery ---------------------------------------------------------------------

TEST_CASE("text: several broken lines are all reported in one pass", "[text]") {
    const ParseResult result = parse(
        "rebound 1\n"
        "service s\n"
        "policy p {\n"
        "  attempts\n"              // 4: syntax
        "  backoff fixed 500\n"     // 5: unit
        "  jitter equal\n"          // good
        "  retry on deadlok\n"      // 7: category
        "  backof none\n"           // 8: statement
        "  deadline 3s\n"           // good
        "  route up to 1s \"x\"\n"  // 10: syntax
        "}\n"
        "handler H uses\n"      // 12: syntax
        "handler G uses p\n");  // good
    check_well_formed(result);
    INFO(describe(result));
    std::vector<std::uint32_t> lines;
    for (const Diagnostic& d : result.diagnostics) {
        lines.push_back(d.position.line);
    }
    CHECK(lines == std::vector<std::uint32_t>{4, 5, 7, 8, 10, 12});
    const PolicyFields& fields = result.document.policies[0].fields;
    CHECK(fields.jitter->type.value == JitterType::Equal);
    CHECK(fields.duration(rebound::PolicyField::Deadline)->value == 3s);
    CHECK_FALSE(fields.count(rebound::PolicyField::MaxAttempts).has_value());
    CHECK_FALSE(fields.backoff.has_value());
    REQUIRE(result.document.handlers.size() == 1);
    CHECK(result.document.handlers[0].key.value == "G");
}

TEST_CASE("text: unclosed blocks, stray braces, statements out of place", "[text]") {
    SECTION("a block left open is closed by the next top-level statement") {
        const ParseResult result = parse(
            "rebound 1\nservice s\npolicy p {\n  attempts 2\npolicy q {\n  attempts 4\n}\n"
            "handler H uses q\n");
        check_well_formed(result);
        REQUIRE(result.diagnostics.size() == 1);
        const Diagnostic& d = result.diagnostics[0];
        CHECK(d.code == DiagnosticCode::SyntaxError);
        CHECK(d.position == at(5, 1));
        CHECK(d.message == "missing '}' for policy 'p' opened at line 3");
        CHECK(d.suggestion == "close the block with '}' before this line");
        REQUIRE(result.document.policies.size() == 2);
        CHECK(result.document.policies[0].fields.count(rebound::PolicyField::MaxAttempts)->value ==
              2);
        CHECK(result.document.policies[1].fields.count(rebound::PolicyField::MaxAttempts)->value ==
              4);
        CHECK(result.document.handlers.size() == 1);
    }
    SECTION("a block left open at the end of the file") {
        const ParseResult result =
            parse("rebound 1\nservice s\ndefaults {\n  attempts 2\n\n# end\n");
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].message == "missing '}' for 'defaults' opened at line 3");
        CHECK(result.diagnostics[0].position == at(6, 6));
        CHECK(result.document.defaults->fields.count(rebound::PolicyField::MaxAttempts)->value ==
              2);
    }
    SECTION("a '}' with no open block") {
        const Diagnostic d =
            only_diagnostic("rebound 1\nservice s\npolicy p {}\n}\n", DiagnosticCode::SyntaxError);
        CHECK(d.position == at(4, 1));
        CHECK(d.message == "unexpected '}': no block is open here");
    }
    SECTION("a policy statement outside a block") {
        const Diagnostic d = only_diagnostic("rebound 1\nservice s\nattempts 3\npolicy p {}\n",
                                             DiagnosticCode::SyntaxError);
        CHECK(d.position == at(3, 1));
        CHECK(d.message == "'attempts' belongs inside a policy or defaults block");
        CHECK(d.suggestion == "write it between 'policy NAME {' and '}'");
    }
    SECTION("a broken header still opens its block") {
        const ParseResult result =
            parse("rebound 1\nservice s\npolicy p extends {\n  attempts 2\n}\n");
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].position == at(3, 18));
    }
    SECTION("deeply nested braces are one error per line, not a recursion") {
        std::string text = "rebound 1\nservice s\n";
        for (int i = 0; i < 100; ++i) {
            text += "policy p" + std::to_string(i) + " {\n";
        }
        const ParseResult result = parse(text);
        check_well_formed(result);
        CHECK(result.diagnostics.size() == 100);  // each block left open
        CHECK(result.document.policies.size() == 100);
    }
}

TEST_CASE("text: file header order", "[text]") {
    const Diagnostic missing =
        only_diagnostic("service s\npolicy p {}\n", DiagnosticCode::MissingField);
    CHECK(missing.position == at(1, 1));
    CHECK(missing.suggestion == "add 'rebound 1' as the first line");
    const Diagnostic late =
        only_diagnostic("service s\nrebound 1\npolicy p {}\n", DiagnosticCode::SyntaxError);
    CHECK(late.position == at(2, 1));
    CHECK(late.message == "'rebound' must be the first statement of the file");
    const Diagnostic no_service =
        only_diagnostic("rebound 1\npolicy p {}\n", DiagnosticCode::MissingField);
    CHECK(no_service.position == at(2, 1));
    const Diagnostic service_late =
        only_diagnostic("rebound 1\npolicy p {}\nservice s\n", DiagnosticCode::SyntaxError);
    CHECK(service_late.position == at(3, 1));
    CHECK(service_late.message == "'service' must come right after 'rebound 1'");
}

TEST_CASE("text: duplicates are reported at the second place, naming the first", "[text]") {
    SECTION("policy names: the first is kept") {
        const ParseResult result = parse(
            "rebound 1\nservice s\npolicy p {\n  attempts 2\n}\npolicy p {\n  attempts 9\n}\n");
        check_well_formed(result);
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].code == DiagnosticCode::DuplicateKey);
        CHECK(result.diagnostics[0].position == at(6, 8));
        CHECK(result.diagnostics[0].message == "duplicate policy 'p' (first given at line 3)");
        REQUIRE(result.document.policies.size() == 1);
        CHECK(result.document.policies[0].fields.count(rebound::PolicyField::MaxAttempts)->value ==
              2);
    }
    SECTION("statements in a block") {
        const std::vector<std::string> statements{
            "attempts 3",         "retries 2",         "backoff none",
            "jitter full",        "deadline 1s",       "min_attempt_budget 1s",
            "attempt_timeout 1s", "retry on deadlock", "never on deadlock",
            "retry if x",         "on exhausted fail", "budget tokens 1 ratio 1",
        };
        for (const std::string& statement : statements) {
            INFO(statement);
            const Diagnostic d = policy_diagnostic("  " + statement + "\n  " + statement + "\n",
                                                   DiagnosticCode::DuplicateKey);
            CHECK(d.position == at(5, 3));
            CHECK(d.message.find("(first given at line 4)") != std::string::npos);
            CHECK(d.field == "policies.p");
        }
        const ParseResult kept = parse(in_policy("  attempts 2\n  attempts 7\n"));
        CHECK(kept.document.policies[0].fields.count(rebound::PolicyField::MaxAttempts)->value ==
              2);
        // Several routes are not duplicates.
        CHECK(fields_of("  route up to 1s -> \"a\"\n  route up to 2s -> \"b\"\n")
                  .routes->items.size() == 2);
    }
    SECTION("top-level statements") {
        const Diagnostic service = only_diagnostic("rebound 1\nservice a\nservice b\npolicy p {}\n",
                                                   DiagnosticCode::DuplicateKey);
        CHECK(service.position == at(3, 1));
        CHECK(service.message == "duplicate 'service' (first given at line 2)");
        const Diagnostic handler = only_diagnostic(
            "rebound 1\nservice s\npolicy p {}\nhandler H uses p\nhandler H uses p\n",
            DiagnosticCode::DuplicateKey);
        CHECK(handler.message == "duplicate handler 'H' (first given at line 4)");
        CHECK(handler.position == at(5, 9));
        only_diagnostic("rebound 1\nservice s\npolicy p {}\ndefault uses p\ndefault uses p\n",
                        DiagnosticCode::DuplicateKey);
        const Diagnostic defaults = only_diagnostic(
            "rebound 1\nservice s\ndefaults {}\ndefaults {\n  attempts 2\n}\npolicy p {}\n",
            DiagnosticCode::DuplicateKey);
        CHECK(defaults.message == "duplicate 'defaults' (first given at line 3)");
        only_diagnostic("rebound 1\nservice s\nrebound 1\n", DiagnosticCode::DuplicateKey);
    }
}

TEST_CASE("text: misspelt statements get a did-you-mean", "[text]") {
    const std::vector<std::pair<std::string, std::string>> in_block{
        {"  retries_on deadlock\n", "did you mean 'retry on'?"},
        {"  retry_on deadlock\n", "did you mean 'retry on'?"},
        {"  never_retry_on deadlock\n", "did you mean 'never on'?"},
        {"  max_attempts: 3\n", "did you mean 'attempts'?"},
        {"  attempt 3\n", "did you mean 'attempts'?"},
        {"  backof fixed 1s\n", "did you mean 'backoff'?"},
        {"  jiter full\n", "did you mean 'jitter'?"},
        {"  deadlin 1s\n", "did you mean 'deadline'?"},
        {"  on_exhausted fail\n", "did you mean 'on exhausted'?"},
        {"  extends q\n", "a policy extends another in its header: 'policy NAME extends PARENT {'"},
    };
    for (const auto& [body, suggestion] : in_block) {
        INFO(body);
        const Diagnostic d = policy_diagnostic(body, DiagnosticCode::UnknownKey);
        CHECK(d.suggestion == suggestion);
        CHECK(d.position == at(4, 3));
        CHECK(d.message.find("in policy 'p': expected one of attempts, retries") !=
              std::string::npos);
    }
    // The misspelt header still opens its block: its body and '}' give no further errors.
    const Diagnostic top =
        only_diagnostic("rebound 1\nservice s\npolcy p {\n  attempts 3\n  retry on deadlock\n}\n",
                        DiagnosticCode::UnknownKey);
    CHECK(top.suggestion == "did you mean 'policy'?");
    CHECK(top.message ==
          "unknown statement 'polcy': expected one of rebound, service, defaults, breaker, policy, "
          "handler, default");
    CHECK(only_diagnostic("rebound 1\nservice s\npolicy p {}\nhandlers H uses p\n",
                          DiagnosticCode::UnknownKey)
              .suggestion == "did you mean 'handler'?");
    const Diagnostic defaults_extends = only_diagnostic(
        "rebound 1\nservice s\ndefaults extends p {\n}\npolicy p {}\n", DiagnosticCode::UnknownKey);
    CHECK(defaults_extends.position == at(3, 18));
    CHECK(defaults_extends.field == "defaults.extends");
}

// ---- Robustness
// ------------------------------------------------------------------------------------

TEST_CASE("text: empty input and comments only give an empty document", "[text]") {
    for (const std::string text :
         {"", "\n\n", "# only a comment\n", "   \t\n# a\n   # b", "\r\n"}) {
        INFO(text);
        const ParseResult result = parse(text);
        CHECK(result.diagnostics.empty());
        CHECK_FALSE(result.document.version.has_value());
        CHECK_FALSE(result.document.service.has_value());
        CHECK_FALSE(result.document.has_policies_section);
        CHECK(result.document.policies.empty());
    }
}

TEST_CASE("text: hostile input does not crash, hang or flood", "[text]") {
    const std::string header = "rebound 1\nservice s\n";
    const std::vector<std::string> inputs{
        std::string("rebound 1\0service s\n", 20),
        header + std::string("policy p\0 {\n}\n", 14),
        header + "policy p {\n  retry on message \"a\0b\"\n}\n",
        std::string(1000, '\0'),
        header + "policy \xff\xfe {\n}\n",
        header + "service caf\xc3\n",
        "\xed\xa0\x80\n\xc0\xaf\n",
        header + "policy p {\n  retry on \xff, deadlock\n  \xe2\x82 3\n}\n",
        header + "handler \xf4\x90\x80\x80 uses p\n",
        header +
            "policy p {\n  attempts 99999999999999999999999\n  retries -99999999999999999999\n}\n",
        header + "policy p {\n  budget tokens 1 ratio 1e999999\n  jitter 1" +
            std::string(500, '0') + "%\n}\n",
        std::string(100000, '{'),
        std::string(100000, '}'),
        std::string(50000, '\n'),
        "\r\r\r\rrebound 1\rservice s\r",
        header + "policy p {\n  route up to 1s -> \"" + std::string(1000, '\\') + "\n}\n",
        header + "policy p {\n  retry on " + std::string(20000, ',') + "\n}\n",
        header + "policy p {\n  backoff linear 1s +" + std::string(5000, '+') + "\n}\n",
        header + "policy p {\n  jitter +-+-+-+-1s\n  jitter %%%\n}\n",
    };
    for (const std::string& text : inputs) {
        INFO(text.substr(0, 60));
        const ParseResult result = parse(text);
        check_well_formed(result);
    }
    CHECK_FALSE(parse(std::string(100000, '{')).diagnostics.empty());
}

TEST_CASE("text: a 10 MB line is read once, and quoted short", "[text]") {
    const std::size_t size = 10U << 20U;
    const std::string header = "rebound 1\nservice s\n";
    SECTION("one long word") {
        const ParseResult result = parse(header + std::string(size, 'a') + "\n");
        check_well_formed(result);
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].code == DiagnosticCode::UnknownKey);
        CHECK(result.diagnostics[0].suggestion.empty());
    }
    SECTION("a huge number") {
        const ParseResult result = parse(in_policy("  attempts " + std::string(size, '9') + "\n"));
        check_well_formed(result);
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].code == DiagnosticCode::OutOfRange);
    }
    SECTION("a huge list") {
        std::string line = "  retry on deadlock";
        while (line.size() < size) {
            line += ", lock_timeout";
        }
        const ParseResult result = parse(in_policy(line + "\n"));
        check_well_formed(result);
        CHECK(result.diagnostics.empty());
        CHECK(result.document.policies[0].fields.retry_on->items.size() > 700000);
    }
    SECTION("a huge comment and a huge quoted text") {
        const ParseResult comment =
            parse(in_policy("  attempts 3 #" + std::string(size, 'x') + "\n"));
        CHECK(comment.diagnostics.empty());
        const ParseResult text =
            parse(in_policy("  retry on message \"" + std::string(size, 'x') + "\"\n"));
        CHECK(text.diagnostics.empty());
        const ParseResult unclosed =
            parse(in_policy("  retry on message \"" + std::string(size, 'x') + "\n"));
        check_well_formed(unclosed);
        CHECK(unclosed.diagnostics.size() == 1);
    }
}

TEST_CASE("text: a flood of errors stops after a bounded number", "[text]") {
    std::string text = "rebound 1\nservice s\npolicy p {\n";
    for (int i = 0; i < 5000; ++i) {
        text += "  attempts\n";
    }
    const ParseResult result = parse(text);
    check_well_formed(result);
    CHECK(result.diagnostics.size() <= 201);
    CHECK(result.diagnostics.back().message.find("too many errors") == 0);
}

TEST_CASE("text: every prefix of a DSL file is read without crashing", "[text]") {
    const std::string tiers = read_file(conformance_dir() / "04-tiers.rebound");
    const ParseResult every_field =
        parse_yaml(read_file(test_data_dir() / "valid" / "every-field.yaml"), "every-field.yaml");
    for (const std::string& text : {tiers, emit_text(every_field.document)}) {
        for (std::size_t length = 0; length <= text.size(); ++length) {
            const ParseResult result = parse(text.substr(0, length));
            check_well_formed(result);
        }
    }
}

TEST_CASE("text: a space between a duration and its unit says what to write", "[text]") {
    const Diagnostic spaced = only_diagnostic(
        "rebound 1\nservice s\npolicy p {\n  deadline 500 ms\n}\n", DiagnosticCode::SyntaxError);
    CHECK(spaced.position == at(4, 16));
    CHECK(spaced.message ==
          "expected the end of the line, got 'ms'; a duration has no space "
          "before its unit: write 500ms");
    const Diagnostic word = only_diagnostic(
        "rebound 1\nservice s\npolicy p {\n  deadline 5s extra\n}\n", DiagnosticCode::SyntaxError);
    CHECK(word.message == "expected the end of the line, got 'extra'");
}

TEST_CASE("text: 'not idempotent' states that a handler is not idempotent", "[text]") {
    const ParseResult result = parse(
        "rebound 1\nservice s\npolicy p {\n}\n"
        "handler a uses p not idempotent\nhandler b uses p\n");
    INFO(describe(result));
    REQUIRE(result.diagnostics.empty());
    REQUIRE(result.document.handlers.size() == 2);
    REQUIRE(result.document.handlers[0].idempotent.has_value());
    CHECK_FALSE(result.document.handlers[0].idempotent->value);
    CHECK(result.document.handlers[0].idempotent->position == at(5, 18));
    CHECK_FALSE(result.document.handlers[1].idempotent.has_value());
}

TEST_CASE("text: a handler line states calls and redeliveries after idempotent", "[text]") {
    const ParseResult result = parse(
        "rebound 1\nservice s\npolicy p {\n}\n"
        "handler a uses p idempotent calls b.c, d-e redeliveries 5\n"
        "handler b.* uses p redeliveries 0\nhandler d-e uses p calls a\n");
    INFO(describe(result));
    REQUIRE(result.diagnostics.empty());
    REQUIRE(result.document.handlers.size() == 3);
    const HandlerNode& a = result.document.handlers[0];
    CHECK(a.idempotent->value);
    REQUIRE(a.calls.has_value());
    REQUIRE(a.calls->items.size() == 2);
    CHECK(a.calls->items[0].value == "b.c");
    CHECK(a.calls->items[0].position == at(5, 35));
    CHECK(a.calls->items[1].value == "d-e");
    CHECK(a.redeliveries->value == 5);
    CHECK(a.redeliveries->position == at(5, 57));
    CHECK_FALSE(result.document.handlers[1].calls.has_value());
    CHECK(result.document.handlers[1].redeliveries->value == 0);
    CHECK(result.document.handlers[2].calls->items.at(0).value == "a");
}

TEST_CASE("text: calls and redeliveries that cannot be read say what was expected", "[text]") {
    const std::string head = "rebound 1\nservice s\npolicy p {\n}\n";
    const Diagnostic empty =
        only_diagnostic(head + "handler a uses p calls\n", DiagnosticCode::SyntaxError);
    CHECK(empty.position == at(5, 23));
    CHECK(empty.message.find("expected a handler name after 'calls'") != std::string::npos);
    const Diagnostic dangling =
        only_diagnostic(head + "handler a uses p calls b,\n", DiagnosticCode::SyntaxError);
    CHECK(dangling.message.find("expected a handler name after ','") != std::string::npos);
    const Diagnostic order = only_diagnostic(head + "handler a uses p redeliveries 2 calls b\n",
                                             DiagnosticCode::SyntaxError);
    CHECK(order.message.find("(in this order)") != std::string::npos);
    const Diagnostic count =
        only_diagnostic(head + "handler a uses p redeliveries many\n", DiagnosticCode::WrongType);
    CHECK(count.position == at(5, 31));
    CHECK(count.field == "handlers.a.redeliveries");
}

TEST_CASE("text: grpc matchers take a status name in any case or its code", "[text]") {
    const PolicyFields fields = fields_of("  retry on grpc UNAVAILABLE, grpc aborted, grpc 8\n");
    CHECK(items_of(fields.retry_on) ==
          std::vector<Matcher>{Matcher::grpc_status(rebound::GrpcStatus::Unavailable),
                               Matcher::grpc_status(rebound::GrpcStatus::Aborted),
                               Matcher::grpc_status(rebound::GrpcStatus::ResourceExhausted)});
    const Diagnostic unknown =
        policy_diagnostic("  retry on grpc UNAVAILABL\n", DiagnosticCode::UnknownValue);
    CHECK(unknown.position == at(4, 17));
    CHECK(unknown.suggestion == "did you mean 'UNAVAILABLE'?");
    policy_diagnostic("  retry on grpc\n", DiagnosticCode::SyntaxError);
}

// ---- Breakers and server delay hints (docs/resilience.md)
// ----------------------------------------

TEST_CASE("text: breaker blocks, 'breaker NAME' and 'server delay' read as their YAML twin",
          "[text]") {
    const std::string dsl =
        "rebound 1\n"
        "service s\n"
        "breaker ledger-db {\n"
        "  trip ratio 50% of 4 calls in 10s\n"
        "  open 2s max 16s\n"
        "  half open 2 calls\n"
        "  slow call 1500ms\n"
        "  failures transient, sqlstate class 08\n"
        "}\n"
        "breaker rates-api {\n"
        "  trip after 3 consecutive failures\n"
        "  open 500ms\n"
        "}\n"
        "breaker quiet {}\n"
        "policy p {\n"
        "  breaker ledger-db\n"
        "  server delay max cap 2s over cap stop\n"
        "}\n"
        "policy q extends p {\n"
        "  breaker rates-api\n"
        "  server delay max cap 30s over cap cap spread 10%\n"
        "}\n"
        "policy r {\n"
        "  server delay ignore\n"
        "}\n";
    const std::string yaml = R"(rebound: 1
service: s
breakers:
  ledger-db:
    failure_ratio: 0.5
    minimum_calls: 4
    window: 10s
    open_for: 2s
    max_open_for: 16s
    half_open_calls: 2
    slow_call: 1500ms
    failures: [transient, { sqlstate_class: "08" }]
  rates-api:
    consecutive_failures: 3
    open_for: 500ms
  quiet:
policies:
  p:
    breaker: ledger-db
    server_delay: { use: max, cap: 2s, over_cap: stop }
  q:
    extends: p
    breaker: rates-api
    server_delay: { use: max, cap: 30s, over_cap: cap, spread: 0.1 }
  r:
    server_delay: { use: ignore }
)";
    const Document document = clean_document(dsl);
    const ParseResult twin = parse_yaml(yaml, "s.yaml");
    INFO(describe(twin));
    REQUIRE(twin.diagnostics.empty());
    CHECK(content(document) == content(twin.document));
    CHECK(rebound::dsl::resolve_breakers(document) ==
          rebound::dsl::resolve_breakers(twin.document));
    CHECK(resolve_policies(document) == resolve_policies(twin.document));

    // Positions point at the values.
    REQUIRE(document.breakers.size() == 3);
    const rebound::dsl::BreakerNode& ledger = document.breakers[0];
    CHECK(ledger.name.position == at(3, 9));
    CHECK(ledger.failure_ratio->position == at(4, 14));
    CHECK(ledger.minimum_calls->position == at(4, 21));
    CHECK(ledger.window->position == at(4, 32));
    CHECK(ledger.max_open_for->position == at(5, 15));
    CHECK(ledger.half_open_calls->position == at(6, 13));
    CHECK(ledger.failures->items[1].position == at(8, 23));
    const PolicyFields& p = policy(document, "p").fields;
    CHECK(p.text(rebound::PolicyField::Breaker)->position == at(16, 11));
    CHECK(p.server_delay->cap->position == at(17, 24));
    CHECK(p.server_delay->over_cap->position == at(17, 36));
    CHECK(policy(document, "q").fields.server_delay->spread->value == 0.1);
}

TEST_CASE("text: a breaker's trip, open and failures lines, and their defaults", "[text]") {
    const auto breaker_of = [](const std::string& body) {
        const Document document =
            clean_document("rebound 1\nservice s\nbreaker b {\n" + body + "}\npolicy p {}\n");
        REQUIRE(document.breakers.size() == 1);
        return rebound::dsl::resolve_breakers(document).front();
    };
    const rebound::BreakerSettings defaults = breaker_of("");
    CHECK(defaults.name == "b");
    CHECK(defaults.trip == rebound::BreakerTrip::Ratio);
    CHECK(defaults.failure_ratio == 0.5);
    CHECK(defaults.minimum_calls == 20);
    CHECK(defaults.open_for == 5s);
    CHECK_FALSE(defaults.max_open_for.has_value());

    const rebound::BreakerSettings ratio = breaker_of("  trip ratio 0.25 of 40 calls in 1m\n");
    CHECK(ratio.failure_ratio == 0.25);
    CHECK(ratio.minimum_calls == 40);
    CHECK(ratio.window == 60s);
    CHECK(breaker_of("  trip ratio 12.5% of 8 calls in 2s\n").failure_ratio == 0.125);

    const rebound::BreakerSettings consecutive =
        breaker_of("  trip after 7 consecutive failures\n  half open 1 call\n");
    CHECK(consecutive.trip == rebound::BreakerTrip::Consecutive);
    CHECK(consecutive.consecutive_failures == 7);
    CHECK(consecutive.half_open_calls == 1);

    CHECK(breaker_of("  open 3s\n").max_open_for == std::nullopt);
    CHECK(breaker_of("  failures none\n").failures.empty());
    CHECK(breaker_of("  failures deadlock, http 503\n").failures ==
          std::vector<Matcher>{Matcher::of_category(ErrorCategory::Deadlock),
                               Matcher::http_status(503)});
}

TEST_CASE("text: breaker and server delay errors say what was expected", "[text]") {
    const auto breaker_diagnostic = [](const std::string& body, DiagnosticCode code) {
        return only_diagnostic("rebound 1\nservice s\nbreaker b {\n" + body + "}\npolicy p {}\n",
                               code);
    };
    SECTION("parse errors, in the user's words") {
        // {breaker body line (line 4), column, message}
        const std::vector<std::tuple<std::string, std::uint32_t, std::string>> cases{
            {"  trip", 7,
             "expected 'ratio P% of N calls in D' or 'after N consecutive failures' after "
             "'trip', got the end of the line"},
            {"  trip ratio 50%", 17,
             "expected 'of N calls in D' after the ratio, as in 'trip ratio 50% of 20 calls in "
             "10s', got the end of the line"},
            {"  trip ratio 50% of 20 in 10s", 24,
             "expected 'calls' after the number, as in 'of 20 calls in 10s', got 'in'"},
            {"  trip after 5 failures", 16,
             "expected 'consecutive failures' after the count, as in 'trip after 5 consecutive "
             "failures', got 'failures'"},
            {"  open", 7, "expected a duration such as 5s after 'open', got the end of the line"},
            {"  open 5s 60s", 11,
             "expected 'max D' or the end of the line after the open period, got '60s'"},
            {"  half 1 calls", 8,
             "expected 'open' after 'half', as in 'half open 1 calls', got '1'"},
            {"  slow 2s", 8, "expected 'call' after 'slow', as in 'slow call 2s', got '2s'"},
        };
        for (const auto& [body, column, message] : cases) {
            const Diagnostic d = breaker_diagnostic(body + "\n", DiagnosticCode::SyntaxError);
            CHECK(d.position == at(4, column));
            CHECK(d.message == message);
        }
        const Diagnostic server = policy_diagnostic("  server delay max spread 10% cap 1s\n",
                                                    DiagnosticCode::SyntaxError);
        CHECK(server.position == at(4, 31));
        CHECK(server.message ==
              "expected 'cap D', 'over cap stop|cap|ignore' or 'spread N%' (in this order), or "
              "the end of the line, got 'cap'");
    }
    SECTION("values that cannot be read") {
        const Diagnostic use =
            policy_diagnostic("  server delay maxx\n", DiagnosticCode::UnknownValue);
        CHECK(use.message == "unknown server delay use 'maxx'");
        CHECK(use.suggestion == "did you mean 'max'?");
        CHECK(use.field == "policies.p.server_delay.use");
        const Diagnostic action =
            policy_diagnostic("  server delay max over cap stp\n", DiagnosticCode::UnknownValue);
        CHECK(action.position == at(4, 29));
        CHECK(action.suggestion == "did you mean 'stop'?");
        const Diagnostic window = breaker_diagnostic("  trip ratio 50% of 20 calls in 10\n",
                                                     DiagnosticCode::InvalidDuration);
        CHECK(window.position == at(4, 33));
        CHECK(window.field == "breakers.b.window");
        const Diagnostic ratio = breaker_diagnostic("  trip ratio half% of 20 calls in 10s\n",
                                                    DiagnosticCode::WrongType);
        CHECK(ratio.message == "the failure ratio is a percentage such as 50%, got 'half%'");
    }
    SECTION("statements out of place") {
        const Diagnostic in_breaker =
            breaker_diagnostic("  attempts 3\n", DiagnosticCode::SyntaxError);
        CHECK(in_breaker.message ==
              "'attempts' belongs inside a policy or defaults block, not in breaker 'b'");
        const Diagnostic in_policy_block =
            policy_diagnostic("  trip after 3 consecutive failures\n", DiagnosticCode::SyntaxError);
        CHECK(in_policy_block.message == "'trip' belongs inside a breaker block");
        const Diagnostic top = only_diagnostic("rebound 1\nservice s\nbreaker b\npolicy p {}\n",
                                               DiagnosticCode::SyntaxError);
        CHECK(top.position == at(3, 1));
        CHECK(top.suggestion == "to declare a breaker, open a block: 'breaker NAME {'");
    }
    SECTION("unknown statements and duplicates") {
        const Diagnostic unknown =
            breaker_diagnostic("  minimum_calls 20\n", DiagnosticCode::UnknownKey);
        CHECK(unknown.message ==
              "unknown statement 'minimum_calls' in breaker 'b': expected one of trip, open, "
              "half open, slow call, failures");
        CHECK(unknown.suggestion == "did you mean 'trip'?");
        const Diagnostic twice =
            breaker_diagnostic("  open 1s\n  open 2s\n", DiagnosticCode::DuplicateKey);
        CHECK(twice.position == at(5, 3));
        const Diagnostic duplicate =
            only_diagnostic("rebound 1\nservice s\nbreaker b {}\nbreaker b {}\npolicy p {}\n",
                            DiagnosticCode::DuplicateKey);
        CHECK(duplicate.position == at(4, 9));
        CHECK(duplicate.message == "duplicate breaker 'b' (first given at line 3)");
        const Diagnostic top = only_diagnostic("rebound 1\nservice s\nbreakers b {}\npolicy p {}\n",
                                               DiagnosticCode::UnknownKey);
        CHECK(top.suggestion == "did you mean 'breaker'?");
    }
    SECTION("a broken breaker header still opens its block") {
        const ParseResult result =
            parse("rebound 1\nservice s\nbreaker {\n  open 1s\n}\npolicy p {}\n");
        check_well_formed(result);
        INFO(describe(result));
        REQUIRE(result.diagnostics.size() == 1);
        CHECK(result.diagnostics[0].position == at(3, 9));
    }
}
