// Text helpers of the text DSL's reader: excerpts of the user's text for messages, number
// shapes, quoted text. Private to rebound::dsl.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rebound::dsl::text {

// Longest excerpt of the user's text quoted in a message.
inline constexpr std::size_t kExcerptLength = 40;
// Longest user name copied into a field path ("policies.NAME.backoff").
inline constexpr std::size_t kLongestPathName = 200;

bool is_digit(char c) noexcept;
bool is_blank(char c) noexcept;

// The user's text for a message: at most `limit` bytes (then "..."), whole characters only,
// with control characters and bytes that are not UTF-8 shown as '?'.
std::string shown(std::string_view text, std::size_t limit = kExcerptLength);

// shown(text) in single quotes.
std::string in_quotes(std::string_view text);

// Whether the text would be shown unchanged (short, printable, UTF-8): then messages of the
// shared helpers, which quote it whole, can be passed on as they are.
bool shows_unchanged(std::string_view text);

// A name in a field path: as written unless absurdly long.
std::string path_name(std::string_view name);

// [-]digits
bool is_integer_text(std::string_view text) noexcept;

// [-]digits[.digits]
bool is_decimal_text(std::string_view text) noexcept;

// A decimal as a double, or nullopt when it does not fit (`out_of_range`) or is no decimal.
std::optional<double> decimal_value(std::string_view text, bool& out_of_range);

// The decimal `text` (a percentage) divided by 100, by moving its point two places left, so that
// 20 reads as exactly the double nearest 0.2 (and 2.5 as that nearest 0.025), like YAML's
// `factor: 0.2`. Precondition: is_decimal_text(text).
std::string percent_as_fraction(std::string_view text);

// The text between the quotes of a quoted token, with its escapes resolved. Precondition: the
// grammar matched it (quoted_text), so every escape is complete.
std::string unquoted(std::string_view token);

}  // namespace rebound::dsl::text
