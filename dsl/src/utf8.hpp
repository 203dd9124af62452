// UTF-8 checks shared by the front ends: a policy file must be well-formed UTF-8, and text quoted
// in messages is cut at whole characters.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace rebound::dsl {

// The length of the well-formed UTF-8 character starting at byte `at` (< text.size()), or 0 when
// the bytes there are not one (overlong forms, surrogates and code points above U+10FFFF are not).
std::size_t utf8_sequence_length(std::string_view text, std::size_t at) noexcept;

// The byte offset of the first byte that does not belong to a well-formed character, if any.
std::optional<std::size_t> first_invalid_utf8(std::string_view text) noexcept;

inline bool is_valid_utf8(std::string_view text) noexcept {
    return !first_invalid_utf8(text).has_value();
}

}  // namespace rebound::dsl
