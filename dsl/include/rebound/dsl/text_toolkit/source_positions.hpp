// Positions in a policy file's text: from a byte offset to a line and column, and back to the
// line. Both front ends, the encoding check, lint and the diagnostics' echo count through these,
// so a column means one thing everywhere: characters (not bytes) from 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rebound/dsl/source_position.hpp"

namespace rebound::dsl {

// Line and column (in characters) of a byte offset in valid UTF-8 text.
SourcePosition position_of_offset(std::string_view text, std::size_t offset) noexcept;

// Line `line` (1-based) of `source`, without its line break; empty when there is no such line.
std::string_view source_line(std::string_view source, std::uint32_t line) noexcept;

// `position` moved inside `text`: a parser can report a mark past the end of a line or of the
// input (yaml-cpp after a NUL byte, for one); such a mark is clamped to the last line it can mean
// and to one past that line's last character.
SourcePosition clamp_to_text(std::string_view text, SourcePosition position) noexcept;

}  // namespace rebound::dsl
