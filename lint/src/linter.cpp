#include "rebound/lint/linter.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "make_finding.hpp"
#include "policy_file.hpp"
#include "rebound/dsl/call_graph.hpp"
#include "rebound/dsl/compile.hpp"
#include "rebound/dsl/input_limits.hpp"
#include "rebound/dsl/load.hpp"
#include "rebound/dsl/vendor_map_loader.hpp"
#include "rebound/lint/policy_file_search.hpp"
#include "rules/call_graph_rules.hpp"
#include "suppression.hpp"

namespace rebound::lint {
namespace {

namespace fs = std::filesystem;

Finding from_diagnostic(const dsl::Diagnostic& d) {
    Finding finding;
    finding.code = std::string(dsl::code_id(d.code));
    finding.rule = std::string(dsl::rule_name(d.code));
    finding.severity = d.severity;
    finding.message = d.message;
    finding.file = d.file;
    finding.position = d.position;
    finding.suggestion = d.suggestion;
    return finding;
}

// Applies the configured severities; drops findings of rules that are off.
void apply_settings(Findings& findings, const LintSettings& settings,
                    const RuleRegistry& registry) {
    std::erase_if(findings, [&](Finding& finding) {
        const Rule* rule = registry.find(finding.code);
        if (!rule || rule->info.origin == RuleOrigin::Compiler) {
            return false;
        }
        const std::optional<Severity> severity = settings.severity_of(rule->info);
        if (!severity) {
            return true;
        }
        // A configured severity wins; otherwise the finding keeps the one its rule gave it (the
        // rule's default, or its own choice for this finding).
        if (settings.severities.contains(rule->info.code)) {
            finding.severity = *severity;
        }
        return false;
    });
}

// Vendor maps (policies/vendors/*.yaml) open with the top-level key `rebound_vendor_map:`.
bool is_vendor_map(std::string_view source) {
    constexpr std::string_view kMarker = "rebound_vendor_map:";
    for (std::size_t at = source.find(kMarker); at != std::string_view::npos;
         at = source.find(kMarker, at + 1)) {
        if (at == 0 || source[at - 1] == '\n') {
            return true;
        }
    }
    return false;
}

// RB003 for each file whose service an earlier file of the same directory already names.
void report_duplicate_services(std::vector<FileReport>& files, const RuleRegistry& registry) {
    std::map<std::pair<std::string, std::string>, std::string> first_file;  // (dir, service)
    for (FileReport& report : files) {
        if (report.service.empty()) {
            continue;
        }
        const std::string directory = fs::path(report.file).parent_path().generic_string();
        const auto [it, inserted] =
            first_file.try_emplace({directory, report.service}, report.file);
        if (inserted) {
            continue;
        }
        report.findings.push_back(
            make_finding(registry, dsl::code_id(dsl::DiagnosticCode::DuplicateKey), report.file,
                         report.service_position,
                         "service '" + report.service + "' is already defined in " + it->second +
                             "; a policy directory holds each service once",
                         "give each file of a directory its own service name"));
        sort_findings(report.findings);
    }
}

// The position just past the last character of `source`'s last line (columns count code
// points, as every position does): it sorts after every finding of the file.
SourcePosition end_of(std::string_view source) {
    if (source.ends_with('\n')) {
        source.remove_suffix(1);
    }
    SourcePosition end{1, 1};
    for (const char c : source) {
        if (c == '\n') {
            ++end.line;
            end.column = 1;
        } else if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) {
            ++end.column;
        }
    }
    return end;
}

// Bounds what one file reports, whatever its findings come from (compiler, rules, suppressions,
// the call graph): at most dsl::kMaxDiagnostics findings, the most severe first (errors, then
// warnings, then notes, each in file order), and, when any were left out here or by the
// compiler (`compiler_left_out`, whose own count is not among `findings`), one final note that
// says how many. `findings` is sorted, and stays so.
void cap_findings(Findings& findings, std::size_t compiler_left_out, const std::string& file,
                  std::string_view source, const RuleRegistry& registry) {
    std::size_t left_out = compiler_left_out;
    if (findings.size() > dsl::kMaxDiagnostics) {
        std::stable_sort(findings.begin(), findings.end(), [](const Finding& a, const Finding& b) {
            return static_cast<int>(a.severity) < static_cast<int>(b.severity);
        });
        left_out += findings.size() - dsl::kMaxDiagnostics;
        findings.resize(dsl::kMaxDiagnostics);
        sort_findings(findings);
    }
    if (left_out == 0) {
        return;
    }
    Finding note = make_finding(
        registry, dsl::code_id(dsl::DiagnosticCode::LimitExceeded), file, end_of(source),
        std::to_string(left_out) + " more findings were left out (at most " +
            std::to_string(dsl::kMaxDiagnostics) + " are reported for one file, errors first)",
        "fix the ones shown and lint again");
    note.severity = Severity::Note;
    findings.push_back(std::move(note));
}

}  // namespace

Linter::Linter(LintSettings settings, const RuleRegistry& registry)
    : settings_(std::move(settings)), registry_(registry) {}

FileReport Linter::lint_file(const fs::path& path) const {
    return lint_alone(dsl::load_file(path), path.generic_string());
}

FileReport Linter::lint_text(std::string_view text, std::string_view file,
                             dsl::Syntax syntax) const {
    return lint_alone(dsl::load_text(text, file, syntax), std::string(file));
}

// One file is its own call graph.
FileReport Linter::lint_alone(dsl::LoadResult loaded, std::string file) const {
    LoadedFile prepared = prepare(std::move(loaded), std::move(file));
    std::vector<std::vector<dsl::CallGraphNode>> nodes(1);
    nodes[0] = call_graph_nodes_of(prepared);
    Findings cross_file =
        std::move(rules::call_graph_findings(std::move(nodes), settings_, registry_)[0]);
    return finish(std::move(prepared), std::move(cross_file));
}

Linter::LoadedFile Linter::prepare(dsl::LoadResult loaded, std::string file) const {
    LoadedFile prepared;
    prepared.file = std::move(file);
    prepared.vendor_map = is_vendor_map(loaded.source);
    prepared.unreadable = std::any_of(
        loaded.diagnostics.begin(), loaded.diagnostics.end(),
        [](const dsl::Diagnostic& d) { return d.code == dsl::DiagnosticCode::UnreadableFile; });
    prepared.compiled = loaded.policy_set != nullptr;
    if (!prepared.unreadable && !prepared.vendor_map) {
        // A file with errors still gets the semantic rules on the policies that did compile.
        prepared.checked = prepared.compiled
                               ? loaded.policy_set
                               : dsl::compile_valid_parts(loaded.document, loaded.diagnostics);
    }
    prepared.loaded = std::move(loaded);
    return prepared;
}

std::vector<dsl::CallGraphNode> Linter::call_graph_nodes_of(const LoadedFile& file) {
    if (!file.checked) {
        return {};
    }
    return dsl::call_graph_nodes(file.loaded.document, *file.checked, file.file);
}

FileReport Linter::finish(LoadedFile prepared, Findings cross_file) const {
    dsl::LoadResult& loaded = prepared.loaded;
    FileReport report;
    report.file = std::move(prepared.file);
    report.source = std::move(loaded.source);
    report.unreadable = prepared.unreadable;
    if (loaded.document.service) {
        report.service = loaded.document.service->value;
        report.service_position = loaded.document.service->position;
    }
    Findings findings;
    // The compiler's own "N more were left out" is replaced by the one cap_findings adds.
    const std::size_t compiler_left_out = loaded.diagnostics_left_out;
    const std::size_t kept = loaded.diagnostics.size() - (compiler_left_out > 0 ? 1 : 0);
    for (std::size_t i = 0; i < kept; ++i) {
        findings.push_back(from_diagnostic(loaded.diagnostics[i]));
    }
    if (report.unreadable) {
        report.findings = std::move(findings);
        return report;
    }
    if (prepared.vendor_map) {
        // Checked by the vendor-map loader instead of the policy compiler; its diagnostics use
        // the same codes, so they are compiler rules here too.
        findings.clear();
        const dsl::VendorMapLoadResult vendor_map =
            dsl::load_vendor_map_sources({dsl::VendorMapSource{report.file, report.source}});
        for (const dsl::Diagnostic& d : vendor_map.diagnostics) {
            findings.push_back(from_diagnostic(d));
        }
        SuppressionScan scan = scan_suppressions(report.source, report.file, registry_);
        findings.insert(findings.end(), scan.problems.begin(), scan.problems.end());
        apply_settings(findings, settings_, registry_);
        sort_findings(findings);
        cap_findings(findings, 0, report.file, report.source, registry_);
        report.findings = std::move(findings);
        return report;
    }
    const bool compiled = prepared.compiled;
    const std::shared_ptr<const PolicySet>& checked = prepared.checked;
    if (checked && !checked->policies().empty()) {
        const PolicyFileContext context(loaded.document, checked, settings_, report.source);
        for (const Rule& rule : registry_.rules()) {
            if (rule.check && settings_.severity_of(rule.info)) {
                RuleReporter reporter(rule.info, report.file, findings);
                rule.check(context, reporter);
            }
        }
    }
    findings.insert(findings.end(), std::make_move_iterator(cross_file.begin()),
                    std::make_move_iterator(cross_file.end()));
    SuppressionScan scan = scan_suppressions(report.source, report.file, registry_);
    apply_suppressions(scan.suppressions, findings, registry_);
    // Unused suppressions are only known when every rule ran on a compiled file; a suppression
    // of a rule that is turned off is not unused, merely idle.
    if (compiled) {
        for (const Suppression& suppression : scan.suppressions) {
            for (std::size_t i = 0; i < suppression.codes.size(); ++i) {
                const Rule* rule = registry_.find(suppression.codes[i]);
                if (suppression.used[i] || !rule || !settings_.severity_of(rule->info)) {
                    continue;
                }
                findings.push_back(make_finding(
                    registry_, rule_code::kUnusedSuppression, report.file, suppression.position,
                    "suppression of " + suppression.codes[i] + " " + std::string(rule->info.name) +
                        " silences nothing" +
                        (suppression.scope == Suppression::Scope::NextLine
                             ? " on line " + std::to_string(suppression.target_line)
                             : " in this file"),
                    "remove it"));
            }
        }
    }
    findings.insert(findings.end(), scan.problems.begin(), scan.problems.end());
    apply_settings(findings, settings_, registry_);
    sort_findings(findings);
    cap_findings(findings, compiler_left_out, report.file, report.source, registry_);
    report.findings = std::move(findings);
    return report;
}

LintReport Linter::lint_paths(const std::vector<std::string>& paths) const {
    // Every file is loaded before any is finished: the call graph spans them all.
    const PolicyFileSearch search = find_policy_files(paths);
    std::vector<LoadedFile> loaded;
    std::vector<std::vector<dsl::CallGraphNode>> nodes;
    for (const std::string& file : search.files) {
        loaded.push_back(prepare(dsl::load_file(file), file));
        nodes.push_back(call_graph_nodes_of(loaded.back()));
    }
    std::vector<Findings> cross_file =
        rules::call_graph_findings(std::move(nodes), settings_, registry_);
    LintReport report;
    for (std::size_t i = 0; i < loaded.size(); ++i) {
        report.files.push_back(finish(std::move(loaded[i]), std::move(cross_file[i])));
    }
    for (const dsl::Diagnostic& problem : search.problems) {
        FileReport unreadable;
        unreadable.file = problem.file;
        unreadable.unreadable = true;
        unreadable.findings.push_back(from_diagnostic(problem));
        report.files.push_back(std::move(unreadable));
    }
    report_duplicate_services(report.files, registry_);
    return report;
}

std::vector<std::string> collect_policy_files(const std::vector<std::string>& paths) {
    return find_policy_files(paths).files;
}

Findings LintReport::all_findings() const {
    Findings all = config_findings;
    for (const FileReport& file : files) {
        all.insert(all.end(), file.findings.begin(), file.findings.end());
    }
    sort_findings(all);
    return all;
}

std::string_view LintReport::source_of(std::string_view file) const noexcept {
    if (file == config_file) {
        return config_source;
    }
    for (const FileReport& report : files) {
        if (report.file == file) {
            return report.source;
        }
    }
    return {};
}

bool LintReport::any_unreadable() const noexcept {
    return std::any_of(files.begin(), files.end(),
                       [](const FileReport& file) { return file.unreadable; });
}

}  // namespace rebound::lint
