#include "rebound/dsl/parse.hpp"

#include <optional>
#include <string>

#include "diagnostic_sink.hpp"
#include "rebound/dsl/text_toolkit/source_positions.hpp"
#include "rebound/output_text.hpp"

namespace rebound::dsl {
namespace {

// A problem of encoding that makes the text no policy file in any syntax, reported the same way
// for every front end before it reads anything: a UTF-16 or UTF-32 byte order mark, a byte that
// is not UTF-8 (at the first one), a NUL byte.
std::optional<Diagnostic> encoding_problem(std::string_view text, const std::string& file) {
    Diagnostics found;
    const auto report = [&](SourcePosition position, std::string message, std::string fix) {
        detail::add_error(found, file, DiagnosticCode::SyntaxError, position, "",
                          std::move(message), std::move(fix));
        return found.front();
    };
    if (text.starts_with("\xFF\xFE") || text.starts_with("\xFE\xFF")) {
        return report({1, 1},
                      "the file is UTF-16 or UTF-32 text (it starts with that byte order mark), "
                      "not UTF-8",
                      "save the file as UTF-8");
    }
    if (const std::optional<std::size_t> bad = first_invalid_utf8(text)) {
        static constexpr char kHex[] = "0123456789abcdef";
        const auto byte = static_cast<unsigned char>(text[*bad]);
        return report(position_of_offset(text, *bad),
                      std::string("the file is not valid UTF-8: byte 0x") + kHex[byte >> 4] +
                          kHex[byte & 0xF] + " here does not belong to a UTF-8 character",
                      "save the file as UTF-8");
    }
    if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
        return report(position_of_offset(text, nul),
                      "the file contains a NUL byte: a policy file is text",
                      "remove the NUL byte (an editor or a copy may have added it)");
    }
    return std::nullopt;
}

}  // namespace

ParseResult parse(std::string_view text, std::string_view file, Syntax syntax) {
    if (std::optional<Diagnostic> problem = encoding_problem(text, std::string(file))) {
        ParseResult result;
        result.document.file = std::string(file);
        result.diagnostics.push_back(std::move(*problem));
        return result;
    }
    return syntax == Syntax::Text ? parse_text(text, file) : parse_yaml(text, file);
}

}  // namespace rebound::dsl
