// Findings of rules the lint machinery reports itself (configuration, suppressions).
#pragma once

#include <string>

#include "rebound/lint/finding.hpp"
#include "rebound/lint/rule.hpp"

namespace rebound::lint {

// A finding of rule `code` at its default severity. Precondition: `code` is registered.
inline Finding make_finding(const RuleRegistry& registry, std::string_view code, std::string file,
                            SourcePosition position, std::string message,
                            std::string suggestion = {}) {
    const Rule* rule = registry.find(code);
    Finding finding;
    finding.code = std::string(code);
    finding.rule = rule ? std::string(rule->info.name) : std::string{};
    finding.severity = rule ? rule->info.default_severity : Severity::Error;
    finding.message = std::move(message);
    finding.file = std::move(file);
    finding.position = position;
    finding.suggestion = std::move(suggestion);
    return finding;
}

}  // namespace rebound::lint
