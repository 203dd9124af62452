// Validation of policy data: the one rule set shared by the builder and the file compiler.
//
// Every problem is reported, not only the first. A problem names the field with a path in the
// file's terms (`backoff.multiplier`, `retry_on[2]`), so the compiler can attach the source
// position of that value, and its message says what would be right.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rebound/backoff.hpp"
#include "rebound/jitter.hpp"
#include "rebound/matcher.hpp"
#include "rebound/policy_spec.hpp"
#include "rebound/retry_predicate.hpp"

namespace rebound {

// What kind of rule a problem breaks, so callers can give each kind its own diagnostic code.
enum class ProblemKind : std::uint8_t {
    OutOfRange,        // a number or duration outside its range
    Inconsistent,      // values that contradict each other (max below initial)
    InvalidValue,      // a value that breaks its format (a 4-character SQLSTATE)
    Conflict,          // fields that must not be given together
    RouteOrder,        // route up_to values not strictly increasing
    UnknownPredicate,  // a retry_if name missing from the registry
    InvalidName,       // a name outside the name syntax
};

struct FieldProblem {
    std::string field;    // path of the offending value, e.g. "backoff.max"
    std::string message;  // e.g. "max (50ms) is below initial (100ms)"
    ProblemKind kind = ProblemKind::OutOfRange;
    friend bool operator==(const FieldProblem&, const FieldProblem&) = default;
};

using FieldProblems = std::vector<FieldProblem>;

// Each appends its problems to `out`; `field` is the path prefix of the value checked.
void validate_duration(Duration value, const std::string& field, bool must_be_positive,
                       FieldProblems& out);
void validate_backoff(const Backoff& backoff, const std::string& field, FieldProblems& out);
void validate_jitter(const Jitter& jitter, const Backoff& backoff, const std::string& field,
                     FieldProblems& out);
void validate_matcher(const Matcher& matcher, const std::string& field, FieldProblems& out);
void validate_budget(const BudgetSettings& budget, const std::string& field, FieldProblems& out);

// Every rule for a whole policy. With `predicates`, unknown `retry_if` names are problems too.
FieldProblems validate_policy(const PolicySpec& spec,
                              const PredicateRegistry* predicates = nullptr);

// "250ms", "1.5s", "2m", "0ms": the shortest exact spelling, for messages and emitters.
std::string format_duration(Duration d);

}  // namespace rebound
