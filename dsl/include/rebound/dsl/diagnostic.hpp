// Diagnostic: one problem found while loading a policy file, with its code and position.
//
// Every front end and the validator report through this type; loading collects them all instead
// of stopping at the first. Codes are stable and documented one by one in docs/error-codes.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/dsl/source_position.hpp"

namespace rebound::dsl {

enum class Severity { Error, Warning, Note };

std::string_view to_string(Severity s) noexcept;

// The diagnostic codes of the compiler. Each has a kebab-case rule name (see rule_name()).
enum class DiagnosticCode {
    SyntaxError,   // RB001 syntax-error: the text is not valid YAML, JSON or DSL
    UnknownKey,    // RB002 unknown-key: a key the format does not have
    DuplicateKey,  // RB003 duplicate-key: a key or definition given twice
    WrongType,     // RB004 wrong-type: a value of the wrong kind (a list where a duration goes)
    MissingField,  // RB005 missing-field: a required key is absent
    UnsupportedVersion,  // RB006 unsupported-version: `rebound:` is not 1
    InvalidDuration,     // RB007 invalid-duration: not a duration such as 250ms
    UnknownValue,        // RB008 unknown-value: not one of the allowed words (category, type...)
    OutOfRange,          // RB101 out-of-range: a number or duration outside its range
    ConflictingFields,   // RB102 conflicting-fields: max_attempts together with max_retries
    ExtendsCycle,        // RB103 extends-cycle: policies that extend each other in a circle
    UnknownPolicy,       // RB104 unknown-policy: extends/handler/default names no policy
    InconsistentValues,  // RB105 inconsistent-values: max below initial, decorrelated without
                         // initial
    InvalidRoutes,       // RB106 invalid-routes: route up_to not strictly increasing
    UnknownPredicate,    // RB107 unknown-predicate: a retry_if name not registered in code
    InvalidName,         // RB108 invalid-name: a name outside [A-Za-z_][A-Za-z0-9_.-]*
    UnreadableFile,      // RB109 unreadable-file: the file cannot be read
    InvalidValue,    // RB110 invalid-value: a value that breaks its format (SQLSTATE of 4 chars)
    UnknownHandler,  // RB111 unknown-handler: an exact binding names no registered handler
    LimitExceeded,   // RB112 limit-exceeded: the input crosses a limit of input_limits.hpp
};

// "RB001"
std::string_view code_id(DiagnosticCode code) noexcept;
// "syntax-error"
std::string_view rule_name(DiagnosticCode code) noexcept;
// One sentence: what the code finds.
std::string_view code_summary(DiagnosticCode code) noexcept;
// Every code, in catalogue order.
const std::vector<DiagnosticCode>& all_codes();

struct Diagnostic {
    DiagnosticCode code = DiagnosticCode::SyntaxError;
    Severity severity = Severity::Error;
    std::string message;      // what is wrong and what would be right
    std::string file;         // as given by the caller
    SourcePosition position;  // of the offending text
    std::string field;        // path of the value, e.g. "policies.interactive.backoff.max"
    std::string suggestion;   // optional: "did you mean 'max_attempts'?"
};

using Diagnostics = std::vector<Diagnostic>;

bool has_errors(const Diagnostics& diagnostics) noexcept;

// "file:line:col: error: message [RB001 syntax-error]"; with `source` (the file's text), also the
// source line and a caret under the column, and the suggestion on its own line.
std::string format_diagnostic(const Diagnostic& d, std::string_view source = {});

}  // namespace rebound::dsl
