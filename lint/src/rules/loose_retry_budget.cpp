// RB326 loose-retry-budget: a budget whose token_ratio is so high that it hardly throttles. Each
// failure reaching the budget takes one token and each success gives back token_ratio, so the
// tokens only run down while more than token_ratio / (1 + token_ratio) of the attempts fail
// (docs/semantics.md, Retry budget). With the usual 0.1 that is about 9%; above the configured
// maximum (0.5: a third of all attempts) the budget lets a partial outage be retried at full
// strength, which is what it is there to prevent.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

std::string percent(double share) {
    // `share` (a token ratio) is positive, so +0.5 rounds to the nearest.
    // NOLINTNEXTLINE(bugprone-incorrect-roundings)
    return std::to_string(static_cast<int>(share * 100.0 + 0.5)) + "%";
}

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    const double limit = file.settings().thresholds.max_token_ratio;
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (!spec.budget || spec.budget->token_ratio <= limit || spec.max_attempts < 2) {
            continue;
        }
        const double ratio = spec.budget->token_ratio;
        SourcePosition position = p.name_position();
        if (p.fields.budget) {
            position = position_or(p.fields.budget->token_ratio, p.fields.budget->position);
        }
        reporter.report(position,
                        "the budget of policy '" + p.name() + "' gives back " + number_text(ratio) +
                            (ratio == 1.0 ? " token" : " tokens") +
                            " per success: it throttles retries only while more than " +
                            percent(ratio / (1.0 + ratio)) +
                            " of attempts fail, so a partial outage is retried at full strength",
                        "token_ratio: 0.1 stops retries once about 9% of attempts fail");
    }
}

}  // namespace

const Rule kLooseRetryBudget{
    RuleInfo{"RB326", "loose-retry-budget", Severity::Warning, RuleOrigin::Semantic,
             "a retry budget whose token_ratio is too high to throttle",
             "A budget throttles retries once failures outweigh what successes give back. With "
             "a token_ratio of 1 that takes half of all attempts failing; higher, more. Until "
             "then every failure is retried, which is the load a budget exists to cut. The "
             "threshold (max_token_ratio, 0.5 by default) is set in .rebound-lint.yaml."},
    check};

}  // namespace rebound::lint::rules
