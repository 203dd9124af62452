// The one way the loaders record a problem. Private to rebound::dsl.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "rebound/dsl/diagnostic.hpp"

namespace rebound::dsl::detail {

// Appends an error about `file` at `position` to `out`.
void add_error(Diagnostics& out, const std::string& file, DiagnosticCode code,
               SourcePosition position, std::string field, std::string message,
               std::string suggestion = {});

// RB003 duplicate-key, worded the same for policy files and vendor maps: the message
// "duplicate key 'x' (first given at line 5)" for `label` "key 'x'", and its suggestion.
std::string duplicate_message(std::string_view label, std::uint32_t first_line);
inline constexpr std::string_view kKeepTheFirst = "remove one of them; the first is used";

}  // namespace rebound::dsl::detail
