// Source lines of policy files echoed under diagnostics and lint findings, made safe to print on a
// terminal with rebound::printable (rebound/output_text.hpp, the toolkit every output uses): a
// policy file must not be able to move the cursor, recolour, retitle the window or reorder what a
// reader sees (docs/cli.md, Output safe to print).
#pragma once

#include <string>
#include <string_view>

#include "rebound/dsl/source_position.hpp"
#include "rebound/output_text.hpp"

namespace rebound::dsl {

// Line `position.line` of `source`, printable, with a caret under `position.column` on the next
// line, both indented by four spaces and preceded by a line break, as diagnostics echo the text
// they are about; empty when there is no such line or it is longer than 200 bytes.
std::string source_echo(std::string_view source, SourcePosition position);

}  // namespace rebound::dsl
