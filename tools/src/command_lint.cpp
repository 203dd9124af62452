// rebound lint [--format text|json|sarif|github] [--fail-on LEVEL] [--disable RULE,...]
//              [--config FILE] [--handlers FILE] [--no-source] PATH...
//
// Runs rebound::lint on every policy file named or found under the directories named. Exit
// codes (docs/cli.md): 0 nothing at the failing level, 1 findings at or above --fail-on, 2 usage
// error, unreadable file or broken configuration, 3 internal failure.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli_support.hpp"
#include "line_reader.hpp"
#include "rebound/lint/config.hpp"
#include "rebound/lint/linter.hpp"
#include "rebound/lint/output.hpp"

namespace rebound::cli {
namespace {

namespace fs = std::filesystem;

struct LintOptions {
    std::vector<std::string> paths;
    std::string format = "text";
    std::string fail_on = "error";
    std::vector<std::string> disable;
    std::string config;
    std::string handlers;
    bool no_source = false;
};

// Reads --handlers FILE (one registered handler name per line; blank lines and lines starting
// with '#' are skipped) into `settings`, a line at a time (LineReader: a line longer than its
// limit is refused). Returns false (after saying why) when it cannot be read.
bool load_handler_names(const std::string& file, lint::LintSettings& settings) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        std::cerr << "rebound lint: --handlers " << printable(file) << ": cannot read the file\n";
        return false;
    }
    std::vector<std::string> names;
    LineReader lines(*in.rdbuf());
    std::string line;
    for (;;) {
        const LineReader::Result read = lines.next(line);
        if (read == LineReader::Result::End) {
            break;
        }
        if (read == LineReader::Result::TooLong) {
            std::cerr << "rebound lint: --handlers " << lines.too_long_message(file) << '\n';
            return false;
        }
        const auto first = line.find_first_not_of(" \t\r");
        const auto last = line.find_last_not_of(" \t\r");
        if (first == std::string::npos || line[first] == '#') {
            continue;
        }
        names.push_back(line.substr(first, last - first + 1));
    }
    settings.handlers = std::move(names);
    return true;
}

// The configuration named by --config, else the nearest .rebound-lint.yaml. Returns false
// (after saying why) when --config names a file that does not exist.
bool load_configuration(const LintOptions& options, lint::ConfigResult& config,
                        std::string& config_file) {
    std::error_code error;
    if (!options.config.empty()) {
        if (!fs::is_regular_file(options.config, error)) {
            std::cerr << "rebound lint: --config " << options.config << ": no such file\n";
            return false;
        }
        config_file = fs::path(options.config).generic_string();
    } else if (const auto found = lint::find_config(fs::current_path(error))) {
        const fs::path relative = fs::relative(*found, fs::current_path(error), error);
        config_file = (error || relative.empty() ? *found : relative).generic_string();
    }
    if (!config_file.empty()) {
        config = lint::load_config_file(config_file);
    }
    return true;
}

// Turns the --disable rules off. Returns false (after saying why) for an unknown rule or a
// compiler rule, which cannot be disabled.
bool apply_disable(const std::vector<std::string>& names, lint::LintSettings& settings) {
    const lint::RuleRegistry& registry = lint::RuleRegistry::standard();
    for (const std::string& name : names) {
        const lint::Rule* rule = registry.find(name);
        if (!rule) {
            std::cerr << "rebound lint: --disable: unknown rule '" << name
                      << "': " << registry.suggest(name) << '\n';
            return false;
        }
        if (rule->info.origin == lint::RuleOrigin::Compiler) {
            std::cerr << "rebound lint: --disable: " << rule->info.code << ' ' << rule->info.name
                      << " is a compiler error and cannot be disabled: a file with it does not "
                         "load\n";
            return false;
        }
        settings.severities[std::string(rule->info.code)] = std::nullopt;
    }
    return true;
}

std::string render(const lint::LintReport& report, lint::OutputFormat format, bool show_source) {
    switch (format) {
        case lint::OutputFormat::Json:
            return lint::format_json(report);
        case lint::OutputFormat::Sarif:
            return lint::format_sarif(report);
        case lint::OutputFormat::Github:
            return lint::format_github(report);
        case lint::OutputFormat::Text:
            break;
    }
    return lint::format_text(report, lint::TextOptions{show_source});
}

int run_lint(const LintOptions& options) {
    lint::FailOn fail_on = lint::Severity::Error;
    const auto format = lint::parse_output_format(options.format);
    if (!format || !lint::parse_fail_on(options.fail_on, fail_on)) {
        return kExitUsage;  // unreachable: CLI11 checks both
    }
    lint::ConfigResult config;
    std::string config_file;
    if (!load_configuration(options, config, config_file)) {
        return kExitUsage;
    }
    if (!apply_disable(options.disable, config.settings)) {
        return kExitUsage;
    }
    if (!options.handlers.empty() && !load_handler_names(options.handlers, config.settings)) {
        return kExitUsage;
    }
    const lint::Linter linter(config.settings);
    lint::LintReport report = linter.lint_paths(options.paths);
    report.config_file = config_file;
    report.config_source = std::move(config.source);
    report.config_findings = std::move(config.findings);

    std::cout << render(report, *format, !options.no_source) << std::flush;
    if (*format == lint::OutputFormat::Text) {
        const lint::SeverityCounts counts = lint::count_by_severity(report.all_findings());
        std::cerr << report.files.size() << " file(s): " << counts.errors << " error(s), "
                  << counts.warnings << " warning(s), " << counts.notes << " note(s)\n";
    }
    const bool broken_config =
        std::any_of(report.config_findings.begin(), report.config_findings.end(),
                    [](const lint::Finding& f) { return f.severity == lint::Severity::Error; });
    if (report.any_unreadable() || broken_config) {
        return kExitUsage;
    }
    return lint::fails(report, fail_on) ? kExitInputErrors : kExitOk;
}

}  // namespace

void register_lint(CLI::App& app, CommandOutcome& outcome) {
    auto options = std::make_shared<LintOptions>();
    CLI::App* command = app.add_subcommand(
        "lint", "Check policy files: syntax, schema and semantic rules (docs/rules/)");
    command->add_option("PATH", options->paths, "Files or directories (searched recursively)")
        ->required();
    command->add_option("--format", options->format, "Output format (default text)")
        ->check(CLI::IsMember({"text", "json", "sarif", "github"}));
    command
        ->add_option("--fail-on", options->fail_on,
                     "Exit with 1 when a finding is at least this severe (default error)")
        ->check(CLI::IsMember({"error", "warning", "note", "never"}));
    command->add_option("--disable", options->disable, "Rules to turn off, by code or name")
        ->delimiter(',');
    command->add_option("--config", options->config,
                        "Lint configuration (default: .rebound-lint.yaml here or in a parent)");
    command->add_option("--handlers", options->handlers,
                        "File of handler names registered in code, one per line: exact "
                        "bindings naming none of them are reported (RB111)");
    command->add_flag("--no-source", options->no_source,
                      "Text format: one line per finding, without the source line and caret");
    command->callback([options, &outcome] { outcome.exit_code = run_lint(*options); });
}

}  // namespace rebound::cli
