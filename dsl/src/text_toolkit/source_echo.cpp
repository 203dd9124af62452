#include "rebound/dsl/text_toolkit/source_echo.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include "rebound/dsl/text_toolkit/source_positions.hpp"
#include "rebound/output_text.hpp"

namespace rebound::dsl {

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
