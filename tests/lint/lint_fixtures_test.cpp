// Fixture-driven tests of every lint rule (the actionlint / Ruff layout):
//
//   tests/lint/CODE-name/bad-*.{yaml,yml,json,rebound,txt}   files the rule must report
//   tests/lint/CODE-name/bad-*.EXT.expected                  the exact findings (text, no source)
//   tests/lint/CODE-name/good-*.EXT                          files the rule must stay silent on
//   tests/lint/CODE-name/*.rebound-lint.yaml                 lint configurations, linted as such
//   tests/lint/CODE-name/.rebound-lint.yaml                  optional settings for the folder
//   tests/lint/realistic/*                                   sensible policies: no rule reports
//
// Every registered rule must have a fixture folder with at least one bad and one good file and a
// documentation page docs/rules/CODE-name.md with the sections every page has.
// REBOUND_UPDATE_LINT_FIXTURES=1 rewrites the .expected files (review the diff before keeping it).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "rebound/lint/config.hpp"
#include "rebound/lint/linter.hpp"
#include "rebound/lint/output.hpp"

namespace fs = std::filesystem;
using namespace rebound::lint;

namespace {

const fs::path kFixtures = REBOUND_LINT_FIXTURE_DIR;
const fs::path kDocs = REBOUND_DOCS_DIR;
const fs::path kRealistic = kFixtures / "realistic";
constexpr std::string_view kConfigSuffix = ".rebound-lint.yaml";
constexpr std::string_view kResilienceVector = "06-resilience";

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

fs::path folder_of(const RuleInfo& rule) {
    return kFixtures / (std::string(rule.code) + "-" + std::string(rule.name));
}

bool is_config_fixture(const fs::path& file) {
    return file.filename().string().ends_with(kConfigSuffix);
}

std::vector<fs::path> fixtures(const fs::path& folder, std::string_view prefix) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(folder)) {
        const std::string name = entry.path().filename().string();
        if (name.starts_with(prefix) && !name.ends_with(".expected")) {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

LintSettings folder_settings(const fs::path& folder) {
    const fs::path config = folder / std::string(kConfigFileName);
    if (!fs::exists(config)) {
        return {};
    }
    ConfigResult result = load_config_file(config);
    INFO(format_text(LintReport{{}, result.findings, "", ""}));
    REQUIRE(result.findings.empty());
    return result.settings;
}

// The findings for one fixture file, as the text format prints them without sources, with
// paths relative to the fixture folder.
Findings lint_fixture(const fs::path& file, const LintSettings& settings) {
    Findings findings;
    const std::string given = file.generic_string();
    if (is_config_fixture(file)) {
        findings = load_config_file(file).findings;
    } else {
        findings = Linter(settings).lint_file(file).findings;
    }
    const std::string prefix = file.parent_path().generic_string() + "/";
    for (Finding& finding : findings) {
        if (finding.file.starts_with(prefix)) {
            finding.file.erase(0, prefix.size());
        }
    }
    return findings;
}

std::string render(const Findings& findings) {
    LintReport report;
    report.config_findings = findings;  // any list renders the same way
    return format_text(report, TextOptions{false});
}

bool has_rule(const Findings& findings, std::string_view code) {
    return std::any_of(findings.begin(), findings.end(),
                       [&](const Finding& f) { return f.code == code; });
}

}  // namespace

TEST_CASE("lint fixtures: every rule has a fixture folder and a documentation page",
          "[lint][fixtures]") {
    for (const Rule& rule : RuleRegistry::standard().rules()) {
        INFO("rule " << rule.info.code << " " << rule.info.name);
        const fs::path folder = folder_of(rule.info);
        CHECK(fs::is_directory(folder));
        if (fs::is_directory(folder)) {
            CHECK_FALSE(fixtures(folder, "bad").empty());
            CHECK_FALSE(fixtures(folder, "good").empty());
        }
        const fs::path page = kDocs / fs::path(docs_path(rule.info)).filename();
        REQUIRE(fs::is_regular_file(page));
        const std::string text = read_file(page);
        CHECK(text.find("# " + std::string(rule.info.code) + " " + std::string(rule.info.name)) !=
              std::string::npos);
        for (const char* section : {"## What it finds", "## Why it matters", "## Bad", "## Good",
                                    "## How to silence", "## References"}) {
            INFO("section " << section);
            CHECK(text.find(section) != std::string::npos);
        }
        CHECK_FALSE(rule.info.summary.empty());
        CHECK_FALSE(rule.info.help.empty());
    }
}

TEST_CASE("lint fixtures: every fixture folder belongs to a registered rule", "[lint][fixtures]") {
    for (const auto& entry : fs::directory_iterator(kFixtures)) {
        if (!entry.is_directory() || entry.path() == kRealistic) {
            continue;
        }
        const std::string name = entry.path().filename().string();
        const std::string code = name.substr(0, name.find('-'));
        const Rule* rule = RuleRegistry::standard().find(code);
        INFO("folder " << name);
        REQUIRE(rule != nullptr);
        CHECK(name == std::string(rule->info.code) + "-" + std::string(rule->info.name));
    }
}

TEST_CASE("lint fixtures: bad fixtures report exactly the expected findings", "[lint][fixtures]") {
    const bool update = std::getenv("REBOUND_UPDATE_LINT_FIXTURES") != nullptr;
    for (const Rule& rule : RuleRegistry::standard().rules()) {
        const fs::path folder = folder_of(rule.info);
        if (!fs::is_directory(folder)) {
            continue;  // reported by the test above
        }
        const LintSettings settings = folder_settings(folder);
        for (const fs::path& file : fixtures(folder, "bad")) {
            INFO("fixture " << file.generic_string());
            const Findings findings = lint_fixture(file, settings);
            CHECK(has_rule(findings, rule.info.code));
            const std::string actual = render(findings);
            const fs::path expected_file = file.string() + ".expected";
            if (update) {
                std::ofstream(expected_file, std::ios::binary) << actual;
            }
            REQUIRE(fs::is_regular_file(expected_file));
            CHECK(actual == read_file(expected_file));
        }
    }
}

TEST_CASE("lint fixtures: good fixtures stay silent for their rule", "[lint][fixtures]") {
    for (const Rule& rule : RuleRegistry::standard().rules()) {
        const fs::path folder = folder_of(rule.info);
        if (!fs::is_directory(folder)) {
            continue;
        }
        const LintSettings settings = folder_settings(folder);
        for (const fs::path& file : fixtures(folder, "good")) {
            INFO("fixture " << file.generic_string());
            const Findings findings = lint_fixture(file, settings);
            INFO(render(findings));
            CHECK_FALSE(has_rule(findings, rule.info.code));
        }
    }
}

TEST_CASE("lint fixtures: realistic policies written to the tier guidance lint clean",
          "[lint][fixtures]") {
    std::size_t files = 0;
    for (const std::string& file : collect_policy_files({kRealistic.string()})) {
        INFO("fixture " << file);
        const Findings findings = Linter().lint_file(file).findings;
        INFO(render(findings));
        CHECK(findings.empty());
        ++files;
    }
    CHECK(files >= 4);
}

// The rules from RB318 on (issue 19) judge timing, amplification and settings that cannot take
// effect. They must not report on any sensible policy: the good fixtures of every rule, the
// shipped tiers, the examples and the conformance vectors of the implemented version. Rules up
// to RB317 are left out: some of those files show their findings on purpose (the conformance
// vectors test the format, not good practice).
TEST_CASE("lint fixtures: the rules from RB318 on stay silent on sensible policies",
          "[lint][fixtures]") {
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(kFixtures)) {
        if (entry.is_directory() && entry.path() != kRealistic) {
            for (const fs::path& good : fixtures(entry.path(), "good")) {
                if (!is_config_fixture(good)) {
                    files.push_back(good.string());
                }
            }
        }
    }
    for (const std::string& shipped :
         collect_policy_files({REBOUND_POLICIES_DIR, REBOUND_EXAMPLES_DIR})) {
        files.push_back(shipped);
    }
    const fs::path conformance = fs::path(REBOUND_SPEC_DIR) / "conformance";
    const std::size_t first_vector = files.size();
    for (const auto& entry : fs::directory_iterator(conformance)) {
        const std::string name = entry.path().filename().string();
        // 06-resilience shows the version-2 findings on purpose: the next test case covers it.
        if (entry.is_regular_file() && !name.starts_with(kResilienceVector) &&
            (name.ends_with(".yaml") || name.ends_with(".rebound"))) {
            files.push_back(entry.path().string());
        }
    }
    CHECK(files.size() > 40);
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string& file = files[i];
        const bool vector = i >= first_vector;
        INFO("file " << file);
        Findings findings = Linter().lint_file(file).findings;
        // RB329 unitless-duration is about how a value is written, not about timing: the
        // conformance vectors write a bare integer on purpose (01-fixed.yaml). They also pin
        // schedules without time limits for policies that match HTTP statuses (02-linear,
        // 04-tiers' outbox_publish), which RB341 protocol-call-without-timeout reports; its own
        // fixtures, the shipped policies and the examples must still be clean of it.
        std::erase_if(findings, [vector](const Finding& f) {
            return f.code < "RB318" || f.code == "RB329" || (vector && f.code == "RB341");
        });
        INFO(render(findings));
        CHECK(findings.empty());
    }
}

// The version-2 conformance vector exercises breakers, server delays, calls and redeliveries, and
// states some of them in ways the rules from RB318 on must report: a breaker that trips on 4
// calls (RB333), a policy that retries gRPC UNAVAILABLE with neither deadline nor
// attempt_timeout (RB341), a policy that ignores Retry-After while retrying throttling (RB335), a
// batch layer of 6 attempts x 5 deliveries (RB338), and a call to 'ledger.post', which the vector
// leaves to another service's file (RB340). Each syntax gets exactly these, at these places.
TEST_CASE("lint fixtures: the version-2 conformance vector gets exactly its expected findings",
          "[lint][fixtures]") {
    // CODE line:column, in the order lint reports them.
    const std::vector<std::pair<std::string, std::vector<std::string>>> vectors{
        {".yaml", {"RB333 6:20", "RB341 33:27", "RB335 34:26", "RB340 36:66", "RB338 38:3"}},
        {".rebound", {"RB333 5:21", "RB341 36:23", "RB335 37:16", "RB340 40:56", "RB338 42:9"}},
    };
    for (const auto& [extension, expected] : vectors) {
        const fs::path file = fs::path(REBOUND_SPEC_DIR) / "conformance" /
                              (std::string(kResilienceVector) + extension);
        INFO("file " << file.string());
        REQUIRE(fs::exists(file));
        Findings findings = Linter().lint_file(file.string()).findings;
        INFO(render(findings));
        std::erase_if(findings, [](const Finding& f) { return f.code < "RB318"; });
        std::vector<std::string> found;
        for (const Finding& finding : findings) {
            found.push_back(finding.code + " " + std::to_string(finding.position.line) + ":" +
                            std::to_string(finding.position.column));
        }
        CHECK(found == expected);
        for (const Finding& finding : findings) {
            if (finding.code == "RB340") {
                CHECK(finding.severity == Severity::Note);
                CHECK(finding.message.find("'ledger.post'") != std::string::npos);
            }
        }
    }
}
