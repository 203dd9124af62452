// RB330 budget-refuses-retries: a retry budget too small to ever allow a retry. A retry is allowed
// only while, after its token is taken, more than max_tokens / 2 tokens are left, and the budget
// starts full (docs/semantics.md, The retry budget). With max_tokens 1 or 2 the first token taken
// already leaves max_tokens / 2 or less, so every retry is refused: the attempts, backoff and
// retry rules of the policy never take effect.
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

// The largest max_tokens that refuses every retry: max_tokens - 1 > max_tokens / 2 needs 3.
constexpr std::int64_t kLargestRefusingBudget = 2;

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        const PolicySpec& spec = p.spec();
        if (!spec.budget || spec.max_attempts < 2 ||
            static_cast<std::int64_t>(spec.budget->max_tokens) > kLargestRefusingBudget) {
            continue;
        }
        const auto tokens = static_cast<std::int64_t>(spec.budget->max_tokens);
        SourcePosition position = p.name_position();
        if (p.fields.budget) {
            position = position_or(p.fields.budget->max_tokens, p.fields.budget->position);
        }
        const std::string retries =
            count_of(static_cast<std::size_t>(spec.max_attempts - 1), "retry", "retries");
        reporter.report(position,
                        "the budget of policy '" + p.name() + "' holds " +
                            count_of(static_cast<std::size_t>(tokens), "token", "tokens") +
                            ": a retry needs more than " +
                            (tokens == 1 ? std::string("half a token") : std::string("1 token")) +
                            " left after taking its own, so the budget refuses every retry and "
                            "the policy's " +
                            retries + " never happen",
                        "give the budget max_tokens: 10 or more (100 is usual), or set "
                        "max_attempts: 1 if the work must not be retried");
    }
}

}  // namespace

const Rule kBudgetRefusesRetries{
    RuleInfo{"RB330", "budget-refuses-retries", Severity::Error, RuleOrigin::Semantic,
             "a retry budget with max_tokens 1 or 2, which refuses every retry",
             "A budget allows a retry only while more than half of max_tokens is left after the "
             "retry takes its token. With 1 or 2 tokens that is never the case, even with a "
             "full budget: the policy's retries, backoff and retry rules are configuration that "
             "cannot take effect, and every failure ends the call as throttled."},
    check};

}  // namespace rebound::lint::rules
