// RB111 unknown-handler (in lint a warning): an exact handler binding that names no handler
// registered in code. The binding applies to nothing, and the handler it was meant for falls
// back to its code tier or the default. Handler names come from `handlers:` of the lint
// configuration or from `rebound lint --handlers FILE`; without them, nothing is checked (a file
// alone cannot see the code). Prefix bindings (`orders.*`) are not checked.
#include <algorithm>

#include "rebound/dsl/text_toolkit/suggestions.hpp"
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    const auto& registered = file.settings().handlers;
    if (!registered) {
        return;
    }
    const std::vector<std::string_view> candidates(registered->begin(), registered->end());
    for (const dsl::HandlerNode& handler : file.document().handlers) {
        const std::string& key = handler.key.value;
        if (key.ends_with(".*") ||
            std::find(registered->begin(), registered->end(), key) != registered->end()) {
            continue;
        }
        const std::string close = dsl::closest_match(key, candidates);
        reporter.report(handler.key.position,
                        "handler '" + key +
                            "' is bound but is not among the handlers registered in code; the "
                            "binding applies to nothing",
                        close.empty() ? "register the handler, or remove the binding"
                                      : "did you mean '" + close + "'?");
    }
}

}  // namespace

const Rule kUnknownHandler{
    RuleInfo{"RB111", "unknown-handler", Severity::Warning, RuleOrigin::Semantic,
             "an exact handler binding that names no handler registered in code",
             "A binding whose key is misspelt applies to nothing: the handler it was meant for "
             "silently takes its code tier or the default instead. Loading a directory with a "
             "handler registry warns about such bindings (an error with strict_bindings); lint "
             "checks them against `handlers:` of .rebound-lint.yaml or `--handlers FILE`."},
    check};

}  // namespace rebound::lint::rules
