// Words of the YAML and JSON policy format that are not policy fields (those come from the field
// table, rebound/policy_field.hpp), and its limits. Private to rebound::dsl.
#pragma once

#include <cstdint>
#include <string_view>

namespace rebound::dsl::yaml {

// The keys of each mapping of the format.

// `$schema`: the URI of the file's JSON Schema, for editors (JSON has no comment to hold it).
inline constexpr std::string_view kTopLevelKeys[] = {"rebound",  "service",  "defaults", "breakers",
                                                     "policies", "handlers", "default",  "$schema"};
// A circuit breaker's settings (docs/resilience.md).
inline constexpr std::string_view kBreakerKeys[] = {
    "failure_ratio",        "minimum_calls", "window",
    "consecutive_failures", "open_for",      "max_open_for",
    "half_open_calls",      "slow_call",     "failures"};
inline constexpr std::string_view kHandlerKeys[] = {"policy", "idempotent", "calls",
                                                    "redeliveries"};
inline constexpr std::string_view kMatcherKeys[] = {
    "sqlstate", "sqlstate_class", "native", "vendor", "error", "http", "grpc", "message"};
// Bare integer durations above this many milliseconds are rejected, matching parse_duration's
// limit of 1e15 microseconds (far above the validator's 30 days, far below overflow).
inline constexpr std::int64_t kLargestBareMilliseconds = 1'000'000'000'000;

// Longest excerpt of the user's text quoted in a message.
inline constexpr std::size_t kExcerptLength = 40;

}  // namespace rebound::dsl::yaml
