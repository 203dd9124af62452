// What one file can make `rebound lint` report is bounded (issue 43): at most
// dsl::kMaxDiagnostics findings of a file in every format, errors first, with a final note
// saying how many were left out; and a policy whose values were refused (in its own text or
// through a YAML alias) gets no rule findings that only echo the error.
#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "rebound/dsl/input_limits.hpp"
#include "rebound/lint/linter.hpp"
#include "rebound/lint/output.hpp"

using namespace rebound::lint;
using rebound::dsl::kMaxDiagnostics;

namespace {

FileReport lint_yaml(const std::string& text) {
    return Linter().lint_text(text, "hostile.yaml", rebound::dsl::Syntax::Yaml);
}

std::size_t count_code(const Findings& findings, std::string_view code) {
    return static_cast<std::size_t>(std::count_if(
        findings.begin(), findings.end(), [&](const Finding& f) { return f.code == code; }));
}

bool any_rule_finding(const Findings& findings) {
    return std::any_of(findings.begin(), findings.end(),
                       [](const Finding& f) { return f.code >= "RB3"; });
}

// `count` policies that each get exactly one warning (RB301 no-jitter: 3 attempts, no jitter,
// a deadline, a retry_on list), then one policy with an out-of-range value (RB101, an error) on
// the file's last line.
std::string warnings_then_an_error(int count) {
    std::string text = "rebound: 1\nservice: s\npolicies:\n";
    for (int i = 0; i < count; ++i) {
        text += "  p" + std::to_string(i) +
                ": {max_attempts: 3, jitter: none, deadline: 2s, retry_on: [deadlock]}\n";
    }
    return text + "  last:\n    max_attempts: 0\n";
}

}  // namespace

TEST_CASE("lint bounds: a file's findings stop at the limit, errors first, then a final note",
          "[lint][limits]") {
    const int policies = 900;
    const FileReport report = lint_yaml(warnings_then_an_error(policies));
    const Findings& findings = report.findings;
    REQUIRE(findings.size() == kMaxDiagnostics + 1);
    // The error at the end of the file is kept although 900 warnings come before it.
    CHECK(count_code(findings, "RB101") == 1);
    CHECK(count_code(findings, "RB301") == kMaxDiagnostics - 1);
    const Finding& note = findings.back();
    CHECK(note.code == "RB112");
    CHECK(note.severity == Severity::Note);
    CHECK(note.message.find(std::to_string(policies - (kMaxDiagnostics - 1)) +
                            " more findings were left out") != std::string::npos);
    // Its position is the end of the file, after every finding kept.
    CHECK(note.position.line == static_cast<std::uint32_t>(policies) + 5);
    CHECK(std::is_sorted(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        return a.position.line < b.position.line;
    }));
}

TEST_CASE("lint bounds: every output format carries the bounded findings", "[lint][limits]") {
    LintReport report;
    report.files.push_back(lint_yaml(warnings_then_an_error(900)));
    const std::string json_text = format_json(report);
    const nlohmann::json document = nlohmann::json::parse(json_text);
    CHECK(document["diagnostics"].size() == kMaxDiagnostics + 1);
    CHECK(document["errors"] == 1);
    CHECK(document["notes"] == 1);
    CHECK(json_text.size() < 100'000);
    const std::string text = format_text(report, TextOptions{false});
    CHECK(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) <=
          2 * (kMaxDiagnostics + 1));
    CHECK(format_sarif(report).size() < 1'000'000);
}

TEST_CASE("lint bounds: the compiler's own cap is folded into the lint's one note",
          "[lint][limits]") {
    std::string text = "rebound: 1\nservice: s\npolicies:\n  p:\n";
    for (int i = 0; i < 5000; ++i) {
        text += "    unknown_" + std::to_string(i) + ": 1\n";
    }
    const Findings findings = lint_yaml(text).findings;
    REQUIRE(findings.size() == kMaxDiagnostics + 1);
    CHECK(count_code(findings, "RB112") == 1);
    CHECK(findings.back().code == "RB112");
    CHECK(findings.back().severity == Severity::Note);
    CHECK(findings.back().message.find("4800 more findings were left out") != std::string::npos);
}

TEST_CASE("lint bounds: policies that read a refused list through an alias get no rule findings",
          "[lint][limits]") {
    // A list over the item limit, anchored in p0 and aliased into 999 more policies: each use is
    // refused, and the policies are left without retry_on. Before, each got RB302
    // retry-all-errors ("has no retry_on or retry_if list").
    std::string text = "rebound: 1\nservice: s\npolicies:\n  p0:\n    retry_on: &l [";
    for (int i = 0; i <= 1000; ++i) {
        text += i == 0 ? "deadlock" : ", deadlock";
    }
    text += "]\n";
    for (int i = 1; i < 1000; ++i) {
        text += "  p" + std::to_string(i) + ": {jitter: full, deadline: 2s, retry_on: *l}\n";
    }
    const Findings findings = lint_yaml(text).findings;
    INFO(findings.size() << " findings, the first: " << findings.front().message);
    // The refusal is said once, where the list is written, not once per alias.
    REQUIRE(findings.size() == 1);
    CHECK(findings[0].code == "RB112");
    CHECK(findings[0].position.line == 5);
    CHECK(count_code(findings, "RB302") == 0);
    CHECK_FALSE(any_rule_finding(findings));
}

TEST_CASE("lint bounds: policies the reader stopped before get no rule findings",
          "[lint][limits]") {
    // 900 items aliased into 1000 policies cross the limit of values read near p111: the rest of
    // the file is not read, so the later policies have no retry_on.
    std::string text = "rebound: 1\nservice: s\npolicies:\n  p0:\n    retry_on: &l [";
    for (int i = 0; i < 900; ++i) {
        text += i == 0 ? "deadlock" : ", deadlock";
    }
    text += "]\n";
    for (int i = 1; i < 1000; ++i) {
        text += "  p" + std::to_string(i) + ": {jitter: full, deadline: 2s, retry_on: *l}\n";
    }
    const Findings findings = lint_yaml(text).findings;
    CHECK(count_code(findings, "RB112") >= 1);
    CHECK(count_code(findings, "RB302") == 0);
    CHECK_FALSE(any_rule_finding(findings));
}

TEST_CASE("lint bounds: a policy beside the refused one is still checked", "[lint][limits]") {
    // The error holds only the policy that reads the refused value: the other keeps its findings.
    const std::string text =
        "rebound: 1\nservice: s\npolicies:\n"
        "  broken:\n    retry_on: &l {deadlock: 1}\n"
        "  aliased: {jitter: full, deadline: 2s, retry_on: *l}\n"
        "  fine: {max_attempts: 3, jitter: none, deadline: 2s, retry_on: [deadlock]}\n";
    const Findings findings = lint_yaml(text).findings;
    CHECK(count_code(findings, "RB302") == 0);
    CHECK(count_code(findings, "RB301") == 1);
}
