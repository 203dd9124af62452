#include "yaml/input_guard.hpp"

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "diagnostic_sink.hpp"
#include "limits_check.hpp"
#include "rebound/dsl/input_limits.hpp"
#include "rebound/dsl/text_toolkit/quoting.hpp"
#include "yaml/nodes.hpp"
#include "yaml/text_helpers.hpp"

namespace rebound::dsl::yaml {

bool InputGuard::spend(std::size_t count, SourcePosition where) {
    if (over_budget_) {
        return false;
    }
    nodes_ += count;
    if (nodes_ <= kMaxNodes) {
        return true;
    }
    over_budget_ = true;
    report_(DiagnosticCode::LimitExceeded, where, "",
            "the file has more than " + std::to_string(kMaxNodes) +
                " values (an aliased value counts each time it is used): the rest was not read",
            "write the values once instead of multiplying them with aliases");
    return false;
}

bool InputGuard::refuse_tag(const YAML::Node& node, SourcePosition position,
                            const std::string& path) {
    const std::optional<std::string> tag = explicit_tag(node);
    if (!tag) {
        return false;
    }
    std::string written = *tag;
    if (constexpr std::string_view kCore = "tag:yaml.org,2002:"; written.starts_with(kCore)) {
        written = "!!" + written.substr(kCore.size());
    }
    report_(DiagnosticCode::WrongType, position, path,
            "YAML tags are not supported, got " + quoted_excerpt(excerpt(written)),
            "remove the tag: values are read by the field they belong to");
    return true;
}

bool InputGuard::screen(const MappingEntry& entry, const std::string& map_path) {
    const SourcePosition value_mark = position_of(entry.value.Mark());
    return !refuse_tag(entry.key, entry.key_position, map_path) &&
           !refuse_tag(entry.value, value_mark.known() ? value_mark : entry.key_position,
                       entry.path);
}

MappingHooks InputGuard::hooks(const std::string& map_path) {
    MappingHooks hooks;
    hooks.count = [this](SourcePosition key_position) { return spend(1, key_position); };
    hooks.screen = [this, &map_path](const MappingEntry& entry) { return screen(entry, map_path); };
    return hooks;
}

void screen_tree(const YAML::Node& root, InputGuard& guard) {
    struct Pending {
        YAML::Node node;
        SourcePosition fallback;  // where a node without a mark is reported
    };
    // Depth first, in file order: the children of a node go on the stack last one first.
    std::vector<Pending> pending{{root, {1, 1}}};
    std::vector<Pending> children;
    while (!pending.empty() && !guard.over_budget()) {
        const Pending next = std::move(pending.back());
        pending.pop_back();
        SourcePosition position = position_of(next.node.Mark());
        if (!position.known()) {
            position = next.fallback;
        }
        (void)guard.refuse_tag(next.node, position, "");
        children.clear();
        if (next.node.IsMap()) {
            for (auto it = next.node.begin(); it != next.node.end(); ++it) {
                SourcePosition key_position = position_of(it->first.Mark());
                if (!key_position.known()) {
                    key_position = position;
                }
                if (!guard.spend(1, key_position)) {
                    return;
                }
                children.push_back({it->first, key_position});
                children.push_back({it->second, key_position});
            }
        } else if (next.node.IsSequence()) {
            if (!guard.spend(next.node.size(), position)) {
                return;
            }
            for (auto it = next.node.begin(); it != next.node.end(); ++it) {
                children.push_back({*it, position});
            }
        }
        pending.insert(pending.end(), children.rbegin(), children.rend());
    }
}

Diagnostics screen_document(const YAML::Node& root, std::string_view file) {
    Diagnostics diagnostics;
    const std::string name(file);
    InputGuard guard([&](DiagnosticCode code, SourcePosition position, std::string field,
                         std::string message, std::string suggestion) {
        detail::add_error(diagnostics, name, code, position, std::move(field), std::move(message),
                          std::move(suggestion));
    });
    screen_tree(root, guard);
    detail::cap_diagnostics(diagnostics, name);
    return diagnostics;
}

}  // namespace rebound::dsl::yaml

namespace rebound::dsl {

Diagnostics check_yaml_input(std::string_view text, std::string_view file, std::string_view what) {
    if (std::optional<Diagnostic> too_large = check_input_size(file, text.size(), what)) {
        return {std::move(*too_large)};
    }
    YAML::Node root;
    try {
        root = YAML::Load(std::string(text));
    } catch (const YAML::Exception&) {
        return {};  // not YAML: the caller's parse reports where and why
    }
    return yaml::screen_document(root, file);
}

}  // namespace rebound::dsl
