// The compiler's diagnostics as lint rules. They are errors that cannot be silenced: a file with
// any of them does not load, whatever the linter is told.
#include <array>
#include <utility>

#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

using dsl::DiagnosticCode;

constexpr std::array<std::pair<DiagnosticCode, std::string_view>, 18> kHelp{{
    {DiagnosticCode::SyntaxError,
     "The file cannot be read as YAML, JSON or the text DSL. Fix the text at the position shown; "
     "nothing after a syntax error can be checked reliably."},
    {DiagnosticCode::UnknownKey,
     "The key is not part of the policy format, or does not apply to this backoff or jitter "
     "type. Unknown keys are errors so that a misspelt setting never silently falls back to its "
     "default."},
    {DiagnosticCode::DuplicateKey,
     "A key, policy or handler is given twice. YAML parsers disagree on which one wins; Rebound "
     "refuses the file and points at both places."},
    {DiagnosticCode::WrongType,
     "The value has the wrong kind, such as a list where a duration goes. Write the kind the "
     "field takes (see docs/policy-format.md)."},
    {DiagnosticCode::MissingField,
     "A required key is absent: `rebound: 1`, `service` and at least one policy, or a field the "
     "chosen backoff, jitter, budget or route needs."},
    {DiagnosticCode::UnsupportedVersion,
     "The file states a format version this Rebound does not read. Version 1 is the only one."},
    {DiagnosticCode::InvalidDuration,
     "Durations are a number followed by a unit (us, ms, s, m, h) with no space, such as 250ms or "
     "1.5s; in YAML a bare integer means milliseconds."},
    {DiagnosticCode::UnknownValue,
     "The word is not one of the values the field allows (categories, backoff and jitter types, "
     "vendors, on_exhausted actions)."},
    {DiagnosticCode::OutOfRange,
     "A number or duration lies outside its allowed range, for example max_attempts outside "
     "1..1000 or a duration above 30 days."},
    {DiagnosticCode::ConflictingFields,
     "Two fields say the same thing in different ways, such as max_attempts and max_retries in "
     "one policy. Keep one."},
    {DiagnosticCode::ExtendsCycle,
     "Policies extend each other in a circle, so none of them has a defined value. Break the "
     "circle."},
    {DiagnosticCode::UnknownPolicy,
     "`extends`, a handler binding or `default` names a policy this file does not define."},
    {DiagnosticCode::InconsistentValues,
     "Values contradict each other: a backoff max below its initial delay, or decorrelated "
     "jitter with a backoff that has no initial delay."},
    {DiagnosticCode::InvalidRoutes,
     "Route `up_to` values must be strictly increasing so that each delay picks exactly one "
     "route."},
    {DiagnosticCode::InvalidName,
     "Service, policy, predicate and error-type names match [A-Za-z_][A-Za-z0-9_.-]*; handler "
     "keys are names or prefixes ending in `.*`; `builtin` is reserved."},
    {DiagnosticCode::UnreadableFile,
     "The file cannot be read, does not exist, or has an extension other than .yaml, .yml, "
     ".json or .rebound. `rebound lint` exits with 2."},
    {DiagnosticCode::InvalidValue,
     "A value breaks its format, such as a SQLSTATE that is not 5 characters or an HTTP status "
     "outside 100..599."},
    {DiagnosticCode::LimitExceeded,
     "The file crosses one of the limits that bound the work of loading any input: its size, "
     "the values read after aliases are expanded, a list's length, a name's length, the number "
     "of policies, the depth of an extends chain (docs/policy-format.md, Limits)."},
}};

std::string_view help_for(DiagnosticCode code) {
    for (const auto& [candidate, help] : kHelp) {
        if (candidate == code) {
            return help;
        }
    }
    return {};
}

}  // namespace

std::vector<Rule> compiler_rules() {
    std::vector<Rule> rules;
    for (const DiagnosticCode code : dsl::all_codes()) {
        if (code == DiagnosticCode::UnknownPredicate || code == DiagnosticCode::UnknownHandler) {
            continue;  // lint checks these names itself (unknown_predicate.cpp,
                       // unknown_handler.cpp)
        }
        RuleInfo info;
        info.code = dsl::code_id(code);
        info.name = dsl::rule_name(code);
        info.default_severity = Severity::Error;
        info.origin = RuleOrigin::Compiler;
        info.summary = dsl::code_summary(code);
        info.help = help_for(code);
        rules.push_back(Rule{info, nullptr});
    }
    return rules;
}

}  // namespace rebound::lint::rules
