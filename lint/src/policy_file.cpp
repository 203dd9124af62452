#include "policy_file.hpp"

#include <algorithm>
#include <map>

namespace rebound::lint {
namespace {

template <typename T>
void take_if_absent(std::optional<T>& mine, const std::optional<T>& theirs) {
    if (!mine && theirs) {
        mine = theirs;
    }
}

// The compiler's inheritance rule (compile.hpp), kept with positions: lists and objects are
// replaced whole, and max_attempts/max_retries are one setting.
dsl::PolicyFields merge_fields(dsl::PolicyFields child, const dsl::PolicyFields& base) {
    if (!child.max_attempts && !child.max_retries) {
        child.max_attempts = base.max_attempts;
        child.max_retries = base.max_retries;
    }
    take_if_absent(child.backoff, base.backoff);
    take_if_absent(child.jitter, base.jitter);
    take_if_absent(child.deadline, base.deadline);
    take_if_absent(child.min_attempt_budget, base.min_attempt_budget);
    take_if_absent(child.attempt_timeout, base.attempt_timeout);
    take_if_absent(child.retry_on, base.retry_on);
    take_if_absent(child.never_retry_on, base.never_retry_on);
    take_if_absent(child.retry_if, base.retry_if);
    take_if_absent(child.on_exhausted, base.on_exhausted);
    take_if_absent(child.budget, base.budget);
    take_if_absent(child.routes, base.routes);
    return child;
}

}  // namespace

PolicyFileContext::PolicyFileContext(const dsl::Document& document,
                                     std::shared_ptr<const PolicySet> set,
                                     const LintSettings& settings)
    : document_(document), set_(std::move(set)), settings_(settings) {
    std::map<std::string_view, const dsl::PolicyNode*> by_name;
    for (const dsl::PolicyNode& node : document_.policies) {
        by_name.emplace(node.name.value, &node);
    }
    for (const dsl::PolicyNode& node : document_.policies) {
        ResolvedPolicy resolved;
        resolved.node = &node;
        resolved.fields = node.fields;
        // A compiled file has no cycles and no unknown parents; the bound guards anyway.
        const dsl::PolicyNode* current = &node;
        for (std::size_t depth = 0; current->fields.extends && depth < by_name.size(); ++depth) {
            const auto parent = by_name.find(current->fields.extends->value);
            if (parent == by_name.end()) {
                break;
            }
            current = parent->second;
            resolved.fields = merge_fields(std::move(resolved.fields), current->fields);
        }
        if (document_.defaults) {
            resolved.fields = merge_fields(std::move(resolved.fields), document_.defaults->fields);
        }
        resolved.policy = set_->find(node.name.value);
        if (resolved.policy) {
            policies_.push_back(std::move(resolved));
        }
    }
}

void RuleReporter::report(SourcePosition position, std::string message, std::string suggestion) {
    Finding finding;
    finding.code = std::string(rule_.code);
    finding.rule = std::string(rule_.name);
    finding.severity = rule_.default_severity;
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
