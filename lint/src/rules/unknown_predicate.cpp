// RB107 unknown-predicate (in lint a warning): retry_if names are predicates registered in code,
// which a file alone cannot see. Names are checked against `predicates:` of the lint
// configuration when it lists them; otherwise each name is reported once as unchecked.
#include <algorithm>

#include "rebound/dsl/text_toolkit/suggestions.hpp"
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    const auto& declared = file.settings().predicates;
    std::vector<std::string_view> candidates;
    if (declared) {
        candidates.assign(declared->begin(), declared->end());
    }
    for (const ResolvedPolicy& p : file.policies()) {
        if (!p.fields.retry_if) {
            continue;
        }
        for (const dsl::Located<std::string>& name : p.fields.retry_if->items) {
            if (!declared) {
                reporter.report(name.position,
                                "retry_if predicate '" + name.value +
                                    "' cannot be checked: predicates are registered in code, and "
                                    "the lint configuration declares none",
                                "list the predicates your code registers under 'predicates:' in "
                                ".rebound-lint.yaml");
                continue;
            }
            if (std::find(declared->begin(), declared->end(), name.value) != declared->end()) {
                continue;
            }
            const std::string close = dsl::closest_match(name.value, candidates);
            reporter.report(name.position,
                            "retry_if predicate '" + name.value +
                                "' is not among the predicates the lint configuration declares; "
                                "unless code registers it, it never matches",
                            close.empty() ? std::string{} : "did you mean '" + close + "'?");
        }
    }
}

}  // namespace

const Rule kUnknownPredicate{
    RuleInfo{"RB107", "unknown-predicate", Severity::Warning, RuleOrigin::Semantic,
             "a retry_if name that is not a declared predicate",
             "retry_if names predicates that code registers. Loading with a registry makes an "
             "unknown name an error; lint has no registry, so it checks names against the "
             "`predicates:` list of .rebound-lint.yaml and warns about the rest."},
    check};

}  // namespace rebound::lint::rules
