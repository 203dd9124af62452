// Text that came from files (names, messages quoting values, echoed source lines) made safe to
// print on a terminal: a policy file must not be able to move the cursor, recolour, retitle the
// window or reorder what a reader sees (docs/cli.md, Output safe to print).
#pragma once

#include <string>
#include <string_view>

#include "rebound/dsl/source_position.hpp"

namespace rebound::dsl {

// `text` with what a terminal would act on written visibly instead: ESC as `\e`; other C0
// controls and DEL as `\n`, `\r`, `\x07`... (a tab stays a tab); C1 controls and the bidi
// controls U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069 as `\u0085`, `\u202e`; bytes
// that are not UTF-8 as `\xff`. A backslash stays as it is. Everything else is kept.
std::string printable(std::string_view text);

// Line `position.line` of `source`, printable, with a caret under `position.column` on the next
// line, both indented by four spaces and preceded by a line break, as diagnostics echo the text
// they are about; empty when there is no such line or it is longer than 200 bytes.
std::string source_echo(std::string_view source, SourcePosition position);

}  // namespace rebound::dsl
