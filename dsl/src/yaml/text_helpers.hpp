// Text helpers of the YAML reader: excerpts of the user's text for messages, field paths,
// positions. Private to rebound::dsl.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "rebound/dsl/source_position.hpp"

namespace rebound::dsl::yaml {

// The user's text for a message: at most 40 bytes, cut at a character boundary, with control
// characters shown as '?'.
std::string excerpt(std::string_view text);

// excerpt(text) in single quotes.
std::string quoted(std::string_view text);

bool contains(std::span<const std::string_view> words, std::string_view word);

// "path.key", or "key" at the top level.
std::string child_path(std::string_view path, std::string_view key);

// "path[index]".
std::string item_path(std::string_view path, std::size_t index);

// Line and column (in characters) of a byte offset in valid UTF-8 text.
SourcePosition position_of_offset(std::string_view text, std::size_t offset) noexcept;

// The start of a plain key on `line` (1-based) of `text` whose ':' comes more than 1024
// characters after it: YAML's limit for a key without '?', which yaml-cpp reports only as a
// misplaced ':'. nullopt when the line has no such key.
std::optional<SourcePosition> overlong_key(std::string_view text, std::uint32_t line) noexcept;

// `position` moved inside `text`: yaml-cpp can report a mark past the end of a line or of the
// input (after a NUL byte, for one); such a mark is clamped to the last line it can mean and to
// one past that line's last character.
SourcePosition clamp_to_text(std::string_view text, SourcePosition position) noexcept;

}  // namespace rebound::dsl::yaml
