// Text helpers of the YAML reader: word lists, field paths, over-long keys. Quoting, numbers and
// positions are the shared toolkit's (rebound/dsl/text_toolkit/). Private to rebound::dsl.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "rebound/dsl/source_position.hpp"

namespace rebound::dsl::yaml {

bool contains(std::span<const std::string_view> words, std::string_view word);

// "path.key", or "key" at the top level.
std::string child_path(std::string_view path, std::string_view key);

// "path[index]".
std::string item_path(std::string_view path, std::size_t index);

// The start of a plain key on `line` (1-based) of `text` whose ':' comes more than 1024
// characters after it: YAML's limit for a key without '?', which yaml-cpp reports only as a
// misplaced ':'. nullopt when the line has no such key.
std::optional<SourcePosition> overlong_key(std::string_view text, std::uint32_t line) noexcept;

}  // namespace rebound::dsl::yaml
