// RB312 outcome-unknown-not-idempotent: retry_on lists `commit_outcome_unknown` for a policy
// that a non-idempotent handler uses. The decision stops with `outcome_unknown` for such
// handlers before retry_on is read (docs/semantics.md, step 2), so the entry does nothing there.
#include <algorithm>

#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

// "handler 'A' (line 20), handler 'B' (line 21) and handlers bound nowhere else (default)".
std::vector<std::string> non_idempotent_users(const PolicyFileContext& file,
                                              const std::string& policy) {
    std::vector<std::string> users;
    for (const dsl::HandlerNode& handler : file.document().handlers) {
        const bool idempotent = handler.idempotent && handler.idempotent->value;
        if (handler.policy.value == policy && !idempotent) {
            users.push_back("handler '" + handler.key.value + "' (line " +
                            std::to_string(handler.key.position.line) + ")");
        }
    }
    const auto& default_policy = file.document().default_policy;
    if (default_policy && default_policy->value == policy) {
        users.push_back("every handler bound nowhere else (default, line " +
                        std::to_string(default_policy->position.line) + ")");
    }
    return users;
}

std::string join_users(const std::vector<std::string>& users) {
    constexpr std::size_t kShown = 3;
    std::string text;
    const std::size_t shown = std::min(users.size(), kShown);
    for (std::size_t i = 0; i < shown; ++i) {
        const bool last = i + 1 == shown && users.size() <= kShown;
        text += (i == 0 ? "" : last ? " and " : ", ") + users[i];
    }
    if (users.size() > kShown) {
        text += " and " + std::to_string(users.size() - kShown) + " more";
    }
    return text;
}

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    for (const ResolvedPolicy& p : file.policies()) {
        for (const LocatedMatcher& entry : retry_on_entries(p)) {
            const Matcher& m = *entry.matcher;
            if (m.kind != MatcherKind::Category ||
                m.category != ErrorCategory::CommitOutcomeUnknown || excluded(p, m)) {
                continue;
            }
            const std::vector<std::string> users = non_idempotent_users(file, p.name());
            if (users.empty()) {
                continue;
            }
            reporter.report(
                entry.position,
                "policy '" + p.name() + "' retries 'commit_outcome_unknown', but it is used by " +
                    join_users(users) + (users.size() == 1 ? ", which is" : ", which are") +
                    " not idempotent: the decision stops with "
                    "outcome_unknown before retry_on is read, so this entry never "
                    "applies there",
                "mark the handler idempotent: true if running it twice is safe, "
                "or remove the entry");
        }
    }
}

}  // namespace

const Rule kOutcomeUnknownNotIdempotent{
    RuleInfo{"RB312", "outcome-unknown-not-idempotent", Severity::Warning, RuleOrigin::Semantic,
             "commit_outcome_unknown listed for a policy bound to a non-idempotent handler",
             "After commit_outcome_unknown the commit may have happened; retrying work that is "
             "not idempotent could do it twice. Rebound therefore never retries it for handlers "
             "not marked idempotent, whatever retry_on says. The entry suggests a safety that "
             "does not exist: mark the handler idempotent if it is, or drop the entry."},
    check};

}  // namespace rebound::lint::rules
