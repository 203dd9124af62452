// Emitters: a Document printed in any syntax, canonically ordered.
//
// Canonical order: rebound, service, defaults, policies (file order), handlers (file order),
// default; inside a policy: the fields in the order of the field table (rebound/policy_field.hpp,
// the order of docs/policy-format.md's field table). Durations are printed in the largest unit
// that keeps them exact. For any valid document D and syntax S, parse(emit(D, S)) compiles to the
// same policies and bindings as D.
#pragma once

#include <string>

#include "rebound/dsl/document.hpp"
#include "rebound/dsl/syntax.hpp"

namespace rebound::dsl {

std::string emit_yaml(const Document& document);
std::string emit_json(const Document& document);
std::string emit_text(const Document& document);
std::string emit(const Document& document, Syntax syntax);

}  // namespace rebound::dsl
