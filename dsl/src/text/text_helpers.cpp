#include "text/text_helpers.hpp"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/syntax.hpp"
#include "rebound/output_text.hpp"
#include "text_utilities.hpp"

namespace rebound::dsl::text {

bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}
bool is_blank(char c) noexcept {
    return c == ' ' || c == '\t';
}

// The user's text for a message: at most `limit` bytes (then "..."), whole characters only,
// with control characters and bytes that are not UTF-8 shown as '?'.
std::string shown(std::string_view text, std::size_t limit) {
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

std::string in_quotes(std::string_view text) {
    return "'" + shown(text) + "'";
}

// Whether the text would be shown unchanged (short, printable, UTF-8): then messages of the
// shared helpers, which quote it whole, can be passed on as they are.
bool shows_unchanged(std::string_view text) {
    return shown(text) == text;
}

// A name in a field path: as written unless absurdly long.
std::string path_name(std::string_view name) {
    return shown(name, kLongestPathName);
}

// [-]digits
bool is_integer_text(std::string_view text) noexcept {
    if (!text.empty() && text.front() == '-') {
        text.remove_prefix(1);
    }
    return !text.empty() && std::all_of(text.begin(), text.end(), is_digit);
}

// [-]digits[.digits]
bool is_decimal_text(std::string_view text) noexcept {
    if (!text.empty() && text.front() == '-') {
        text.remove_prefix(1);
    }
    const std::size_t dot = text.find('.');
    const std::string_view whole = text.substr(0, dot);
    const std::string_view fraction =
        dot == std::string_view::npos ? std::string_view("0") : text.substr(dot + 1);
    const auto digits = [](std::string_view part) {
        return !part.empty() && std::all_of(part.begin(), part.end(), is_digit);
    };
    return digits(whole) && digits(fraction);
}

// A decimal as a double, or nullopt when it does not fit (`out_of_range`) or is no decimal.
std::optional<double> decimal_value(std::string_view text, bool& out_of_range) {
    out_of_range = false;
    if (!is_decimal_text(text)) {
        return std::nullopt;
    }
    return detail::finite_double(text, out_of_range);
}

// The decimal `text` (a percentage) divided by 100, by moving its point two places left, so that
// 20 reads as exactly the double nearest 0.2 (and 2.5 as that nearest 0.025), like YAML's
// `factor: 0.2`. Precondition: is_decimal_text(text).
std::string percent_as_fraction(std::string_view text) {
    std::string sign;
    if (text.front() == '-') {
        sign = "-";
        text.remove_prefix(1);
    }
    const std::size_t dot = text.find('.');
    const std::string whole(text.substr(0, dot));
    const std::string fraction(dot == std::string_view::npos ? "" : text.substr(dot + 1));
    const std::string digits = whole + fraction;
    const std::ptrdiff_t point = static_cast<std::ptrdiff_t>(whole.size()) - 2;
    if (point <= 0) {
        return sign + "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
    }
    const auto split = static_cast<std::size_t>(point);
    return sign + digits.substr(0, split) + "." + digits.substr(split);
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
