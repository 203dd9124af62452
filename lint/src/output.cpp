#include "rebound/lint/output.hpp"

#include <map>
#include <nlohmann/json.hpp>

#include "rebound/output_text.hpp"
#include "rebound/version.hpp"

namespace rebound::lint {
namespace {

using Json = nlohmann::ordered_json;

// The JSON text of `document`. Messages quote the user's text, which may not be UTF-8 (validation
// messages of the engine quote it as written): json_output makes such bytes U+FFFD.
std::string json_text(const Json& document) {
    return json_output(document, 1) + "\n";
}

constexpr std::string_view kSarifSchema = "https://json.schemastore.org/sarif-2.1.0.json";

std::map<std::string_view, std::string_view> sources_by_file(const LintReport& report) {
    std::map<std::string_view, std::string_view> sources;
    for (const FileReport& file : report.files) {
        sources.emplace(file.file, file.source);
    }
    if (!report.config_file.empty()) {
        sources.emplace(report.config_file, report.config_source);
    }
    return sources;
}

std::string_view sarif_level(Severity severity) {
    return dsl::to_string(severity);  // error, warning, note: the SARIF words too
}

// error, warning, and GitHub's `notice` for a note.
std::string_view github_command(Severity severity) {
    return severity == Severity::Note ? "notice" : dsl::to_string(severity);
}

// GitHub workflow command escaping: data escapes % CR LF; property values also : and ,.
std::string github_escape(std::string_view text, bool property) {
    std::string out;
    for (const char c : text) {
        switch (c) {
            case '%':
                out += "%25";
                break;
            case '\r':
                out += "%0D";
                break;
            case '\n':
                out += "%0A";
                break;
            case ':':
                out += property ? "%3A" : ":";
                break;
            case ',':
                out += property ? "%2C" : ",";
                break;
            default:
                out += c;
        }
    }
    return out;
}

// `path` as a relative URI reference (RFC 3986): every byte but the unreserved characters and
// '/' percent-encoded, so that spaces, '%', '#', '?' and bytes that are not UTF-8 survive.
std::string uri_reference(std::string_view path) {
    constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (const char c : path) {
        const auto byte = static_cast<unsigned char>(c);
        const bool unreserved = (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
                                (byte >= '0' && byte <= '9') || byte == '-' || byte == '.' ||
                                byte == '_' || byte == '~' || byte == '/';
        if (unreserved) {
            out += c;
        } else {
            out += '%';
            out += kHex[byte >> 4];
            out += kHex[byte & 0xF];
        }
    }
    return out;
}

Json sarif_rule(const RuleInfo& rule) {
    const std::string help = std::string(rule.help) + " See " + docs_uri(rule);
    return Json{{"id", rule.code},
                {"name", rule.name},
                {"shortDescription", {{"text", rule.summary}}},
                {"fullDescription", {{"text", rule.help}}},
                {"help",
                 {{"text", help},
                  {"markdown", std::string(rule.help) + "\n\n[" + std::string(rule.code) + " " +
                                   std::string(rule.name) + "](" + docs_uri(rule) + ")"}}},
                {"helpUri", docs_uri(rule)},
                {"defaultConfiguration", {{"level", sarif_level(rule.default_severity)}}}};
}

}  // namespace

std::optional<OutputFormat> parse_output_format(std::string_view word) noexcept {
    if (word == "text") {
        return OutputFormat::Text;
    }
    if (word == "json") {
        return OutputFormat::Json;
    }
    if (word == "sarif") {
        return OutputFormat::Sarif;
    }
    if (word == "github") {
        return OutputFormat::Github;
    }
    return std::nullopt;
}

std::string format_text(const LintReport& report, const TextOptions& options) {
    const auto sources = sources_by_file(report);
    std::string text;
    for (const Finding& finding : report.all_findings()) {
        std::string_view source;
        if (options.show_source) {
            if (const auto it = sources.find(finding.file); it != sources.end()) {
                source = it->second;
            }
        }
        text += format_finding(finding, source) + "\n";
    }
    return text;
}

std::string format_json(const LintReport& report) {
    const Findings findings = report.all_findings();
    const SeverityCounts counts = count_by_severity(findings);
    Json diagnostics = Json::array();
    for (const Finding& f : findings) {
        Json entry{{"file", f.file},
                   {"line", f.position.line},
                   {"column", f.position.column},
                   {"severity", dsl::to_string(f.severity)},
                   {"code", f.code},
                   {"rule", f.rule},
                   {"message", f.message}};
        if (!f.suggestion.empty()) {
            entry["suggestion"] = f.suggestion;
        }
        diagnostics.push_back(std::move(entry));
    }
    const Json document{{"files", report.files.size()},
                        {"errors", counts.errors},
                        {"warnings", counts.warnings},
                        {"notes", counts.notes},
                        {"diagnostics", std::move(diagnostics)}};
    return json_text(document);
}

std::string format_sarif(const LintReport& report, const RuleRegistry& registry) {
    Json rules = Json::array();
    std::map<std::string_view, std::size_t> rule_index;
    for (const Rule& rule : registry.rules()) {
        rule_index.emplace(rule.info.code, rules.size());
        rules.push_back(sarif_rule(rule.info));
    }
    Json results = Json::array();
    for (const Finding& f : report.all_findings()) {
        std::string text = f.message;
        if (!f.suggestion.empty()) {
            text += " (" + f.suggestion + ")";
        }
        // SARIF regions are 1-based; findings about a whole file point at its start.
        const std::uint32_t line = f.position.known() ? f.position.line : 1;
        const std::uint32_t column =
            f.position.known() && f.position.column > 0 ? f.position.column : 1;
        Json result{
            {"ruleId", f.code},
            {"level", sarif_level(f.severity)},
            {"message", {{"text", text}}},
            {"locations",
             Json::array({{{"physicalLocation",
                            {{"artifactLocation", {{"uri", uri_reference(f.file)}}},
                             {"region", {{"startLine", line}, {"startColumn", column}}}}}}})}};
        if (const auto it = rule_index.find(f.code); it != rule_index.end()) {
            result["ruleIndex"] = it->second;
        }
        results.push_back(std::move(result));
    }
    const Json document{{"$schema", kSarifSchema},
                        {"version", "2.1.0"},
                        {"runs", Json::array({{{"tool",
                                                {{"driver",
                                                  {{"name", "rebound"},
                                                   {"version", rebound::version()},
                                                   {"informationUri", project_uri()},
                                                   {"rules", std::move(rules)}}}}},
                                               {"columnKind", "unicodeCodePoints"},
                                               {"results", std::move(results)}}})}};
    return json_text(document);
}

std::string format_github(const LintReport& report) {
    std::string text;
    for (const Finding& f : report.all_findings()) {
        text += "::" + std::string(github_command(f.severity)) +
                " file=" + github_escape(printable(f.file), true);
        if (f.position.known()) {
            text += ",line=" + std::to_string(f.position.line) +
                    ",col=" + std::to_string(f.position.column);
        }
        text += ",title=" + github_escape(f.code + " " + f.rule, true) +
                "::" + github_escape(printable_lines(f.message), false);
        if (!f.suggestion.empty()) {
            text += github_escape("\n" + printable_lines(f.suggestion), false);
        }
        text += "\n";
    }
    return text;
}

bool parse_fail_on(std::string_view word, FailOn& out) noexcept {
    if (word == "error") {
        out = Severity::Error;
    } else if (word == "warning") {
        out = Severity::Warning;
    } else if (word == "note") {
        out = Severity::Note;
    } else if (word == "never") {
        out = std::nullopt;
    } else {
        return false;
    }
    return true;
}

bool fails(const LintReport& report, FailOn fail_on) noexcept {
    if (!fail_on) {
        return false;
    }
    const auto failing = [&](const Finding& f) { return at_least(f.severity, *fail_on); };
    for (const FileReport& file : report.files) {
        for (const Finding& f : file.findings) {
            if (failing(f)) {
                return true;
            }
        }
    }
    for (const Finding& f : report.config_findings) {
        if (failing(f)) {
            return true;
        }
    }
    return false;
}

}  // namespace rebound::lint
