// The JSON emitter: the YAML form's structure as JSON (durations as strings with units), pretty
// printed with two-space indentation. The YAML front end reads it back.
#include "rebound/dsl/emit.hpp"

#include <nlohmann/json.hpp>
#include <string>

#include "emit_common.hpp"
#include "rebound/output_text.hpp"

namespace rebound::dsl {
namespace {

using emit_detail::FormNode;
using Json = nlohmann::ordered_json;  // keeps the canonical key order

constexpr int kIndent = 2;

Json to_json(const FormNode& node) {
    switch (node.kind) {
        case FormNode::Kind::Map: {
            Json object = Json::object();
            for (const auto& [key, value] : node.entries) {
                object[key] = to_json(value);
            }
            return object;
        }
        case FormNode::Kind::List: {
            Json array = Json::array();
            for (const FormNode& item : node.items) {
                array.push_back(to_json(item));
            }
            return array;
        }
        case FormNode::Kind::Word:
        case FormNode::Kind::Text:
            return node.text;
        case FormNode::Kind::Integer:
            return node.integer;
        case FormNode::Kind::Number:
            return node.number;  // non-finite values print as null
        case FormNode::Kind::Boolean:
            break;
    }
    return node.boolean;
}

}  // namespace

std::string emit_json(const Document& document) {
    // Invalid UTF-8 in a string is replaced (U+FFFD) rather than thrown as an error.
    return json_output(to_json(emit_detail::document_form(document)), kIndent) + '\n';
}

}  // namespace rebound::dsl
