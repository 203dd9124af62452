// The linter: runs the compiler and every enabled rule on policy files, applies the settings
// and inline suppressions, and returns the findings.
//
//   rebound::lint::Linter linter(settings);
//   rebound::lint::LintReport report = linter.lint_paths({"policies"});
//   std::cout << rebound::lint::format_text(report);
//
// Suppressions, in YAML and DSL comments, each naming rules (code or name) and giving a reason:
//   # rebound: disable-next-line RB301 -- batch job, clients never start together
//   # rebound: disable-file no-jitter -- reason     (in the comment block that opens the file)
// A suppression that silences nothing is reported (RB315); one without rules or a reason, or in
// the wrong place, is reported (RB316); unknown rule names are reported (RB317).
//
// Vendor maps (YAML files whose top-level key `rebound_vendor_map:` marks them, as in
// policies/vendors/) are checked by the vendor-map loader (vendor_map_loader.hpp) instead of the
// policy compiler, and its diagnostics are reported as findings.
//
// A Linter is immutable after construction; its member functions may run on many threads.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/dsl/call_graph.hpp"
#include "rebound/dsl/load.hpp"
#include "rebound/dsl/syntax.hpp"
#include "rebound/lint/config.hpp"
#include "rebound/lint/finding.hpp"
#include "rebound/lint/rule.hpp"

namespace rebound::lint {

// The result of linting one file.
struct FileReport {
    std::string file;    // as given, '/' separators
    std::string source;  // the file's text (empty when unreadable), for carets
    Findings findings;   // sorted
    bool unreadable = false;
    std::string service;              // the file's `service`; empty without one
    SourcePosition service_position;  // of the service name
};

// The result of linting many files, plus the configuration's own findings.
struct LintReport {
    std::vector<FileReport> files;  // policy files, in the order linted
    Findings config_findings;       // problems in the configuration file
    std::string config_file;        // empty without one
    std::string config_source;

    // Every finding, sorted by file, line, column.
    Findings all_findings() const;
    // The text of `file` (policy or configuration file), or empty.
    std::string_view source_of(std::string_view file) const noexcept;
    bool any_unreadable() const noexcept;
};

class Linter {
  public:
    explicit Linter(LintSettings settings = {},
                    const RuleRegistry& registry = RuleRegistry::standard());

    // Lints one file; the syntax comes from its extension.
    FileReport lint_file(const std::filesystem::path& path) const;
    // Lints text as if read from `file`.
    FileReport lint_text(std::string_view text, std::string_view file, dsl::Syntax syntax) const;

    // Lints every file named and every policy file (.yaml .yml .json .rebound) found under the
    // directories named, each directory's files in sorted order. A path that does not exist is
    // reported as an unreadable file (RB109). A service named by two files of one directory,
    // which a policy directory refuses, is reported (RB003) at the later file's `service`.
    LintReport lint_paths(const std::vector<std::string>& paths) const;

    const LintSettings& settings() const noexcept { return settings_; }
    const RuleRegistry& registry() const noexcept { return registry_; }

  private:
    // A file loaded and compiled, before its rules run.
    struct LoadedFile {
        dsl::LoadResult loaded;
        std::string file;
        std::shared_ptr<const PolicySet> checked;  // what compiled, whole or in parts; or null
        bool compiled = false;                     // the whole file compiled
        bool unreadable = false;
        bool vendor_map = false;
    };
    FileReport lint_alone(dsl::LoadResult loaded, std::string file) const;
    LoadedFile prepare(dsl::LoadResult loaded, std::string file) const;
    static std::vector<dsl::CallGraphNode> call_graph_nodes_of(const LoadedFile& file);
    // Runs the per-file rules, adds `cross_file` (the call-graph findings of this file), applies
    // suppressions and settings.
    FileReport finish(LoadedFile prepared, Findings cross_file) const;

    LintSettings settings_;
    const RuleRegistry& registry_;
};

// The files `lint_paths` would lint (find_policy_files, policy_file_search.hpp): named files as
// given, directories searched recursively for .yaml, .yml, .json and .rebound files (JSON
// Schemas, `*.schema.json`, are skipped). Paths that do not exist are returned as they are
// (linting reports them). lint_paths also reports what the search could not read.
std::vector<std::string> collect_policy_files(const std::vector<std::string>& paths);

}  // namespace rebound::lint
