#include "rebound/dsl/terminal_text.hpp"

#include <cstdint>

#include "rebound/dsl/diagnostic.hpp"
#include "utf8.hpp"

namespace rebound::dsl {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_byte_escape(std::string& out, unsigned char byte) {
    out += "\\x";
    out += kHex[byte >> 4];
    out += kHex[byte & 0xF];
}

// The code point of the well-formed `length`-byte sequence at the start of `bytes`.
std::uint32_t decode(std::string_view bytes, std::size_t length) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
    if (length == 1) {
        return byte(0);
    }
    std::uint32_t code = byte(0) & (0x7F >> length);
    for (std::size_t i = 1; i < length; ++i) {
        code = (code << 6) | (byte(i) & 0x3F);
    }
    return code;
}

bool is_format_control(std::uint32_t code) {
    return (code >= 0x80 && code <= 0x9F) || code == 0x061C || code == 0x200E || code == 0x200F ||
           (code >= 0x202A && code <= 0x202E) || (code >= 0x2066 && code <= 0x2069);
}

void append_code_escape(std::string& out, std::uint32_t code) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) {
        out += kHex[(code >> shift) & 0xF];
    }
}

void append_control(std::string& out, unsigned char byte) {
    switch (byte) {
        case 0x1B:
            out += "\\e";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        default:
            append_byte_escape(out, byte);
    }
}

}  // namespace

std::string printable(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        const auto byte = static_cast<unsigned char>(text[at]);
        if (byte < 0x80) {
            if ((byte < 0x20 && byte != '\t') || byte == 0x7F) {
                append_control(out, byte);
            } else {
                out += static_cast<char>(byte);
            }
            ++at;
            continue;
        }
        const std::size_t length = utf8_sequence_length(text, at);
        if (length == 0) {
            append_byte_escape(out, byte);
            ++at;
            continue;
        }
        const std::uint32_t code = decode(text.substr(at), length);
        if (is_format_control(code)) {
            append_code_escape(out, code);
        } else {
            out += text.substr(at, length);
        }
        at += length;
    }
    return out;
}

std::string source_echo(std::string_view source, SourcePosition position) {
    // Very long lines (minified files) are not echoed.
    constexpr std::size_t kMaxEcho = 200;
    if (source.empty() || !position.known()) {
        return {};
    }
    const std::string_view line = source_line(source, position.line);
    if (line.empty() || line.size() > kMaxEcho) {
        return {};
    }
    const std::size_t before = std::min<std::size_t>(position.column - 1, line.size());
    // The caret goes under the column as printed: escapes before it widen the line.
    std::string indent;
    for (const char c : printable(line.substr(0, before))) {
        indent += c == '\t' ? '\t' : ' ';
    }
    return "\n    " + printable(line) + "\n    " + indent + "^";
}

}  // namespace rebound::dsl
