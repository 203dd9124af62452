#include "rebound/lint/finding.hpp"

#include <algorithm>
#include <tuple>

#include "rebound/dsl/text_toolkit/source_echo.hpp"
#include "rebound/output_text.hpp"

namespace rebound::lint {

void sort_findings(Findings& findings) {
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        return std::tie(a.file, a.position.line, a.position.column, a.code) <
               std::tie(b.file, b.position.line, b.position.column, b.code);
    });
}

std::string finding_headline(const Finding& finding) {
    std::string text = printable(finding.file);
    if (finding.position.known()) {
        text += ":" + std::to_string(finding.position.line) + ":" +
                std::to_string(finding.position.column);
    }
    text += ": " + std::string(dsl::to_string(finding.severity)) + ": " +
            printable(finding.message) + " [" + finding.code + " " + finding.rule + "]";
    return text;
}

std::string format_finding(const Finding& finding, std::string_view source) {
    std::string text = finding_headline(finding) + dsl::source_echo(source, finding.position);
    if (!finding.suggestion.empty()) {
        text += "\n    " + printable(finding.suggestion);
    }
    return text;
}

SeverityCounts count_by_severity(const Findings& findings) noexcept {
    SeverityCounts counts;
    for (const Finding& finding : findings) {
        switch (finding.severity) {
            case Severity::Error:
                ++counts.errors;
                break;
            case Severity::Warning:
                ++counts.warnings;
                break;
            case Severity::Note:
                ++counts.notes;
                break;
        }
    }
    return counts;
}

}  // namespace rebound::lint
