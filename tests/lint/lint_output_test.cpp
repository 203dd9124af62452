// The output formats of `rebound lint`: text with carets, the JSON shape of docs/cli.md, the SARIF
// 2.1.0 structure GitHub code scanning reads, and GitHub workflow annotations.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <set>

#include "rebound/lint/linter.hpp"
#include "rebound/lint/output.hpp"

using namespace rebound::lint;
using nlohmann::json;

namespace {

// payments.yaml: RB302 (4:3) and RB301 (7:13) warnings; orders.yaml: an RB002 error.
LintReport sample_report() {
    const Linter linter;
    LintReport report;
    report.files.push_back(linter.lint_text(R"(rebound: 1
service: payments
policies:
  interactive:
    max_attempts: 4
    backoff: { type: exponential, initial: 100ms, max: 2s }
    jitter: none
    deadline: 10s
)",
                                            "policies/payments.yaml", rebound::dsl::Syntax::Yaml));
    report.files.push_back(
        linter.lint_text("rebound: 1\nservice: orders\npolicies:\n  p:\n    "
                         "max_atempts: 3\n    retry_on: [deadlock]\n",
                         "policies/orders.yaml", rebound::dsl::Syntax::Yaml));
    return report;
}

}  // namespace

TEST_CASE("lint output: text has one headline per finding, sorted, with source and caret",
          "[lint][output]") {
    const std::string text = format_text(sample_report());
    const auto orders = text.find("policies/orders.yaml:5:5: error: unknown key 'max_atempts'");
    const auto no_jitter = text.find(
        "policies/payments.yaml:7:13: warning: exponential backoff without jitter lets clients "
        "retry in lockstep");
    REQUIRE(orders != std::string::npos);
    REQUIRE(no_jitter != std::string::npos);
    CHECK(orders < no_jitter);  // sorted by file
    CHECK(text.find("[RB301 no-jitter]\n        jitter: none\n                ^\n") !=
          std::string::npos);
    CHECK(text.find("did you mean 'max_attempts'?") != std::string::npos);
    const std::string plain = format_text(sample_report(), TextOptions{false});
    CHECK(plain.find("^") == std::string::npos);
}

TEST_CASE("lint output: JSON has the shape of docs/cli.md", "[lint][output]") {
    const json report = json::parse(format_json(sample_report()));
    CHECK(report["files"] == 2);
    CHECK(report["errors"] == 1);
    CHECK(report["warnings"] == 2);  // RB301, RB302
    CHECK(report["notes"] == 0);
    REQUIRE(report["diagnostics"].size() == 3);
    const json& first = report["diagnostics"][0];
    CHECK(first["file"] == "policies/orders.yaml");
    CHECK(first["line"] == 5);
    CHECK(first["column"] == 5);
    CHECK(first["severity"] == "error");
    CHECK(first["code"] == "RB002");
    CHECK(first["rule"] == "unknown-key");
    CHECK(first["suggestion"] == "did you mean 'max_attempts'?");
    for (const json& d : report["diagnostics"]) {
        for (const char* key : {"file", "line", "column", "severity", "code", "rule", "message"}) {
            INFO(key);
            CHECK(d.contains(key));
        }
    }
}

TEST_CASE("lint output: SARIF 2.1.0 has what GitHub code scanning needs", "[lint][output]") {
    const json sarif = json::parse(format_sarif(sample_report()));
    CHECK(sarif["$schema"].get<std::string>().find("sarif-2.1.0") != std::string::npos);
    CHECK(sarif["version"] == "2.1.0");
    REQUIRE(sarif["runs"].size() == 1);
    const json& run = sarif["runs"][0];
    const json& driver = run["tool"]["driver"];
    CHECK(driver["name"] == "rebound");
    const json& rules = driver["rules"];
    REQUIRE(rules.size() == RuleRegistry::standard().rules().size());
    std::set<std::string> ids;
    for (const json& rule : rules) {
        INFO(rule.dump());
        ids.insert(rule["id"].get<std::string>());
        CHECK_FALSE(rule["name"].get<std::string>().empty());
        CHECK_FALSE(rule["shortDescription"]["text"].get<std::string>().empty());
        CHECK_FALSE(rule["fullDescription"]["text"].get<std::string>().empty());
        CHECK_FALSE(rule["help"]["text"].get<std::string>().empty());
        const std::string uri = rule["helpUri"];
        CHECK(uri.starts_with("https://"));
        CHECK(uri.ends_with("docs/rules/" + rule["id"].get<std::string>() + "-" +
                            rule["name"].get<std::string>() + ".md"));
    }
    CHECK(ids.count("RB301") == 1);
    CHECK(ids.count("RB001") == 1);
    REQUIRE(run["results"].size() == 3);
    for (const json& result : run["results"]) {
        INFO(result.dump());
        const std::string id = result["ruleId"];
        CHECK(ids.count(id) == 1);
        CHECK(rules[result["ruleIndex"].get<std::size_t>()]["id"] == id);
        const std::string level = result["level"];
        CHECK((level == "error" || level == "warning" || level == "note"));
        CHECK_FALSE(result["message"]["text"].get<std::string>().empty());
        const json& location = result["locations"][0]["physicalLocation"];
        CHECK(location["artifactLocation"]["uri"].get<std::string>().starts_with("policies/"));
        CHECK(location["region"]["startLine"].get<int>() >= 1);
        CHECK(location["region"]["startColumn"].get<int>() >= 1);
    }
    const json& first = run["results"][0];
    CHECK(first["ruleId"] == "RB002");
    CHECK(first["level"] == "error");
    CHECK(first["locations"][0]["physicalLocation"]["region"]["startLine"] == 5);
}

TEST_CASE("lint output: GitHub annotations escape their values", "[lint][output]") {
    const std::string text = format_github(sample_report());
    CHECK(text.find("::error file=policies/orders.yaml,line=5,col=5,title=RB002 "
                    "unknown-key::unknown key 'max_atempts' in policy 'p'%0Adid you mean "
                    "'max_attempts'?\n") != std::string::npos);
    CHECK(text.find("::warning file=policies/payments.yaml,line=7,col=13,title=RB301 "
                    "no-jitter::exponential backoff") != std::string::npos);

    LintReport report;
    Finding finding{"RB313",
                    "unused-policy",
                    Severity::Note,
                    "100% unused, a:b\nnext",
                    "odd,name:x.yaml",
                    {2, 3},
                    ""};
    report.config_findings.push_back(finding);
    CHECK(format_github(report) ==
          "::notice file=odd%2Cname%3Ax.yaml,line=2,col=3,title=RB313 unused-policy::100%25 "
          "unused, a:b%0Anext\n");
}

TEST_CASE("lint output: --fail-on levels", "[lint][output]") {
    const LintReport report = sample_report();
    FailOn fail_on;
    REQUIRE(parse_fail_on("never", fail_on));
    CHECK_FALSE(fails(report, fail_on));
    REQUIRE(parse_fail_on("error", fail_on));
    CHECK(fails(report, fail_on));
    CHECK_FALSE(parse_fail_on("warn", fail_on));

    LintReport warnings_only;
    warnings_only.files.push_back(report.files[0]);  // payments: RB301 and RB302 warnings
    REQUIRE(parse_fail_on("error", fail_on));
    CHECK_FALSE(fails(warnings_only, fail_on));
    REQUIRE(parse_fail_on("warning", fail_on));
    CHECK(fails(warnings_only, fail_on));
}
