#include "yaml/syntax_messages.hpp"

#include <algorithm>
#include <string>
#include <string_view>

#include "rebound/dsl/text_toolkit/quoting.hpp"
#include "yaml/text_helpers.hpp"

namespace rebound::dsl::yaml {
namespace {

struct SyntaxMessage {
    std::string_view yaml_cpp_prefix;
    std::string_view sentence;
};

constexpr SyntaxMessage kSyntaxMessages[] = {
    // yaml-cpp's depth guard (DeepRecursion, whose type the library does not export) says this.
    {"bad file", "lists or mappings are nested too deeply"},
    {"end of sequence flow not found", "a list opened with '[' is not closed with ']'"},
    {"end of map flow not found", "a mapping opened with '{' is not closed with '}'"},
    {"end of sequence not found", "a list ends unexpectedly here; check the indentation"},
    {"end of map not found", "a mapping ends unexpectedly here; check the indentation"},
    {"illegal tab when looking for indentation", kTabIndentSentence},
    {"illegal block entry", "a list item ('- ') cannot start here; check the indentation"},
    {"illegal map key", "a key cannot start here; check the indentation"},
    {"illegal map value", "a ':' cannot appear here; check the indentation or quote the value"},
    {"illegal flow end", "a ']' or '}' here has no matching '[' or '{'"},
    {"the referenced anchor is not defined",
     "this alias refers to an anchor ('&name') that is not defined before it"},
    {"illegal EOF in scalar", "a quoted text is not closed before the end of the file"},
    {"illegal document indicator in scalar", "a quoted text runs into a '---' or '...' line"},
    {"unknown escape character", "unknown escape sequence in a double-quoted text"},
    {"invalid unicode", "invalid \\u escape in a double-quoted text"},
    {"unknown token", "unexpected character"},
    {"invalid character in single-quoted string", "invalid character in a single-quoted text"},
    {"cannot assign multiple anchors", "a value cannot have two anchors"},
    {"cannot assign multiple tags", "a value cannot have two tags"},
    {"aliases can't have any content", "an alias ('*name') cannot have content or a tag"},
};

}  // namespace

std::string syntax_sentence(const YAML::ParserException& error) {
    for (const SyntaxMessage& known : kSyntaxMessages) {
        if (std::string_view(error.msg).starts_with(known.yaml_cpp_prefix)) {
            return std::string(known.sentence);
        }
    }
    return "the text cannot be read (" + excerpt(error.msg) + ")";
}

std::optional<SourcePosition> first_indenting_tab(std::string_view text, std::uint32_t last_line) {
    std::uint32_t line = 1;
    for (std::size_t start = 0; start < text.size() && line <= last_line; ++line) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        const std::string_view content = text.substr(start, end - start);
        for (std::size_t column = 0; column < content.size(); ++column) {
            if (content[column] == '\t') {
                return SourcePosition{line, static_cast<std::uint32_t>(column + 1)};
            }
            if (content[column] != ' ') {
                break;
            }
        }
        start = end + 1;
    }
    return std::nullopt;
}

}  // namespace rebound::dsl::yaml
