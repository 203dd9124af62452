#include "policy_file.hpp"

#include <algorithm>
#include <map>

#include "rebound/dsl/compile.hpp"
#include "rebound/dsl/input_limits.hpp"

namespace rebound::lint {

PolicyFileContext::PolicyFileContext(const dsl::Document& document,
                                     std::shared_ptr<const PolicySet> set,
                                     const LintSettings& settings, std::string_view source)
    : document_(document), set_(std::move(set)), settings_(settings), source_(source) {
    std::map<std::string_view, const dsl::PolicyNode*> by_name;
    for (const dsl::PolicyNode& node : document_.policies) {
        by_name.emplace(node.name.value, &node);
    }
    for (const dsl::PolicyNode& node : document_.policies) {
        ResolvedPolicy resolved;
        resolved.policy = set_->find(node.name.value);
        if (!resolved.policy) {
            continue;  // did not compile: its chain may be a circle
        }
        resolved.node = &node;
        resolved.fields = node.fields;
        // A compiled policy has no circle, no unknown parent and a chain of at most
        // kMaxExtendsDepth; the bound guards anyway.
        const dsl::PolicyNode* current = &node;
        for (std::size_t depth = 0; current->fields.scalars.contains(PolicyField::Extends) &&
                                    depth < dsl::kMaxExtendsDepth;
             ++depth) {
            const auto parent = by_name.find(current->fields.text(PolicyField::Extends)->value);
            if (parent == by_name.end()) {
                break;
            }
            current = parent->second;
            resolved.fields = dsl::merge_fields(std::move(resolved.fields), current->fields);
        }
        if (document_.defaults) {
            resolved.fields =
                dsl::merge_fields(std::move(resolved.fields), document_.defaults->fields);
        }
        policies_.push_back(std::move(resolved));
    }
}

void RuleReporter::report(SourcePosition position, std::string message, std::string suggestion,
                          std::optional<Severity> severity) {
    Finding finding;
    finding.code = std::string(rule_.code);
    finding.rule = std::string(rule_.name);
    finding.severity = severity.value_or(rule_.default_severity);
    finding.message = std::move(message);
    finding.file = file_;
    finding.position = position;
    finding.suggestion = std::move(suggestion);
    const bool repeated = std::find(out_.begin(), out_.end(), finding) != out_.end();
    if (!repeated) {
        out_.push_back(std::move(finding));
    }
}

}  // namespace rebound::lint
