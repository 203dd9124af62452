// Lint output stays safe and valid for any bytes in file names and files: text and GitHub
// formats escape terminal controls, JSON and SARIF stay valid JSON, SARIF URIs are
// percent-encoded.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "rebound/lint/linter.hpp"
#include "rebound/lint/output.hpp"

using namespace rebound::lint;

namespace {

LintReport report_for(const std::string& file, const std::string& text) {
    LintReport report;
    report.files.push_back(Linter().lint_text(text, file, rebound::dsl::Syntax::Yaml));
    return report;
}

const std::string kHostileValue =
    "rebound: 1\nservice: s\npolicies:\n  p:\n    max_attempts: \"\x1b[31m\xe2\x80\xae\"\n";

}  // namespace

TEST_CASE("lint text and github output never carry terminal controls from the file",
          "[lint][output]") {
    const LintReport report = report_for("dir/\x1b]0;title\x07.yaml", kHostileValue);
    const std::string text = format_text(report, TextOptions{true});
    const std::string github = format_github(report);
    for (const std::string& out : {text, github}) {
        INFO(out);
        CHECK(out.find('\x1b') == std::string::npos);
        CHECK(out.find('\x07') == std::string::npos);
        CHECK(out.find("\xe2\x80\xae") == std::string::npos);
        CHECK(out.find("dir/\\e]0;title\\x07.yaml") != std::string::npos);
    }
    CHECK(text.find("\\u202e") != std::string::npos);  // the echoed source line
}

TEST_CASE("lint JSON and SARIF are valid for a file name that is not UTF-8, URIs encoded",
          "[lint][output]") {
    const LintReport report = report_for("my dir/50%\xff#1.yaml", kHostileValue);
    const nlohmann::json json = nlohmann::json::parse(format_json(report));
    CHECK(json["diagnostics"][0]["file"] == "my dir/50%\xef\xbf\xbd#1.yaml");  // U+FFFD
    const nlohmann::json sarif = nlohmann::json::parse(format_sarif(report));
    CHECK(sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
               ["uri"] == "my%20dir/50%25%FF%231.yaml");
}
