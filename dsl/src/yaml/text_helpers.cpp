#include "yaml/text_helpers.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace rebound::dsl::yaml {
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

}  // namespace rebound::dsl::yaml
