#include "yaml/text_helpers.hpp"

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace rebound::dsl::yaml {
namespace {

// Longest excerpt of the user's text quoted in a message.
constexpr std::size_t kExcerptLength = 40;

}  // namespace

// The user's text for a message: at most kExcerptLength bytes, cut at a character boundary, with
// control characters shown as '?'.
std::string excerpt(std::string_view text) {
    std::string shown;
    if (text.size() > kExcerptLength) {
        std::size_t cut = kExcerptLength;
        while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) {
            --cut;
        }
        shown = std::string(text.substr(0, cut)) + "...";
    } else {
        shown = std::string(text);
    }
    for (char& c : shown) {
        if (static_cast<unsigned char>(c) < 0x20U || c == 0x7F) {
            c = '?';
        }
    }
    return shown;
}

std::string quoted(std::string_view text) {
    return "'" + excerpt(text) + "'";
}

bool contains(std::span<const std::string_view> words, std::string_view word) {
    for (const std::string_view candidate : words) {
        if (candidate == word) {
            return true;
        }
    }
    return false;
}

std::string child_path(std::string_view path, std::string_view key) {
    if (path.empty()) {
        return std::string(key);
    }
    return std::string(path) + "." + std::string(key);
}

std::string item_path(std::string_view path, std::size_t index) {
    return std::string(path) + "[" + std::to_string(index) + "]";
}

// Line and column (in characters) of a byte offset in valid UTF-8 text.
SourcePosition position_of_offset(std::string_view text, std::size_t offset) noexcept {
    SourcePosition position{1, 1};
    for (std::size_t i = 0; i < offset; ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte == '\n') {
            ++position.line;
            position.column = 1;
        } else if ((byte & 0xC0U) != 0x80U) {
            ++position.column;
        }
    }
    return position;
}

std::optional<SourcePosition> overlong_key(std::string_view text, std::uint32_t line) noexcept {
    constexpr std::size_t kYamlKeyLimit = 1024;
    std::size_t start = 0;
    for (std::uint32_t current = 1; current < line; ++current) {
        start = text.find('\n', start);
        if (start == std::string_view::npos) {
            return std::nullopt;
        }
        ++start;
    }
    std::string_view content = text.substr(start, text.find('\n', start) - start);
    const std::size_t indent = content.find_first_not_of(" -");
    if (indent == std::string_view::npos) {
        return std::nullopt;
    }
    content.remove_prefix(indent);
    const std::size_t colon = content.find(':');
    if (colon == std::string_view::npos || colon <= kYamlKeyLimit) {
        return std::nullopt;
    }
    return SourcePosition{line, static_cast<std::uint32_t>(indent + 1)};
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
    std::uint32_t characters = 0;
    for (const char c : content) {
        characters += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U ? 1 : 0;
    }
    const std::uint32_t column = line == position.line ? position.column : characters + 1;
    return SourcePosition{line, std::clamp<std::uint32_t>(column, 1, characters + 1)};
}

}  // namespace rebound::dsl::yaml
