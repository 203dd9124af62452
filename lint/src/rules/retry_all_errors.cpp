// RB302 retry-all-errors: neither retry_on nor retry_if, so every error that never_retry_on does
// not exclude is retried (docs/semantics.md, step 3).
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (!spec.retry_on.empty() || !spec.retry_if.empty() || spec.max_attempts < 2) {
            continue;
        }
        const SourcePosition position =
            p.fields.retry_on ? p.fields.retry_on->position : p.name_position();
        const std::string retries =
            count_of(static_cast<std::size_t>(spec.max_attempts - 1), "time", "times");
        const std::string what = spec.never_retry_on.empty()
                                     ? "every error"
                                     : "every error but the " +
                                           count_of(spec.never_retry_on.size(), "kind", "kinds") +
                                           " in never_retry_on";
        reporter.report(position,
                        "policy '" + p.name() +
                            "' has no retry_on or retry_if list, so it retries " + what + ", " +
                            retries + ": constraint violations, bad SQL and bugs are retried too",
                        "list the errors that heal, such as retry_on: [transient]");
    }
}

}  // namespace

const Rule kRetryAllErrors{
    RuleInfo{"RB302", "retry-all-errors", Severity::Warning, RuleOrigin::Semantic,
             "a policy without retry_on or retry_if retries every error",
             "With no include list every error that is not explicitly excluded is retried, "
             "including errors that fail the same way every time. Each such retry adds latency "
             "and load and hides the real failure. Name the errors that heal instead."},
    check};

}  // namespace rebound::lint::rules
