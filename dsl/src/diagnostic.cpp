#include "rebound/dsl/diagnostic.hpp"

#include <algorithm>
#include <array>
#include <iterator>

#include "rebound/dsl/text_toolkit/source_echo.hpp"

namespace rebound::dsl {
namespace {

struct CodeInfo {
    DiagnosticCode code;
    std::string_view id;
    std::string_view rule;
    std::string_view summary;
};

constexpr std::array<CodeInfo, 20> kCodes{{
    {DiagnosticCode::SyntaxError, "RB001", "syntax-error",
     "the text is not valid YAML, JSON or DSL"},
    {DiagnosticCode::UnknownKey, "RB002", "unknown-key", "a key the format does not have"},
    {DiagnosticCode::DuplicateKey, "RB003", "duplicate-key",
     "a key, policy or handler given twice"},
    {DiagnosticCode::WrongType, "RB004", "wrong-type",
     "a value of the wrong kind, such as a list where a number goes"},
    {DiagnosticCode::MissingField, "RB005", "missing-field", "a required key is absent"},
    {DiagnosticCode::UnsupportedVersion, "RB006", "unsupported-version",
     "the format version is not 1"},
    {DiagnosticCode::InvalidDuration, "RB007", "invalid-duration",
     "a value that is not a duration such as 250ms"},
    {DiagnosticCode::UnknownValue, "RB008", "unknown-value",
     "a word that is not one of the allowed values"},
    {DiagnosticCode::OutOfRange, "RB101", "out-of-range",
     "a number or duration outside its allowed range"},
    {DiagnosticCode::ConflictingFields, "RB102", "conflicting-fields",
     "fields that must not be given together"},
    {DiagnosticCode::ExtendsCycle, "RB103", "extends-cycle",
     "policies that extend each other in a circle"},
    {DiagnosticCode::UnknownPolicy, "RB104", "unknown-policy",
     "extends, a handler or default names a policy that does not exist"},
    {DiagnosticCode::InconsistentValues, "RB105", "inconsistent-values",
     "values that contradict each other, such as max below initial"},
    {DiagnosticCode::InvalidRoutes, "RB106", "invalid-routes",
     "routes whose up_to values are not strictly increasing"},
    {DiagnosticCode::UnknownPredicate, "RB107", "unknown-predicate",
     "a retry_if name that is not registered in code"},
    {DiagnosticCode::InvalidName, "RB108", "invalid-name",
     "a name outside [A-Za-z_][A-Za-z0-9_.-]*"},
    {DiagnosticCode::UnreadableFile, "RB109", "unreadable-file",
     "the file cannot be read or has an unknown extension"},
    {DiagnosticCode::InvalidValue, "RB110", "invalid-value",
     "a value that breaks its format, such as a SQLSTATE that is not 5 characters"},
    {DiagnosticCode::UnknownHandler, "RB111", "unknown-handler",
     "an exact handler binding that names no registered handler"},
    {DiagnosticCode::LimitExceeded, "RB112", "limit-exceeded",
     "the file is too large, too long a list or name, too many policies or values"},
}};

const CodeInfo& info(DiagnosticCode code) noexcept {
    for (const CodeInfo& entry : kCodes) {
        if (entry.code == code) {
            return entry;
        }
    }
    return kCodes.front();
}

}  // namespace

std::string_view to_string(Severity s) noexcept {
    switch (s) {
        case Severity::Error:
            return "error";
        case Severity::Warning:
            return "warning";
        case Severity::Note:
            break;
    }
    return "note";
}

std::string_view code_id(DiagnosticCode code) noexcept {
    return info(code).id;
}
std::string_view rule_name(DiagnosticCode code) noexcept {
    return info(code).rule;
}
std::string_view code_summary(DiagnosticCode code) noexcept {
    return info(code).summary;
}

const std::vector<DiagnosticCode>& all_codes() {
    static const std::vector<DiagnosticCode> codes = [] {
        std::vector<DiagnosticCode> all;
        all.reserve(std::size(kCodes));
        for (const CodeInfo& entry : kCodes) {
            all.push_back(entry.code);
        }
        return all;
    }();
    return codes;
}

bool has_errors(const Diagnostics& diagnostics) noexcept {
    return std::any_of(diagnostics.begin(), diagnostics.end(),
                       [](const Diagnostic& d) { return d.severity == Severity::Error; });
}

std::string format_diagnostic(const Diagnostic& d, std::string_view source) {
    std::string text = printable(d.file);
    if (d.position.known()) {
        text += ":" + std::to_string(d.position.line) + ":" + std::to_string(d.position.column);
    }
    text += ": ";
    text += to_string(d.severity);
    text += ": " + printable(d.message) + " [" + std::string(code_id(d.code)) + " " +
            std::string(rule_name(d.code)) + "]";
    text += source_echo(source, d.position);
    if (!d.suggestion.empty()) {
        text += "\n    " + printable(d.suggestion);
    }
    return text;
}

}  // namespace rebound::dsl
