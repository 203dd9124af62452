// The YAML emitter, in the layout of the spec's example: sections and policies as block
// mappings, every field value on its own line in flow style (`{ type: fixed, delay: 5s }`,
// `[deadlock, { sqlstate: "40001" }]`), routes as a block list of flow mappings. Also the
// syntax dispatch `emit()`.
#include "rebound/dsl/emit.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <string>
#include <string_view>

#include "emit_common.hpp"

namespace rebound::dsl {
namespace {

using emit_detail::FormNode;
using Kind = FormNode::Kind;

constexpr int kIndentStep = 2;

// Plain scalars that YAML 1.1 or 1.2 (or a lenient number reader) takes for a non-string.
constexpr std::array<std::string_view, 11> kReservedWords = {
    "true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf"};

bool is_word_char(char c) noexcept {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '.' || c == '-';
}

bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}

bool is_reserved_word(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](char c) {
        return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    });
    return std::find(kReservedWords.begin(), kReservedWords.end(), lower) != kReservedWords.end();
}

// Digits then letters: a duration (`50ms`) or an HTTP class (`5xx`), which no YAML reader takes
// for a number.
bool is_number_with_unit(std::string_view text) {
    const std::size_t letters = text.find_first_not_of("0123456789");
    return letters != std::string_view::npos && letters > 0 &&
           std::all_of(text.begin() + static_cast<std::ptrdiff_t>(letters), text.end(),
                       [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
}

// Whether `text` reads back as the same string when written bare: name characters only, no
// leading `-` or `.`, not a number, boolean or null.
bool prints_bare(std::string_view text) {
    if (text.empty() || !std::all_of(text.begin(), text.end(), is_word_char)) {
        return false;
    }
    if (is_digit(text.front())) {
        return is_number_with_unit(text);
    }
    return text.front() != '-' && text.front() != '.' && !is_reserved_word(text);
}

std::string word_text(std::string_view text) {
    return prints_bare(text) ? std::string(text) : emit_detail::double_quoted(text);
}

// Always with a point (2.0, as in the spec), so the value reads as a float.
std::string yaml_number(double value) {
    if (std::isnan(value)) {
        return ".nan";
    }
    if (std::isinf(value)) {
        return value < 0 ? "-.inf" : ".inf";
    }
    std::string text = emit_detail::number_text(value);
    if (text.find('.') == std::string::npos) {
        text += ".0";
    }
    return text;
}

std::string flow_text(const FormNode& node);

std::string flow_map_text(const FormNode& map) {
    if (map.entries.empty()) {
        return "{}";
    }
    std::string out = "{ ";
    for (std::size_t i = 0; i < map.entries.size(); ++i) {
        if (i > 0) {
            out += ", ";
        }
        out += word_text(map.entries[i].key) + ": " + flow_text(map.entries[i].value);
    }
    return out + " }";
}

std::string flow_list_text(const FormNode& list) {
    std::string out = "[";
    for (std::size_t i = 0; i < list.items.size(); ++i) {
        if (i > 0) {
            out += ", ";
        }
        out += flow_text(list.items[i]);
    }
    return out + "]";
}

std::string flow_text(const FormNode& node) {
    switch (node.kind) {
        case Kind::Map:
            return flow_map_text(node);
        case Kind::List:
            return flow_list_text(node);
        case Kind::Word:
            return word_text(node.text);
        case Kind::Text:
            return emit_detail::double_quoted(node.text);
        case Kind::Integer:
            return std::to_string(node.integer);
        case Kind::Number:
            return yaml_number(node.number);
        case Kind::Boolean:
            break;
    }
    return node.boolean ? "true" : "false";
}

void write_block_map(std::string& out, const FormNode& map, int indent);

// After `key:` on the current line: the value, then the line end.
void write_value(std::string& out, const FormNode& value, int indent) {
    const int inner = indent + kIndentStep;
    if (value.kind == Kind::Map && !value.flow && !value.entries.empty()) {
        out += '\n';
        write_block_map(out, value, inner);
    } else if (value.kind == Kind::List && !value.flow && !value.items.empty()) {
        out += '\n';
        for (const FormNode& item : value.items) {
            out.append(static_cast<std::size_t>(inner), ' ');
            out += "- " + flow_text(item) + '\n';
        }
    } else {
        out += ' ' + flow_text(value) + '\n';
    }
}

void write_block_map(std::string& out, const FormNode& map, int indent) {
    for (const auto& [key, value] : map.entries) {
        out.append(static_cast<std::size_t>(indent), ' ');
        out += word_text(key) + ':';
        write_value(out, value, indent);
    }
}

}  // namespace

std::string emit_yaml(const Document& document) {
    const FormNode root = emit_detail::document_form(document);
    if (root.entries.empty()) {
        return "{}\n";
    }
    std::string out;
    write_block_map(out, root, 0);
    return out;
}

std::string emit(const Document& document, Syntax syntax) {
    switch (syntax) {
        case Syntax::Json:
            return emit_json(document);
        case Syntax::Text:
            return emit_text(document);
        case Syntax::Yaml:
            break;
    }
    return emit_yaml(document);
}

}  // namespace rebound::dsl
