// Rules about the lint's own controls: suppression comments, the configuration, rule names.
// The suppression and configuration code reports them; they have no check of their own.
#include "rules.hpp"

namespace rebound::lint::rules {

std::vector<Rule> machinery_rules() {
    return {
        Rule{RuleInfo{rule_code::kUnusedSuppression, "unused-suppression", Severity::Note,
                      RuleOrigin::Machinery, "a suppression comment that silences nothing",
                      "A `# rebound: disable-...` comment whose rules report nothing where it "
                      "applies. Remove it, so that it cannot hide a future finding nobody "
                      "reviewed."},
             nullptr},
        Rule{RuleInfo{rule_code::kInvalidSuppression, "invalid-suppression", Severity::Warning,
                      RuleOrigin::Machinery,
                      "a suppression comment without rules, without a reason, or out of place",
                      "Suppressions name the rules they silence and give a reason after ` -- `; "
                      "`disable-file` belongs to the comment block that opens the file. "
                      "Compiler errors cannot be suppressed."},
             nullptr},
        Rule{RuleInfo{rule_code::kUnknownRule, "unknown-rule", Severity::Warning,
                      RuleOrigin::Machinery,
                      "a suppression or the configuration names a rule that does not exist",
                      "Rules are named by code (RB301) or name (no-jitter). A misspelt rule "
                      "silences nothing."},
             nullptr},
    };
}

}  // namespace rebound::lint::rules
