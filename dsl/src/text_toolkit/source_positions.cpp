#include "rebound/dsl/text_toolkit/source_positions.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace rebound::dsl {
namespace {

bool starts_character(char c) noexcept {
    return (static_cast<unsigned char>(c) & 0xC0U) != 0x80U;
}

}  // namespace

SourcePosition position_of_offset(std::string_view text, std::size_t offset) noexcept {
    SourcePosition position{1, 1};
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++position.line;
            position.column = 1;
        } else if (starts_character(text[i])) {
            ++position.column;
        }
    }
    return position;
}

std::string_view source_line(std::string_view source, std::uint32_t line) noexcept {
    std::size_t start = 0;
    for (std::uint32_t current = 1; current < line; ++current) {
        const auto next = source.find('\n', start);
        if (next == std::string_view::npos) {
            return {};
        }
        start = next + 1;
    }
    const auto end = source.find('\n', start);
    std::string_view text =
        source.substr(start, end == std::string_view::npos ? source.size() - start : end - start);
    if (!text.empty() && text.back() == '\r') {
        text.remove_suffix(1);
    }
    return text;
}

SourcePosition clamp_to_text(std::string_view text, SourcePosition position) noexcept {
    if (!position.known()) {
        return position;
    }
    std::uint32_t line = 1;
    std::size_t start = 0;
    while (line < position.line) {
        const std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos) {
            break;
        }
        start = end + 1;
        ++line;
    }
    const std::size_t end = text.find('\n', start);
    const std::string_view content =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    const auto characters =
        static_cast<std::uint32_t>(std::count_if(content.begin(), content.end(), starts_character));
    const std::uint32_t column = line == position.line ? position.column : characters + 1;
    return SourcePosition{line, std::clamp<std::uint32_t>(column, 1, characters + 1)};
}

}  // namespace rebound::dsl
