// Output formats of `rebound lint` (docs/cli.md) and the exit decision.
//
//   text    one line per finding, sorted; with sources, the source line and a caret below it
//   json    {"files", "errors", "warnings", "notes", "diagnostics": [...]}
//   sarif   SARIF 2.1.0, one run, every rule of the registry listed with its help and docs URI
//   github  GitHub Actions workflow commands (::error file=...,line=...::message)
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "rebound/lint/linter.hpp"

namespace rebound::lint {

enum class OutputFormat { Text, Json, Sarif, Github };

std::optional<OutputFormat> parse_output_format(std::string_view word) noexcept;

struct TextOptions {
    bool show_source = true;  // the source line and a caret under each finding
};

std::string format_text(const LintReport& report, const TextOptions& options = {});
std::string format_json(const LintReport& report);
std::string format_sarif(const LintReport& report,
                         const RuleRegistry& registry = RuleRegistry::standard());
std::string format_github(const LintReport& report);

// The level from which findings fail the run; nullopt is `never`.
using FailOn = std::optional<Severity>;

// Parses `error`, `warning`, `note` or `never`; returns false for anything else.
bool parse_fail_on(std::string_view word, FailOn& out) noexcept;

// True when any finding is at or above `fail_on`.
bool fails(const LintReport& report, FailOn fail_on) noexcept;

}  // namespace rebound::lint
