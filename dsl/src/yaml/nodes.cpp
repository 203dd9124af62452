#include "yaml/nodes.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/dsl/text_toolkit/quoting.hpp"
#include "yaml/text_helpers.hpp"

namespace rebound::dsl::yaml {

// yaml-cpp marks are 0-based and -1 when absent; ours are 1-based and 0 when absent.
SourcePosition position_of(const YAML::Mark& mark) noexcept {
    if (mark.line < 0 || mark.column < 0) {
        return {};
    }
    return {static_cast<std::uint32_t>(mark.line) + 1U,
            static_cast<std::uint32_t>(mark.column) + 1U};
}

// Quoted and block scalars, and explicit !!str, are text whatever they contain.
bool is_quoted(const YAML::Node& node) {
    return node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str";
}

// yaml-cpp gives untagged plain values "?" (or nothing) and quoted ones "!".
std::optional<std::string> explicit_tag(const YAML::Node& node) {
    const std::string& tag = node.Tag();
    if (tag.empty() || tag == "?" || tag == "!" || tag == "tag:yaml.org,2002:str") {
        return std::nullopt;
    }
    return tag;
}

bool is_plain_scalar(const YAML::Node& node) {
    return node.IsScalar() && !is_quoted(node);
}

// How a value is named in "got ..." parts of messages.
std::string describe(const YAML::Node& node) {
    if (node.IsSequence()) {
        return "a list";
    }
    if (node.IsMap()) {
        return "a mapping";
    }
    if (!node.IsScalar()) {
        return "nothing";
    }
    if (is_quoted(node)) {
        return "the text \"" + excerpt(node.Scalar()) + "\"";
    }
    return quoted_excerpt(node.Scalar());
}

// The item values of a sequence node.
std::vector<Value> items_of(const Value& list) {
    std::vector<Value> items;
    std::size_t index = 0;
    for (auto it = list.node.begin(); it != list.node.end(); ++it, ++index) {
        const YAML::Node item = *it;
        SourcePosition position = position_of(item.Mark());
        if (item.IsNull() || !position.known()) {
            position = list.position;
        }
        items.push_back(Value{item, position, item_path(list.path, index), list.key,
                              "item " + std::to_string(index + 1) + " of " + list.label});
    }
    return items;
}

Context Context::part(std::string_view key, std::string_view noun) const {
    return {child_path(path, key), "in " + std::string(noun) + " of " + owner, owner};
}

}  // namespace rebound::dsl::yaml
