// Validation of policy data: the one rule set shared by the builder and the file compiler.
//
// Every problem is reported, not only the first. A problem names the field (policy_field.hpp)
// and, for an item of a list, its index, so the compiler can attach the source position of that
// value; its message says what would be right.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rebound/backoff.hpp"
#include "rebound/hedge.hpp"
#include "rebound/jitter.hpp"
#include "rebound/matcher.hpp"
#include "rebound/policy_field.hpp"
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
    PolicyField field = PolicyField::Name;  // the offending value, e.g. PolicyField::BackoffMax
    std::size_t index = 0;                  // the item, when the value is in a list field
    std::string message;                    // e.g. "max (50ms) is below initial (100ms)"
    ProblemKind kind = ProblemKind::OutOfRange;

    // "backoff.max", "retry_on[2]": the value's path in the file's terms.
    std::string path() const { return field_path(field, index); }

    friend bool operator==(const FieldProblem&, const FieldProblem&) = default;
};

using FieldProblems = std::vector<FieldProblem>;

// Each appends its problems to `out`; `index` is the item of the list field `field` is in.
void validate_duration(Duration value, PolicyField field, std::size_t index, bool must_be_positive,
                       FieldProblems& out);
void validate_backoff(const Backoff& backoff, FieldProblems& out);
void validate_jitter(const Jitter& jitter, const Backoff& backoff, FieldProblems& out);
void validate_matcher(const Matcher& matcher, PolicyField list, std::size_t index,
                      FieldProblems& out);
void validate_budget(const BudgetSettings& budget, FieldProblems& out);
void validate_server_delay(const ServerDelaySettings& settings, FieldProblems& out);
// The hedge's own values (docs/hedging.md): a delay, its ranges, window and warmup with a learned
// delay only. The rules that involve the rest of the policy are validate_policy's.
void validate_hedge(const HedgeSettings& hedge, FieldProblems& out);

// "max_attempts must be between 1 and 1000, got 0", or empty when `value` is within the range
// of the Count field `field` (policy_field.hpp).
std::string count_range_problem(PolicyField field, std::int64_t value);

// Every rule for a whole policy. With `predicates`, unknown `retry_if` names are problems too.
FieldProblems validate_policy(const PolicySpec& spec,
                              const PredicateRegistry* predicates = nullptr);

// "250ms", "1.5s", "2m", "0ms": the shortest exact spelling, for messages and emitters.
std::string format_duration(Duration d);

}  // namespace rebound
