// The one walk over a YAML mapping's entries, shared by the policy file reader and the vendor map
// loader: yaml-cpp keeps duplicate keys silently, so every mapping is walked here, and a key that
// is not a word, repeats an earlier key or is unknown is reported the same way for every file.
// Private to rebound::dsl.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "rebound/dsl/diagnostic.hpp"

namespace rebound::dsl::yaml {

// Records one problem: code, position, field path, message, suggestion.
using ReportProblem =
    std::function<void(DiagnosticCode, SourcePosition, std::string, std::string, std::string)>;

// One mapping to walk, and how its problems are worded.
struct MappingWalk {
    const YAML::Node& map;
    SourcePosition fallback;  // the position of a key yaml-cpp gives no mark
    std::string_view path;    // the mapping's field path ("policies.p"; "" at the top)
    std::string_view where;   // "in policy 'p'", "at the top level": ends the messages
    std::string_view noun;    // a duplicate's name: "key 'x'", "policy 'x'"
    // The keys the mapping may hold (others are RB005 unknown-key, with did-you-mean); nullopt
    // when its keys are names the user chooses.
    std::optional<std::span<const std::string_view>> allowed;
};

// An entry whose key is a word.
struct MappingEntry {
    const YAML::Node& key;
    const YAML::Node& value;
    SourcePosition key_position;
    const std::string& path;  // the entry's field path
};

// Hooks of a walk. `count` is asked before each key is looked at and stops the walk when it
// returns false (the reader's input limits); `screen` sees every entry with a word key before the
// duplicate check and skips it when it returns false (having reported why). Both may be empty.
struct MappingHooks {
    std::function<bool(SourcePosition key_position)> count;
    std::function<bool(const MappingEntry& entry)> screen;
};

// Walks `walk.map` in file order. Reports a key that is not a word (RB002 "a key must be a word,
// got ..."), a repeated key (RB003, detail::duplicate_message with the first one's line, keeping
// the first) and, with `allowed`, an unknown key (RB005); hands every other entry to `take`.
void walk_mapping(const MappingWalk& walk, const ReportProblem& report,
                  const std::function<void(const MappingEntry&)>& take,
                  const MappingHooks& hooks = {});

}  // namespace rebound::dsl::yaml
