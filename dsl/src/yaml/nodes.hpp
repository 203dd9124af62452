// yaml-cpp's nodes as the YAML reader sees them: values with their position, field path and
// label, and how messages describe them. Private to rebound::dsl: yaml-cpp never appears in a
// public header.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "rebound/dsl/source_position.hpp"

namespace rebound::dsl::yaml {

// yaml-cpp marks are 0-based and -1 when absent; ours are 1-based and 0 when absent.
SourcePosition position_of(const YAML::Mark& mark) noexcept;

// Quoted and block scalars, and explicit !!str, are text whatever they contain.
bool is_quoted(const YAML::Node& node);

bool is_plain_scalar(const YAML::Node& node);

// The tag written on `node` (`!!binary` as "tag:yaml.org,2002:binary", `!custom`), or nullopt
// when it has none or only `!!str`, which the format allows (docs/policy-format.md, Values).
std::optional<std::string> explicit_tag(const YAML::Node& node);

// How a value is named in "got ..." parts of messages.
std::string describe(const YAML::Node& node);

// One value of the file: its node, where it is, its field path, and how messages name it.
struct Value {
    YAML::Node node;
    SourcePosition position;  // of the value; of its key when the value is empty
    std::string path;         // "policies.p.backoff.max"
    std::string key;          // "max"; for list items, the list's key
    std::string label;        // "'max'", "item 2 of 'retry_on'", "policy 'p'"
};

// One entry of a mapping whose key was readable, unique and allowed.
struct Entry {
    std::string key;
    SourcePosition key_position;
    Value value;
};

// Where a mapping sits, for field paths and for messages ("in the backoff of policy 'p'").
struct Context {
    std::string path;   // "policies.p"
    std::string where;  // "in policy 'p'"
    std::string owner;  // "policy 'p'"

    // The context of the mapping under `key`, named `noun` in messages ("the backoff").
    Context part(std::string_view key, std::string_view noun) const;
};

// The item values of a sequence node.
std::vector<Value> items_of(const Value& list);

}  // namespace rebound::dsl::yaml
