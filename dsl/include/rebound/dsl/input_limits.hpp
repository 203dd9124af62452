// The limits every policy file is read under, so that the work and memory of loading any input,
// however hostile, are bounded (docs/policy-format.md, "Limits"). Exceeding one is diagnostic
// RB112 limit-exceeded with the position of the text that crossed it; the file does not load.
// Vendor maps and the lint configuration are read under the same size, value and tag limits
// (check_yaml_input).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "rebound/dsl/diagnostic.hpp"

namespace rebound::dsl {

// Bytes of one policy file (or one text handed to load_text).
inline constexpr std::uintmax_t kMaxInputBytes = std::uintmax_t{1024} * 1024;
// Mapping entries and list items the YAML/JSON reader visits, counting an aliased value once
// each time it is used: what `&list` reused by a thousand `*list` costs.
inline constexpr std::size_t kMaxNodes = 100'000;
// Items of one list (retry_on, never_retry_on, retry_if, routes, breaker failures).
inline constexpr std::size_t kMaxListItems = 1'000;
// Bytes of one name or key: service, policy, handler, breaker, predicate, route target, mapping
// key.
inline constexpr std::size_t kMaxNameBytes = 256;
// Policies of one file.
inline constexpr std::size_t kMaxPolicies = 1'000;
// Parents between a policy and the policy at the top of its `extends` chain.
inline constexpr std::size_t kMaxExtendsDepth = 32;
// Diagnostics reported for one file; one more says how many were left out. `rebound lint` holds
// all its findings of a file (its rules' too) to the same number.
inline constexpr std::size_t kMaxDiagnostics = 200;

// RB112 about `file` (no position) when `size` bytes are more than kMaxInputBytes for a file
// holding `what` ("a policy file", "a vendor map"): such a file is refused before it is read.
std::optional<Diagnostic> check_input_size(std::string_view file, std::uintmax_t size,
                                           std::string_view what);

// Checks the YAML `text` of `file`, which holds `what` ("the lint configuration"), against the
// limits every YAML file of the project is read under, as policy files and vendor maps are: at
// most kMaxInputBytes, at most kMaxNodes values (mapping entries and list items, an aliased value
// counted each time it is used) and no YAML tags. Returns the problems, each naming `file`: RB112
// limit-exceeded (a file too large has no position; the values past the limit are reported where
// the count crossed it) and RB004 wrong-type for each tag, at most kMaxDiagnostics of them. Empty
// when the text keeps the limits, and when it is not YAML at all: the caller's own parse reports
// that. Never throws for bad input.
Diagnostics check_yaml_input(std::string_view text, std::string_view file, std::string_view what);

}  // namespace rebound::dsl
