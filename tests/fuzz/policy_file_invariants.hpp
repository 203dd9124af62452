// Invariants that loading any text as a policy file must keep, checked by the fuzz targets on
// every input (tests/fuzz/policy_file_fuzzer.cpp) and by the unit tests on the seed corpus
// (tests/fuzz/policy_file_invariants_test.cpp).
//
// Each check returns one readable line per violation; an empty list means the invariant holds.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/load.hpp"
#include "rebound/dsl/syntax.hpp"

namespace rebound::fuzz {

using Violations = std::vector<std::string>;

// Every diagnostic with a position names a line of `text` (1 to the number of lines, the line
// after a final line break included) and a column from 1 to one past the end of that line,
// counted in bytes (a column counted in characters is never larger). A diagnostic without a
// position has line and column 0.
Violations diagnostic_position_violations(const dsl::Diagnostics& diagnostics,
                                          std::string_view text);

// `json_text` parses as JSON (nlohmann_json, an independent parser); `what` names it.
Violations json_violations(std::string_view json_text, std::string_view what);

// For a load with a policy set: its document printed in each syntax loads again without
// diagnostics of severity error, and every policy, every handler binding and an unbound handler
// explain (`rebound explain --format json`) identically before and after. The JSON printing
// parses.
Violations round_trip_violations(const dsl::LoadResult& loaded);

// `rebound lint --format json` and `--format sarif` of `text` parse as JSON, and the findings'
// positions lie inside the text.
Violations lint_output_violations(std::string_view text, dsl::Syntax syntax);

// Every check above on `text` loaded as `syntax`.
Violations policy_file_violations(std::string_view text, dsl::Syntax syntax);

}  // namespace rebound::fuzz
