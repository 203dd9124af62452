#include "yaml/mapping.hpp"

#include <map>

#include "rebound/dsl/syntax.hpp"

#include "diagnostic_sink.hpp"
#include "rebound/dsl/text_toolkit/quoting.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"
#include "yaml/nodes.hpp"
#include "yaml/text_helpers.hpp"

namespace rebound::dsl::yaml {

void walk_mapping(const MappingWalk& walk, const ReportProblem& report,
                  const std::function<void(const MappingEntry&)>& take, const MappingHooks& hooks) {
    std::map<std::string, SourcePosition, std::less<>> seen;
    for (auto it = walk.map.begin(); it != walk.map.end(); ++it) {
        const YAML::Node key = it->first;
        const YAML::Node value = it->second;
        SourcePosition key_position = position_of(key.Mark());
        if (!key_position.known()) {
            key_position = walk.fallback;
        }
        if (hooks.count && !hooks.count(key_position)) {
            return;
        }
        if (!key.IsScalar()) {
            report(DiagnosticCode::WrongType, key_position, std::string(walk.path),
                   "a key must be a word, got " + describe(key) + " " + std::string(walk.where),
                   {});
            continue;
        }
        const std::string& name = key.Scalar();
        const std::string path = child_path(walk.path, name);
        const MappingEntry entry{key, value, key_position, path};
        if (hooks.screen && !hooks.screen(entry)) {
            continue;
        }
        const auto [first, inserted] = seen.try_emplace(name, key_position);
        if (!inserted) {
            report(DiagnosticCode::DuplicateKey, key_position, path,
                   detail::duplicate_message(std::string(walk.noun) + " " + quoted_excerpt(name),
                                             first->second.line),
                   std::string(detail::kKeepTheFirst));
            continue;
        }
        if (walk.allowed && !contains(*walk.allowed, name)) {
            report(DiagnosticCode::UnknownKey, key_position, path,
                   "unknown key " + quoted_excerpt(name) + " " + std::string(walk.where),
                   suggestion_for(name, *walk.allowed));
            continue;
        }
        take(entry);
    }
}

}  // namespace rebound::dsl::yaml
