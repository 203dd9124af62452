// The limits of input_limits.hpp as every YAML file of the project is read under them: policy
// files (yaml/reader.cpp), vendor maps (vendor_map_loader.cpp) and the lint configuration (through
// check_yaml_input). One place counts the values read and refuses YAML tags, so that the three
// kinds of file cannot drift apart. Private to rebound::dsl.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "rebound/dsl/diagnostic.hpp"
#include "yaml/mapping.hpp"

namespace rebound::dsl::yaml {

// Counts the values a reader visits and refuses tags, reporting through `report`.
class InputGuard {
  public:
    explicit InputGuard(ReportProblem report) : report_(std::move(report)) {}

    // Counts `count` more values (mapping entries or list items; an aliased value each time it is
    // used) read at `where`; false past kMaxNodes, reported once (RB112 at `where`): the reader
    // stops reading.
    bool spend(std::size_t count, SourcePosition where);

    // Reports a YAML tag written on `node` (`!!binary`, `!custom`) as RB004 at `position` with
    // field `path`; whether there was one. `!!str` and the tags yaml-cpp gives untagged and quoted
    // scalars are not tags written by the user.
    bool refuse_tag(const YAML::Node& node, SourcePosition position, const std::string& path);

    // Refuses a tag on the key (field `map_path`, the mapping's path) or the value of `entry`
    // (at the key's position when yaml-cpp gives the value none); whether the entry is free of
    // tags. For MappingHooks::screen.
    bool screen(const MappingEntry& entry, const std::string& map_path);

    // The hooks of a walk_mapping over the mapping at `map_path` that count every key and skip
    // the entries with a tag. The hooks refer to this guard and to `map_path`: both must outlive
    // them.
    MappingHooks hooks(const std::string& map_path);

    bool over_budget() const noexcept { return over_budget_; }

  private:
    ReportProblem report_;
    std::size_t nodes_ = 0;  // values read so far, aliased ones once per use
    bool over_budget_ = false;
};

// Visits every value under `root` (aliases expanded, as a reader following them would) through
// `guard`: counts the entries and items and refuses every tag, until the guard is over budget.
// Never recurses: an alias of its own parent (`&a [*a]`) ends at kMaxNodes, not on the stack.
void screen_tree(const YAML::Node& root, InputGuard& guard);

// screen_tree of the document `root` of `file` with a guard of its own: the problems found, each
// naming `file`, at most kMaxDiagnostics of them.
Diagnostics screen_document(const YAML::Node& root, std::string_view file);

}  // namespace rebound::dsl::yaml
