// Front ends: text in one syntax to a Document plus the diagnostics of reading it.
//
// Parsing checks syntax and the shape of the file (known keys, value types, words, durations,
// duplicates). Semantic rules (ranges, references, inheritance) belong to the validator in
// compile.hpp. Parsing never throws for bad input; it reports and goes on where it can.
#pragma once

#include <string_view>

#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/document.hpp"
#include "rebound/dsl/syntax.hpp"

namespace rebound::dsl {

struct ParseResult {
    Document document;
    Diagnostics diagnostics;
};

// YAML (.yaml, .yml) and JSON (.json, read as YAML, which keeps positions), with yaml-cpp.
ParseResult parse_yaml(std::string_view text, std::string_view file);

// The text DSL (.rebound), with PEGTL.
ParseResult parse_text(std::string_view text, std::string_view file);

// Dispatches on `syntax`.
ParseResult parse(std::string_view text, std::string_view file, Syntax syntax);

}  // namespace rebound::dsl
