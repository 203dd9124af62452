// The limits of input_limits.hpp that hold for every front end, checked on the Document the
// front end read. Private to rebound::dsl.
#pragma once

#include <cstddef>
#include <string>

#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/document.hpp"

namespace rebound::dsl::detail {

// Reports RB112 for too many policies, too long a list and too long a name, and cuts `document`
// down to what the later stages may read (the policies beyond the limit are dropped), so that no
// stage after the front end does unbounded work.
void enforce_document_limits(Document& document, Diagnostics& diagnostics);

// Keeps the first kMaxDiagnostics of `diagnostics` (in their order) and, when any were dropped,
// appends one RB112 saying how many. Returns how many were dropped.
std::size_t cap_diagnostics(Diagnostics& diagnostics, const std::string& file);

}  // namespace rebound::dsl::detail
