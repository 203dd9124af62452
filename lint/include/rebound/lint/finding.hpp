// Finding: one problem `rebound lint` reports, with the rule that found it and its position.
//
// Compiler diagnostics (RB0xx, RB1xx) and lint rules (RB3xx) both end up as findings, so every
// output format and every control (severity overrides, suppressions, --fail-on) treats them alike.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/source_position.hpp"

namespace rebound::lint {

using dsl::Severity;
using dsl::SourcePosition;

struct Finding {
    std::string code;  // "RB301"
    std::string rule;  // "no-jitter"
    Severity severity = Severity::Warning;
    std::string message;      // what is wrong, with the computed numbers, and what would be right
    std::string file;         // as given on the command line, with '/' separators
    SourcePosition position;  // 1-based; unknown (0) for findings about a whole file
    std::string suggestion;   // optional: "did you mean 'no-jitter'?"

    friend bool operator==(const Finding&, const Finding&) = default;
};

using Findings = std::vector<Finding>;

// Sorts by file, line, column, then code: the order of every output format.
void sort_findings(Findings& findings);

// "file:line:col: severity: message [CODE rule]", without source line or suggestion.
std::string finding_headline(const Finding& finding);

// The headline, then (with `source`, the file's text) the source line with a caret under the
// column, then the suggestion on its own line.
std::string format_finding(const Finding& finding, std::string_view source = {});

struct SeverityCounts {
    std::size_t errors = 0;
    std::size_t warnings = 0;
    std::size_t notes = 0;
};

SeverityCounts count_by_severity(const Findings& findings) noexcept;

// The most severe level first: Error is more severe than Warning, Warning than Note.
constexpr bool at_least(Severity severity, Severity threshold) noexcept {
    return static_cast<int>(severity) <= static_cast<int>(threshold);
}

}  // namespace rebound::lint
