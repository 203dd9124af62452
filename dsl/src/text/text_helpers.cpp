#include "text/text_helpers.hpp"

#include <cstddef>
#include <string>
#include <string_view>

#include "rebound/dsl/text_toolkit/quoting.hpp"

namespace rebound::dsl::text {

bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}
bool is_blank(char c) noexcept {
    return c == ' ' || c == '\t';
}

// A name in a field path: as written unless absurdly long.
std::string path_name(std::string_view name) {
    return excerpt(name, kLongestPathName);
}

// The text between the quotes of a quoted token, with its escapes resolved. Precondition: the
// grammar matched it (quoted_text), so every escape is complete.
std::string unquoted(std::string_view token) {
    const std::string_view body = token.substr(1, token.size() - 2);
    std::string out;
    out.reserve(body.size());
    const auto hex = [](char c) {
        return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;  // '0'-'9', 'a'-'f', 'A'-'F'
    };
    for (std::size_t i = 0; i < body.size(); ++i) {
        if (body[i] != '\\' || i + 1 >= body.size()) {
            out += body[i];
            continue;
        }
        const char code = body[++i];
        switch (code) {
            case 'n':
                out += '\n';
                break;
            case 't':
                out += '\t';
                break;
            case 'r':
                out += '\r';
                break;
            case 'x':
                if (i + 2 < body.size()) {
                    out += static_cast<char>(hex(body[i + 1]) * 16 + hex(body[i + 2]));
                    i += 2;
                }
                break;
            default:  // '"' and '\\'
                out += code;
        }
    }
    return out;
}

}  // namespace rebound::dsl::text
