// The one way the loaders record a problem. Private to rebound::dsl.
#pragma once

#include <string>

#include "rebound/dsl/diagnostic.hpp"

namespace rebound::dsl::detail {

// Appends an error about `file` at `position` to `out`.
void add_error(Diagnostics& out, const std::string& file, DiagnosticCode code,
               SourcePosition position, std::string field, std::string message,
               std::string suggestion = {});

}  // namespace rebound::dsl::detail
