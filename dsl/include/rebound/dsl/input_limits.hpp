// The limits every policy file is read under, so that the work and memory of loading any input,
// however hostile, are bounded (docs/policy-format.md, "Limits"). Exceeding one is diagnostic
// RB112 limit-exceeded with the position of the text that crossed it; the file does not load.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rebound::dsl {

// Bytes of one policy file (or one text handed to load_text).
inline constexpr std::uintmax_t kMaxInputBytes = std::uintmax_t{1024} * 1024;
// Mapping entries and list items the YAML/JSON reader visits, counting an aliased value once
// each time it is used: what `&list` reused by a thousand `*list` costs.
inline constexpr std::size_t kMaxNodes = 100'000;
// Items of one list (retry_on, never_retry_on, retry_if, routes, breaker failures).
inline constexpr std::size_t kMaxListItems = 1'000;
// Bytes of one name or key: service, policy, handler, breaker, predicate, mapping key.
inline constexpr std::size_t kMaxNameBytes = 256;
// Policies of one file.
inline constexpr std::size_t kMaxPolicies = 1'000;
// Parents between a policy and the policy at the top of its `extends` chain.
inline constexpr std::size_t kMaxExtendsDepth = 32;
// Diagnostics reported for one file; one more says how many were left out.
inline constexpr std::size_t kMaxDiagnostics = 200;

}  // namespace rebound::dsl
