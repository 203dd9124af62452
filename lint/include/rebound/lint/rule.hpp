// Rules of `rebound lint` and the registry that lists them.
//
// Every rule has a stable code (`RB301`), a kebab-case name (`no-jitter`), a default severity,
// a one-line summary, a help text, and a documentation page `docs/rules/CODE-name.md`. The
// compiler's diagnostic codes (RB001..RB110) are rules too: they cannot be silenced, since a file
// with any of them does not load. Lint rules proper are numbered from RB301.
//
// The registry is built once and never changes; it is safe to share between threads.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/lint/finding.hpp"

namespace rebound::lint {

class PolicyFileContext;  // what a rule sees of one compiled policy file (policy_file.hpp)
class RuleReporter;       // where a rule reports (policy_file.hpp)

enum class RuleOrigin {
    Compiler,   // a diagnostic of the policy compiler; cannot be disabled or downgraded
    Semantic,   // a check on a compiled policy file
    Machinery,  // about suppressions, the lint configuration and rule names
};

struct RuleInfo {
    std::string_view code;  // "RB301"
    std::string_view name;  // "no-jitter"
    Severity default_severity = Severity::Warning;
    RuleOrigin origin = RuleOrigin::Semantic;
    std::string_view summary;  // one line: what the rule finds
    std::string_view help;     // a few sentences: why it matters and what to do instead
};

// A semantic rule's check. Runs on files that compiled without errors; reports through
// `reporter`, which fills in the rule's code, name and severity.
using RuleCheck = void (*)(const PolicyFileContext& file, RuleReporter& reporter);

struct Rule {
    RuleInfo info;
    RuleCheck check = nullptr;  // null for compiler and machinery rules
};

// Where rule pages live: "docs/rules/RB301-no-jitter.md" (relative to the repository root).
std::string docs_path(const RuleInfo& rule);
// The project's home page, which docs paths are relative to (set at build time).
std::string_view project_uri() noexcept;
// The absolute URI of the rule's page, for SARIF `helpUri`.
std::string docs_uri(const RuleInfo& rule);

class RuleRegistry {
  public:
    explicit RuleRegistry(std::vector<Rule> rules);

    // Every rule of Rebound, in code order. Built on first use, immutable afterwards.
    static const RuleRegistry& standard();

    const std::vector<Rule>& rules() const noexcept { return rules_; }

    // The rule with this code ("RB301", case-insensitive) or name ("no-jitter"), or null.
    const Rule* find(std::string_view code_or_name) const noexcept;

    // "did you mean 'RB301 no-jitter'?" when one rule's code or name is close, else
    // "expected a rule code such as RB301 or a name such as no-jitter".
    std::string suggest(std::string_view unknown) const;

  private:
    std::vector<Rule> rules_;
};

// Codes of the lint's own rules that the machinery (not a check) reports.
namespace rule_code {
inline constexpr std::string_view kUnusedSuppression = "RB315";
inline constexpr std::string_view kInvalidSuppression = "RB316";
inline constexpr std::string_view kUnknownRule = "RB317";
}  // namespace rule_code

}  // namespace rebound::lint
