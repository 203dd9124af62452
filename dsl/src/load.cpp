#include "rebound/dsl/load.hpp"

#include <algorithm>
#include <fstream>
#include <new>
#include <sstream>
#include <string_view>
#include <tuple>

#include "limits_check.hpp"
#include "rebound/dsl/input_limits.hpp"
#include "rebound/dsl/parse.hpp"

namespace rebound::dsl {
namespace {

Diagnostic about_file(DiagnosticCode code, const std::string& file, std::string message) {
    Diagnostic d;
    d.code = code;
    d.message = std::move(message);
    d.file = file;
    return d;
}

Diagnostic unreadable(const std::string& file, std::string message) {
    return about_file(DiagnosticCode::UnreadableFile, file, std::move(message));
}

// RB112 for input of `size` bytes; refused before it is read or parsed.
Diagnostic too_large(const std::string& file, std::uintmax_t size) {
    return *check_input_size(file, size, "a policy file");
}

// What load_text and load_file return when loading failed with an exception (std::bad_alloc
// included): one diagnostic, never the exception (docs/embedding.md).
LoadResult failed_with(const std::string& file, std::string_view what) {
    LoadResult result;
    result.document.file = file;
    result.diagnostics.push_back(about_file(DiagnosticCode::LimitExceeded, file,
                                            "loading the file failed: " + std::string(what)));
    return result;
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

// Drops a diagnostic that repeats the one before it (same code, place and text): a value
// refused once is refused again at each YAML alias that reuses it, and saying so a thousand
// times tells the reader nothing more. `diagnostics` is in file order.
void drop_repeats(Diagnostics& diagnostics) {
    const auto repeats = [](const Diagnostic& a, const Diagnostic& b) {
        return a.code == b.code && a.position == b.position && a.message == b.message &&
               a.suggestion == b.suggestion;
    };
    diagnostics.erase(std::unique(diagnostics.begin(), diagnostics.end(), repeats),
                      diagnostics.end());
}

LoadResult load_text_unguarded(std::string_view text, std::string_view file, Syntax syntax,
                               const PolicyCompileOptions& options) {
    LoadResult result;
    if (text.size() > kMaxInputBytes) {
        result.document.file = std::string(file);
        result.diagnostics.push_back(too_large(std::string(file), text.size()));
        return result;
    }
    result.source = std::string(text);
    ParseResult parsed = parse(result.source, file, syntax);
    result.document = std::move(parsed.document);
    result.diagnostics = std::move(parsed.diagnostics);
    detail::enforce_document_limits(result.document, result.diagnostics);
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
    drop_repeats(result.diagnostics);
    result.diagnostics_left_out = detail::cap_diagnostics(result.diagnostics, std::string(file));
    if (!has_errors(result.diagnostics)) {
        result.policy_set = std::move(compiled.policy_set);
    }
    return result;
}

LoadResult load_file_unguarded(const std::filesystem::path& path,
                               const PolicyCompileOptions& options) {
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
    if (size > kMaxInputBytes) {
        result.diagnostics.push_back(too_large(file, size));
        return result;
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) {
        result.diagnostics.push_back(unreadable(file, "cannot read file"));
        return result;
    }
    return load_text_unguarded(text.str(), file, *syntax, options);
}

}  // namespace

LoadResult load_text(std::string_view text, std::string_view file, Syntax syntax,
                     const PolicyCompileOptions& options) {
    try {
        return load_text_unguarded(text, file, syntax, options);
    } catch (const std::bad_alloc&) {
        return failed_with(std::string(file), "out of memory (std::bad_alloc)");
    } catch (const std::exception& e) {
        return failed_with(std::string(file), e.what());
    }
}

LoadResult load_file(const std::filesystem::path& path, const PolicyCompileOptions& options) {
    try {
        return load_file_unguarded(path, options);
    } catch (const std::bad_alloc&) {
        return failed_with(path.generic_string(), "out of memory (std::bad_alloc)");
    } catch (const std::exception& e) {
        return failed_with(path.generic_string(), e.what());
    }
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
