// RB314 builtin-fallback: handlers that end up on the built-in policy `builtin`: bound to it by
// name, or, in a file that binds handlers but has no `default`, every handler bound nowhere.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

// "3 attempts, exponential 100ms x2 up to 30s, full jitter, retry on transient, no deadline".
std::string describe_builtin() {
    const PolicySpec spec = builtin_policy_spec();
    std::string text = std::to_string(spec.max_attempts) + " attempts, " +
                       std::string(to_string(spec.backoff.type)) + " " +
                       duration_text(spec.backoff.initial) + " x" +
                       std::to_string(static_cast<int>(spec.backoff.multiplier)) + " up to " +
                       duration_text(spec.backoff.max) + ", " +
                       std::string(to_string(spec.jitter.type)) + " jitter, retry on transient";
    text += spec.deadline ? ", deadline " + duration_text(*spec.deadline) : ", no deadline";
    return text;
}

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    const dsl::Document& document = file.document();
    for (const dsl::HandlerNode& handler : document.handlers) {
        if (handler.policy.value == "builtin") {
            reporter.report(handler.policy.position,
                            "handler '" + handler.key.value +
                                "' uses the built-in policy 'builtin' (" + describe_builtin() +
                                "), which this file does not show",
                            "bind it to a policy defined in this file");
        }
    }
    if (!document.handlers.empty() && !document.default_policy && document.service) {
        reporter.report(document.service->position,
                        "service '" + document.service->value +
                            "' has no default policy: handlers not bound in this file fall back "
                            "to 'builtin' (" +
                            describe_builtin() + ")",
                        "add a default naming one of this file's policies");
    }
}

}  // namespace

const Rule kBuiltinFallback{
    RuleInfo{"RB314", "builtin-fallback", Severity::Note, RuleOrigin::Semantic,
             "handlers that fall back to the built-in policy",
             "The built-in policy is a safe last resort, but its behaviour is not written in the "
             "service file, so readers of the file cannot see how those handlers retry. Name the "
             "policy in the file instead."},
    check};

}  // namespace rebound::lint::rules
