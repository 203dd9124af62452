#include "policy_schema.hpp"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/backoff.hpp"
#include "rebound/hedge.hpp"
#include "rebound/jitter.hpp"
#include "rebound/output_text.hpp"
#include "rebound/policy_field.hpp"

namespace rebound::cli {
namespace {

using Json = nlohmann::ordered_json;

// Markdown of the table's texts as plain text: `code` loses its backticks, [text](#anchor) keeps
// its text.
std::string plain(std::string_view markdown) {
    static const std::regex link(R"(\[([^\]]*)\]\([^)]*\))");
    std::string text = std::regex_replace(std::string(markdown), link, "$1");
    std::erase(text, '`');
    return text;
}

// "Docs. Values: range. Default: D." from the row; a range that only points to another section
// is left out.
std::string description(const PolicyFieldInfo& info) {
    std::string text = plain(info.docs);
    if (!info.docs.starts_with('`') && !text.empty() && text[0] >= 'a' && text[0] <= 'z') {
        text[0] = static_cast<char>(text[0] - 'a' + 'A');
    }
    text += ".";
    if (!info.range.empty() && !info.range.starts_with("see ")) {
        text += " Values: " + plain(info.range) + ".";
    }
    if (!info.default_value.empty()) {
        text += " Default: " + plain(info.default_value) + ".";
    }
    return text;
}

// The words of a Word field's range: "`fail` or `dead_letter`", "stop, cap or ignore" (the
// range is the vocabulary's kWordList).
std::vector<std::string> words_of(std::string_view range) {
    std::string text = plain(range);
    std::vector<std::string> words;
    static const std::regex separator(R"(, | or )");
    for (std::sregex_token_iterator it(text.begin(), text.end(), separator, -1), end; it != end;
         ++it) {
        words.push_back(*it);
    }
    return words;
}

// A vocabulary's rows (rebound/vocabulary.hpp) as the schema uses them.
struct SchemaWord {
    std::string_view word;
    std::string_view help;
};

template <Vocabulary Enum>
std::vector<SchemaWord> schema_words(bool (*keep)(Enum) = nullptr) {
    std::vector<SchemaWord> words;
    for (const auto& row : vocabulary(Enum{})) {
        if (keep == nullptr || keep(row.value)) {
            words.push_back({row.word, row.help});
        }
    }
    return words;
}

// The vocabularies the parts name by `"words": NAME`; the words of a Group field's variants.
std::vector<SchemaWord> named_words(std::string_view name) {
    if (name == "bare jitter kinds") {
        return schema_words<JitterType>(&is_bare_word);
    }
    if (name == "hedge on_failure") {
        return schema_words<HedgeOnFailure>();
    }
    if (name == "backoff") {
        return schema_words<BackoffType>();
    }
    if (name == "jitter") {
        return schema_words<JitterType>();
    }
    throw std::logic_error("policy_schema: no vocabulary named " + std::string(name));
}

// The description of `words` in one of the styles the parts name by `"describe"`: "help"
// ("a: help of a; b: help of b."), "sentences" ("a: help of a. b: help of b.") or "list"
// ("a, b or c.").
std::string words_description(const std::vector<SchemaWord>& words, std::string_view style) {
    std::string text;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (style == "list") {
            text += i == 0 ? "" : i + 1 == words.size() ? " or " : ", ";
            text += words[i].word;
        } else {
            text += i == 0 ? "" : style == "help" ? "; " : ". ";
            text += std::string(words[i].word) + ": " + std::string(words[i].help);
        }
    }
    return text + ".";
}

// The parts with each `"words": NAME` replaced by the vocabulary's `"enum"` and each
// `"describe": STYLE` by its "description", in place, so that the schema keeps the parts' order.
Json with_words(const Json& part) {
    if (part.is_array()) {
        Json items = Json::array();
        for (const Json& item : part) {
            items.push_back(with_words(item));
        }
        return items;
    }
    if (!part.is_object()) {
        return part;
    }
    const std::vector<SchemaWord> words = part.contains("words")
                                              ? named_words(part["words"].get<std::string>())
                                              : std::vector<SchemaWord>{};
    Json object = Json::object();
    for (const auto& [key, value] : part.items()) {
        if (key == "words") {
            Json list = Json::array();
            for (const SchemaWord& word : words) {
                list.push_back(word.word);
            }
            object["enum"] = std::move(list);
        } else if (key == "describe") {
            object["description"] = words_description(words, value.get<std::string>());
        } else {
            object[key] = with_words(value);
        }
    }
    return object;
}

// The help of `word` in the vocabulary of the Group field `field` (backoff, jitter).
std::string_view help_of(std::string_view field, std::string_view word) {
    for (const SchemaWord& known : named_words(field)) {
        if (known.word == word) {
            return known.help;
        }
    }
    throw std::logic_error("policy_schema: " + std::string(field) + " has no type " +
                           std::string(word));
}

Json number(const std::string& text) {
    if (text.find('.') == std::string::npos) {
        return std::stoll(text);
    }
    return std::stod(text);
}

// A bound as JSON: a whole number as an integer ("maximum": 100), any other as a decimal.
Json bound(double value) {
    const auto whole = static_cast<std::int64_t>(value);
    return static_cast<double>(whole) == value ? Json(whole) : Json(value);
}

void add_bounds(Json& schema, const PolicyFieldInfo& info) {
    schema[info.bounds.min_excluded ? "exclusiveMinimum" : "minimum"] = bound(info.bounds.min);
    schema["maximum"] = bound(info.bounds.max);
}

Json reference(std::string_view definition) {
    return Json::array({Json{{"$ref", "#/definitions/" + std::string(definition)}}});
}

// "min_attempt_budget" -> "minAttemptBudget": the definition of a top-level field.
std::string definition_name(std::string_view wire_name) {
    std::string name;
    bool upper = false;
    for (const char c : wire_name) {
        if (c == '_') {
            upper = true;
        } else {
            name += upper ? static_cast<char>(c - 'a' + 'A') : c;
            upper = false;
        }
    }
    return name;
}

std::vector<const PolicyFieldInfo*> children_of(PolicyField parent) {
    std::vector<const PolicyFieldInfo*> children;
    for (const PolicyFieldInfo& info : policy_fields()) {
        if (info.parent == parent && info.id != parent) {
            children.push_back(&info);
        }
    }
    return children;
}

const PolicyFieldInfo& child_named(PolicyField parent, std::string_view wire_name) {
    for (const PolicyFieldInfo* child : children_of(parent)) {
        if (child->wire_name == wire_name) {
            return *child;
        }
    }
    throw std::logic_error("policy_schema: " + field_path(parent) + " has no field " +
                           std::string(wire_name));
}

Json field_schema(const PolicyFieldInfo& info, const Json& parts);

// The mapping of a Group field's children (or of one item of a GroupList field).
Json mapping(const PolicyFieldInfo& info, const Json& part, std::string description) {
    Json schema{{"description", std::move(description)}, {"type", "object"}};
    if (part.contains("required")) {
        schema["required"] = part["required"];
    }
    schema["additionalProperties"] = false;
    Json properties = Json::object();
    for (const PolicyFieldInfo* child : children_of(info.id)) {
        properties[std::string(child->wire_name)] = field_schema(*child, part);
    }
    schema["properties"] = std::move(properties);
    return schema;
}

// A Group field written in one of several shapes (backoff, jitter): the parts list the shapes; a
// shape with a `word` is the mapping of that type word and the fields it names.
Json variants(const PolicyFieldInfo& info, const Json& part) {
    Json schema{{"description", description(info)}};
    if (part.contains("default")) {
        schema["default"] = part["default"];
    }
    Json shapes = Json::array();
    for (const Json& shape : part.at("oneOf")) {
        if (!shape.contains("word")) {
            shapes.push_back(shape);
            continue;
        }
        const std::string word = shape.at("word");
        // "fixed: the same delay before every retry.", unless the parts word it themselves.
        const std::string_view help = help_of(info.wire_name, word);
        const std::string shape_description = shape.contains("description")
                                                  ? shape["description"].get<std::string>()
                                                  : word + ": " + std::string(help) + ".";
        std::string type_description = part.at("word_description");
        type_description.replace(type_description.find("{}"), 2, word);
        Json properties{{"type", {{"description", type_description}, {"const", word}}}};
        for (const Json& name : shape.at("fields")) {
            properties[name.get<std::string>()] =
                field_schema(child_named(info.id, name.get<std::string>()), Json::object());
        }
        shapes.push_back(Json{{"description", shape_description},
                              {"type", "object"},
                              {"required", shape.at("required")},
                              {"additionalProperties", false},
                              {"properties", std::move(properties)}});
    }
    schema["oneOf"] = std::move(shapes);
    return schema;
}

Json field_schema(const PolicyFieldInfo& info, const Json& parts) {
    const std::string key(info.wire_name);
    const Json part = parts.contains(key) ? parts[key] : Json::object();
    const bool has_default = !info.default_value.empty() && info.default_value != "none";
    Json schema{{"description", description(info)}};
    switch (info.kind) {
        case FieldKind::Name:
            schema["allOf"] = reference(part.at("ref").get<std::string>());
            break;
        case FieldKind::Count:
            schema["type"] = "integer";
            schema["minimum"] = info.min;
            schema["maximum"] = info.max;
            if (has_default) {
                schema["default"] = number(std::string(info.default_value));
            }
            break;
        case FieldKind::Number:
            schema["type"] = "number";
            add_bounds(schema, info);
            if (has_default) {
                schema["default"] = std::stod(std::string(info.default_value));
            }
            break;
        case FieldKind::TimeSpan: {
            if (has_default) {
                const std::string value(info.default_value);
                const bool digits = value.find_first_not_of("0123456789") == std::string::npos;
                schema["default"] = digits ? Json(std::stoll(value)) : Json(value);
            }
            const bool positive = info.range.starts_with("duration > 0");
            schema["allOf"] = reference(positive ? "positiveDuration" : "duration");
            break;
        }
        case FieldKind::Text:
            schema["type"] = "string";
            if (info.range.find("non-empty") != std::string_view::npos) {
                schema["minLength"] = 1;
            }
            if (info.range.starts_with("name")) {  // quoted in the text DSL, but a name
                schema["allOf"] = reference("name");
            }
            break;
        case FieldKind::Word:
            schema["type"] = "string";
            schema["enum"] = words_of(info.range);
            if (has_default) {
                schema["default"] = plain(info.default_value);
            }
            break;
        case FieldKind::MatcherList:
            schema["default"] = Json::array();
            schema["allOf"] = reference("matcherList");
            break;
        case FieldKind::NameList:
            schema["type"] = "array";
            schema["default"] = Json::array();
            schema["items"] = Json{{"description", "A name."}, {"allOf", reference("name")}};
            break;
        case FieldKind::Group:
            if (part.contains("schema")) {  // hand-kept whole (hedge: a word or a mapping)
                return part["schema"];
            }
            if (part.contains("oneOf")) {
                return variants(info, part);
            }
            return mapping(info, part, description(info));
        case FieldKind::GroupList:
            schema["type"] = "array";
            schema["items"] = mapping(info, part, part.at("item_description").get<std::string>());
            break;
    }
    return schema;
}

// A policy's or `defaults`' mapping: the skeleton of the parts, with a property for each field
// that may be written there, after additionalProperties.
Json container(const Json& skeleton, bool with_policy_only) {
    Json schema = Json::object();
    for (const auto& [key, value] : skeleton.items()) {
        schema[key] = value;
        if (key != "additionalProperties") {
            continue;
        }
        Json properties = Json::object();
        for (const PolicyFieldInfo& info : policy_fields()) {
            if (info.place == FieldPlace::PolicyBody ||
                (with_policy_only && info.place == FieldPlace::PolicyOnly)) {
                properties[std::string(info.wire_name)] =
                    Json{{"$ref", "#/definitions/" + definition_name(info.wire_name)}};
            }
        }
        schema["properties"] = std::move(properties);
    }
    return schema;
}

}  // namespace

std::string policy_schema() {
    const Json parts = with_words(Json::parse(policy_schema_parts()));
    Json schema = parts.at("document");
    Json definitions = parts.at("definitions");
    for (const PolicyFieldInfo& info : policy_fields()) {
        if (is_top_level(info.id) && info.place != FieldPlace::NotWritten) {
            definitions[definition_name(info.wire_name)] = field_schema(info, parts.at("fields"));
        }
    }
    definitions["policy"] = container(parts.at("containers").at("policy"), true);
    definitions["defaults"] = container(parts.at("containers").at("defaults"), false);
    schema["definitions"] = std::move(definitions);
    return json_output(schema, 2) + "\n";
}

}  // namespace rebound::cli
