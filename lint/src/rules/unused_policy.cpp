// RB313 unused-policy: a policy that no handler binding, no `default` and no `extends` uses, in
// a file that binds handlers. (A file without any binding is a library of tiers that code picks
// by name; its policies are not reported.)
#include <set>

#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    const dsl::Document& document = file.document();
    if (document.handlers.empty() && !document.default_policy) {
        return;
    }
    std::set<std::string, std::less<>> used;
    for (const dsl::HandlerNode& handler : document.handlers) {
        used.insert(handler.policy.value);
    }
    if (document.default_policy) {
        used.insert(document.default_policy->value);
    }
    for (const dsl::PolicyNode& policy : document.policies) {
        if (const dsl::Field<std::string> parent = policy.fields.text(PolicyField::Extends)) {
            used.insert(parent->value);
        }
    }
    for (const dsl::PolicyNode& policy : document.policies) {
        if (used.contains(policy.name.value)) {
            continue;
        }
        reporter.report(policy.name.position,
                        "policy '" + policy.name.value +
                            "' is used by no handler binding, no default and no extends: only "
                            "code that names it can reach it",
                        "bind it under handlers, or remove it");
    }
}

}  // namespace

const Rule kUnusedPolicy{
    RuleInfo{"RB313", "unused-policy", Severity::Note, RuleOrigin::Semantic,
             "a policy that no handler and no default uses",
             "In a file that binds handlers, a policy nothing refers to is either left over "
             "from a refactoring or meant for a handler whose binding was forgotten (that "
             "handler then runs under another policy)."},
    check};

}  // namespace rebound::lint::rules
