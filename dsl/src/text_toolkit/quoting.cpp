#include "rebound/dsl/text_toolkit/quoting.hpp"

#include <cstddef>
#include <string>
#include <string_view>

#include "rebound/output_text.hpp"

namespace rebound::dsl {

std::string excerpt(std::string_view text, std::size_t limit) {
    std::string out;
    for (std::size_t at = 0; at < text.size();) {
        if (out.size() >= limit) {
            out += "...";
            break;
        }
        const std::size_t length = utf8_sequence_length(text, at);
        if (length == 0) {
            out += '?';
            ++at;
            continue;
        }
        if (length == 1) {
            const auto byte = static_cast<unsigned char>(text[at]);
            out += byte < 0x20U || byte == 0x7FU ? '?' : text[at];
        } else {
            out += text.substr(at, length);
        }
        at += length;
    }
    return out;
}

std::string quoted_excerpt(std::string_view text) {
    return "'" + excerpt(text) + "'";
}

bool shows_unchanged(std::string_view text) {
    return excerpt(text) == text;
}

}  // namespace rebound::dsl
