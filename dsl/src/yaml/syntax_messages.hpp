// Syntax errors of yaml-cpp in the words of this project. Private to rebound::dsl.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <yaml-cpp/exceptions.h>

#include "rebound/dsl/source_position.hpp"

namespace rebound::dsl::yaml {

// The sentence for yaml-cpp's parser error: a known message reworded, else the original cut short.
std::string syntax_sentence(const YAML::ParserException& error);

// The sentence for a text whose indentation has a tab.
inline constexpr std::string_view kTabIndentSentence = "tabs cannot indent YAML; use spaces";

// The position of the first tab in the indentation (the blanks that open a line) of lines 1 to
// `last_line` of `text`, or nullopt. yaml-cpp reports some tab-indented lines as other mistakes
// ("end of map not found"), so a syntax error at or after such a tab is reported at the tab.
std::optional<SourcePosition> first_indenting_tab(std::string_view text, std::uint32_t last_line);

}  // namespace rebound::dsl::yaml
