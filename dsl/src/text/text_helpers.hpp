// Text helpers of the text DSL's reader: character classes, names in field paths, quoted
// tokens. Quoting, numbers and positions are the shared toolkit's (rebound/dsl/text_toolkit/).
// Private to rebound::dsl.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rebound::dsl::text {

// Longest user name copied into a field path ("policies.NAME.backoff").
inline constexpr std::size_t kLongestPathName = 200;

bool is_digit(char c) noexcept;
bool is_blank(char c) noexcept;

// A name in a field path: as written unless absurdly long.
std::string path_name(std::string_view name);

// The text between the quotes of a quoted token, with its escapes resolved. Precondition: the
// grammar matched it (quoted_text), so every escape is complete.
std::string unquoted(std::string_view token);

}  // namespace rebound::dsl::text
