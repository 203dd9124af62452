// Validation and compilation of a Document into an immutable PolicySet.
//
// One validator serves every front end: required sections, version, value ranges, conflicting
// fields, `extends` cycles, unknown policy references, and every rule of the engine's
// validate_policy applied to each resolved policy, with each problem placed at the text that
// caused it (after inheritance, at the text the value was inherited from).
//
// Inheritance: a policy's field is its own, else its `extends` parent's (recursively), else the
// file's `defaults`, else the built-in default. Objects and lists are replaced whole.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/document.hpp"
#include "rebound/policy.hpp"
#include "rebound/policy_set.hpp"

namespace rebound::dsl {

struct CompileResult {
    std::shared_ptr<const PolicySet> policy_set;  // null when any error was reported
    Diagnostics diagnostics;                      // errors, and warnings that may accompany success
};

// Validates and compiles. Registries in `options` are used as in Policy::create.
CompileResult compile(const Document& document, const PolicyCompileOptions& options = {});

// The inheritance rule of docs/policy-format.md on Document fields (positions kept): `child`'s own
// values over `base`'s; lists and objects are replaced whole, and max_attempts/max_retries are
// one setting (a child stating either replaces the base's).
PolicyFields merge_fields(PolicyFields child, const PolicyFields& base);

// For a document with errors (`found`, from loading it): a set of the policies that compile on
// their own, hold none of the errors and were read whole (PolicyNode::read_with_errors: no value
// refused, even through a YAML alias of another policy's text), with the bindings and default
// that name them, so that lint's semantic rules can still check them. Null when an error lies
// outside every policy's definition (it could change any of them) or the file has no usable service
// name. Never use it to serve work: the file is invalid.
std::shared_ptr<const PolicySet> compile_valid_parts(const Document& document,
                                                     const Diagnostics& found,
                                                     const PolicyCompileOptions& options = {});

// The resolved PolicySpec of every policy (inheritance and defaults applied), in file order,
// for documents that validate. Used by explain, convert and lint.
std::vector<PolicySpec> resolve_policies(const Document& document);

// The settings of every breaker the document declares (defaults filled in), in file order. Used
// by explain, replay and lint.
std::vector<BreakerSettings> resolve_breakers(const Document& document);

}  // namespace rebound::dsl
