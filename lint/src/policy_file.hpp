// What a semantic rule sees of one compiled policy file: the document as written, the compiled
// policy set, and each policy's fields after inheritance with the positions of their text.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/dsl/document.hpp"
#include "rebound/lint/config.hpp"
#include "rebound/lint/finding.hpp"
#include "rebound/lint/rule.hpp"
#include "rebound/policy_set.hpp"

namespace rebound::lint {

// One policy after `extends`, then `defaults`: each field keeps the position of the text it was
// inherited from. Fields absent everywhere are built-in defaults (see `spec`).
struct ResolvedPolicy {
    const dsl::PolicyNode* node = nullptr;
    dsl::PolicyFields fields;
    std::shared_ptr<const Policy> policy;

    const PolicySpec& spec() const noexcept { return policy->spec(); }
    const std::string& name() const noexcept { return node->name.value; }
    SourcePosition name_position() const noexcept { return node->name.position; }
};

class PolicyFileContext {
  public:
    // Preconditions: `set` was compiled from `document` (whole, or the parts that compile on
    // their own: dsl::compile_valid_parts); `source` is the text
    // `document` was read from, and outlives the context.
    PolicyFileContext(const dsl::Document& document, std::shared_ptr<const PolicySet> set,
                      const LintSettings& settings, std::string_view source = {});

    const dsl::Document& document() const noexcept { return document_; }
    // The file's text, for rules about how a value was written.
    std::string_view source() const noexcept { return source_; }
    const PolicySet& policy_set() const noexcept { return *set_; }
    const LintSettings& settings() const noexcept { return settings_; }
    const std::vector<ResolvedPolicy>& policies() const noexcept { return policies_; }

  private:
    const dsl::Document& document_;
    std::shared_ptr<const PolicySet> set_;
    const LintSettings& settings_;
    std::string_view source_;
    std::vector<ResolvedPolicy> policies_;
};

// Collects one rule's findings for one file; code, name and severity come from the rule.
class RuleReporter {
  public:
    RuleReporter(const RuleInfo& rule, std::string file, Findings& out)
        : rule_(rule), file_(std::move(file)), out_(out) {}

    // `severity`: this finding's own, for a rule whose findings differ (hedge-not-idempotent);
    // a severity the configuration gives the rule still wins.
    void report(SourcePosition position, std::string message, std::string suggestion = {},
                std::optional<Severity> severity = std::nullopt);

  private:
    const RuleInfo& rule_;
    std::string file_;
    Findings& out_;
};

}  // namespace rebound::lint
