// One toolkit for text that came from outside the program (file names and contents, database
// rows, dependencies' messages, payloads) on its way into any output: terminals, JSON, SARIF and
// the Prometheus text format. Such text is data: it must not drive a terminal, break a document
// or make a writer fail (docs/cli.md, Output safe to print). Every output of the project uses
// these functions instead of escaping on its own.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rebound {

// The length of the well-formed UTF-8 character starting at byte `at` (< text.size()), or 0 when
// the bytes there are not one (overlong forms, surrogates and code points above U+10FFFF are not).
std::size_t utf8_sequence_length(std::string_view text, std::size_t at) noexcept;

// The byte offset of the first byte that does not belong to a well-formed character, if any.
std::optional<std::size_t> first_invalid_utf8(std::string_view text) noexcept;

inline bool is_valid_utf8(std::string_view text) noexcept {
    return !first_invalid_utf8(text).has_value();
}

// For terminals: `text` with what a terminal would act on written visibly instead: ESC as `\e`;
// other C0 controls and DEL as `\n`, `\r`, `\x07`... (a tab stays a tab); C1 controls and the bidi
// controls U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069 as `\u0085`, `\u202e`; bytes
// that are not UTF-8 as `\xff`. A backslash stays as it is, so printable(printable(t)) ==
// printable(t). Everything else is kept.
std::string printable(std::string_view text);

// printable() line by line: the line breaks of `text` stay line breaks (multi-line reports).
std::string printable_lines(std::string_view text);

// `text` as valid UTF-8: each byte that does not belong to a well-formed character is replaced
// by U+FFFD; everything else is kept.
std::string valid_utf8(std::string_view text);

// For the Prometheus text exposition format (0.0.4): `text` as valid UTF-8 (valid_utf8), then
// backslash, double quote and line feed escaped as `\\`, `\"` and `\n`, the only escapes a label
// value has.
std::string escape_label_value(std::string_view text);

// For JSON (and SARIF): `document` (an nlohmann::json or ordered_json) as JSON text that is valid
// for any bytes in its strings: text that is not UTF-8 has each invalid sequence replaced by
// U+FFFD instead of the exception nlohmann::json would throw. Control characters are escaped by
// JSON itself. `indent` as nlohmann::json::dump's (-1: one line).
template <typename Json>
std::string json_output(const Json& document, int indent = -1) {
    return document.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace rebound
