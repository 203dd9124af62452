#include "rebound/http/header.hpp"

#include <cstddef>

namespace rebound::http {
namespace {

constexpr char lower(char c) noexcept {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

constexpr std::string_view trim_blanks(std::string_view text) noexcept {
    const std::size_t first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) {
        return {};
    }
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

}  // namespace

bool name_equals(std::string_view a, std::string_view b) noexcept {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (lower(a[i]) != lower(b[i])) {
            return false;
        }
    }
    return true;
}

std::optional<std::string_view> single_value(std::span<const Header> headers,
                                             std::string_view name) noexcept {
    std::optional<std::string_view> found;
    for (const Header& header : headers) {
        if (!name_equals(header.name, name)) {
            continue;
        }
        const std::string_view value = trim_blanks(header.value);
        if (found && *found != value) {
            return std::nullopt;
        }
        found = value;
    }
    return found;
}

std::optional<Header> split_header_line(std::string_view line) noexcept {
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
        return std::nullopt;
    }
    const std::string_view name = trim_blanks(line.substr(0, colon));
    if (name.empty()) {
        return std::nullopt;
    }
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) {
        value.remove_suffix(1);
    }
    return Header{name, trim_blanks(value)};
}

}  // namespace rebound::http
