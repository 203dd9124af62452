// rebound lint [--format text|json] PATH...
//
// Reports the compiler's syntax, schema and validation diagnostics for every policy file found.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <tuple>

#include "cli_support.hpp"
#include "explain_report.hpp"

namespace rebound::cli {
namespace {

namespace fs = std::filesystem;

struct LintOptions {
    std::vector<std::string> paths;
    std::string format = "text";
};

struct Finding {
    dsl::Diagnostic diagnostic;
    const std::string* source = nullptr;  // the file's text, for the caret
};

// Files named directly, and every policy file under named directories, sorted per directory.
// Returns false (after printing why) when a path does not exist.
bool collect_files(const std::vector<std::string>& paths, std::vector<std::string>& files) {
    for (const std::string& path : paths) {
        std::error_code error;
        if (fs::is_directory(path, error)) {
            std::vector<std::string> found;
            for (const auto& entry : fs::recursive_directory_iterator(path, error)) {
                const std::string name = entry.path().generic_string();
                if (entry.is_regular_file() && dsl::syntax_for_path(name)) {
                    found.push_back(name);
                }
            }
            std::sort(found.begin(), found.end());
            files.insert(files.end(), found.begin(), found.end());
        } else if (fs::exists(path, error)) {
            files.push_back(path);
        } else {
            std::cerr << "rebound lint: " << path << ": no such file or directory\n";
            return false;
        }
    }
    return true;
}

Json finding_json(const dsl::Diagnostic& d) {
    Json j{{"file", d.file},
           {"line", d.position.line},
           {"column", d.position.column},
           {"severity", std::string(dsl::to_string(d.severity))},
           {"code", std::string(dsl::code_id(d.code))},
           {"rule", std::string(dsl::rule_name(d.code))},
           {"message", d.message}};
    if (!d.suggestion.empty()) {
        j["suggestion"] = d.suggestion;
    }
    return j;
}

int run_lint(const LintOptions& options) {
    std::vector<std::string> files;
    if (!collect_files(options.paths, files)) {
        return kExitUsage;
    }
    std::vector<dsl::LoadResult> results;
    results.reserve(files.size());
    bool unreadable = false;
    for (const std::string& file : files) {
        results.push_back(dsl::load_file(file));
    }
    std::vector<Finding> findings;
    for (const dsl::LoadResult& result : results) {
        for (const dsl::Diagnostic& d : result.diagnostics) {
            unreadable = unreadable || d.code == dsl::DiagnosticCode::UnreadableFile;
            findings.push_back(Finding{d, &result.source});
        }
    }
    std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
        return std::tie(a.diagnostic.file, a.diagnostic.position.line, a.diagnostic.position.column) <
               std::tie(b.diagnostic.file, b.diagnostic.position.line, b.diagnostic.position.column);
    });
    std::size_t counts[3] = {0, 0, 0};
    for (const Finding& f : findings) {
        ++counts[static_cast<std::size_t>(f.diagnostic.severity)];
    }
    if (options.format == "json") {
        Json report{{"files", files.size()},
                    {"errors", counts[0]},
                    {"warnings", counts[1]},
                    {"notes", counts[2]},
                    {"diagnostics", Json::array()}};
        for (const Finding& f : findings) {
            report["diagnostics"].push_back(finding_json(f.diagnostic));
        }
        print_line(report.dump(1));
    } else {
        for (const Finding& f : findings) {
            print_line(dsl::format_diagnostic(f.diagnostic, *f.source));
        }
        std::cerr << files.size() << " file(s): " << counts[0] << " error(s), " << counts[1]
                  << " warning(s), " << counts[2] << " note(s)\n";
    }
    if (unreadable) {
        return kExitUsage;
    }
    return counts[0] > 0 ? kExitInputErrors : kExitOk;
}

}  // namespace

void register_lint(CLI::App& app, CommandOutcome& outcome) {
    auto options = std::make_shared<LintOptions>();
    CLI::App* command = app.add_subcommand("lint", "Check policy files for errors");
    command->add_option("PATH", options->paths, "Files or directories (searched recursively)")
        ->required();
    command->add_option("--format", options->format, "Output format")
        ->check(CLI::IsMember({"text", "json"}));
    command->callback([options, &outcome] { outcome.exit_code = run_lint(*options); });
}

}  // namespace rebound::cli
