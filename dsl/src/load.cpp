#include "rebound/dsl/load.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string_view>
#include <tuple>

#include "rebound/dsl/parse.hpp"

namespace rebound::dsl {
namespace {

// Files larger than this are refused rather than read into memory.
constexpr std::uintmax_t kMaxFileBytes = 64u * 1024u * 1024u;

Diagnostic unreadable(const std::string& file, std::string message) {
    Diagnostic d;
    d.code = DiagnosticCode::UnreadableFile;
    d.message = std::move(message);
    d.file = file;
    return d;
}

// True when `inner` is `outer` or a value inside it ("policies.p.backoff.delay" is inside
// "policies.p.backoff"). An empty path stands for the whole document.
bool is_within(std::string_view inner, std::string_view outer) {
    if (outer.empty()) {
        return true;
    }
    return inner.starts_with(outer) && (inner.size() == outer.size() || inner[outer.size()] == '.');
}

// A compile finding that only echoes a parse error: the parser reported the value (or the whole
// document) as unreadable and left it absent, so "missing" or "invalid" findings about the same
// value, a value containing it, or a value inside it say nothing new. Parse errors without a
// field path (broken syntax) make the whole document unreliable.
bool echoes_parse_error(const Diagnostic& finding, const Diagnostics& parse_errors) {
    for (const Diagnostic& error : parse_errors) {
        if (error.severity != Severity::Error) {
            continue;
        }
        if (is_within(finding.field, error.field) || is_within(error.field, finding.field)) {
            return true;
        }
    }
    return false;
}

std::string join_errors(const Diagnostics& diagnostics, std::string_view source) {
    std::string text;
    for (const Diagnostic& d : diagnostics) {
        if (d.severity == Severity::Error) {
            text += (text.empty() ? "" : "\n") + format_diagnostic(d, source);
        }
    }
    return text.empty() ? "policy file failed to load" : text;
}

// By line, then column, as `rebound lint` prints them; diagnostics about the whole file (no
// position) first. Stable, so that two findings at one place keep the order they were found in.
void sort_in_file_order(Diagnostics& diagnostics) {
    std::stable_sort(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic& a, const Diagnostic& b) {
                         return std::tie(a.position.line, a.position.column) <
                                std::tie(b.position.line, b.position.column);
                     });
}

}  // namespace

LoadResult load_text(std::string_view text, std::string_view file, Syntax syntax,
                     const PolicyCompileOptions& options) {
    LoadResult result;
    result.source = std::string(text);
    ParseResult parsed = parse(result.source, file, syntax);
    result.document = std::move(parsed.document);
    result.diagnostics = std::move(parsed.diagnostics);
    // Compile even after parse errors: the validator's findings on the readable parts are
    // reported too (except those that only echo a parse error), but no policy set comes out of a
    // file with any error.
    const Diagnostics parse_diagnostics = result.diagnostics;
    CompileResult compiled = compile(result.document, options);
    for (Diagnostic& finding : compiled.diagnostics) {
        if (!echoes_parse_error(finding, parse_diagnostics)) {
            result.diagnostics.push_back(std::move(finding));
        }
    }
    sort_in_file_order(result.diagnostics);
    if (!has_errors(result.diagnostics)) {
        result.policy_set = std::move(compiled.policy_set);
    }
    return result;
}

LoadResult load_file(const std::filesystem::path& path, const PolicyCompileOptions& options) {
    const std::string file = path.generic_string();
    LoadResult result;
    result.document.file = file;
    const std::optional<Syntax> syntax = syntax_for_path(file);
    if (!syntax) {
        result.diagnostics.push_back(
            unreadable(file, "unknown policy file extension: use .yaml, .yml, .json or .rebound"));
        return result;
    }
    std::error_code error;
    const std::uintmax_t size = std::filesystem::file_size(path, error);
    if (error) {
        result.diagnostics.push_back(unreadable(file, "cannot read file: " + error.message()));
        return result;
    }
    if (size > kMaxFileBytes) {
        result.diagnostics.push_back(unreadable(file, "file is larger than 64 MiB"));
        return result;
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
        result.diagnostics.push_back(unreadable(file, "cannot read file"));
        return result;
    }
    return load_text(text.str(), file, *syntax, options);
}

LoadError::LoadError(Diagnostics diagnostics, std::string_view source)
    : std::runtime_error(join_errors(diagnostics, source)), diagnostics_(std::move(diagnostics)) {}

std::shared_ptr<const PolicySet> load_file_or_throw(const std::filesystem::path& path,
                                                    const PolicyCompileOptions& options) {
    LoadResult result = load_file(path, options);
    if (!result.policy_set) {
        throw LoadError(std::move(result.diagnostics), result.source);
    }
    return std::move(result.policy_set);
}

}  // namespace rebound::dsl
