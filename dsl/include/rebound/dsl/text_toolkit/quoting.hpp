// Excerpts of the user's text quoted in messages: the front ends, the compiler and the vendor-map
// loader quote what they read through these, so every message shows text the same way.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rebound::dsl {

// Longest excerpt of the user's text quoted in a message.
inline constexpr std::size_t kExcerptLength = 40;

// The user's text for a message: at most `limit` bytes (then "..."), whole characters only, with
// control characters and bytes that are not UTF-8 shown as '?'.
std::string excerpt(std::string_view text, std::size_t limit = kExcerptLength);

// excerpt(text) in single quotes: 'text'.
std::string quoted_excerpt(std::string_view text);

// Whether excerpt(text) is `text` itself (short, printable, UTF-8): then a message that quotes
// the text whole can be passed on as it is.
bool shows_unchanged(std::string_view text);

}  // namespace rebound::dsl
