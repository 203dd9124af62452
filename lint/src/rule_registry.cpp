#include <algorithm>
#include <cctype>

#include "rebound/dsl/text_toolkit/suggestions.hpp"
#include "rebound/lint/rule.hpp"
#include "rules/rules.hpp"

#ifndef REBOUND_LINT_DOCS_BASE_URI
#define REBOUND_LINT_DOCS_BASE_URI "https://github.com/rebound-retry/rebound/blob/main/"
#endif

namespace rebound::lint {
namespace {

bool same_code(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::toupper(static_cast<unsigned char>(x)) ==
                      std::toupper(static_cast<unsigned char>(y));
           });
}

}  // namespace

std::string docs_path(const RuleInfo& rule) {
    return "docs/rules/" + std::string(rule.code) + "-" + std::string(rule.name) + ".md";
}

std::string_view project_uri() noexcept {
    return REBOUND_LINT_DOCS_BASE_URI;
}

std::string docs_uri(const RuleInfo& rule) {
    return std::string(project_uri()) + docs_path(rule);
}

RuleRegistry::RuleRegistry(std::vector<Rule> rules) : rules_(std::move(rules)) {
    std::sort(rules_.begin(), rules_.end(),
              [](const Rule& a, const Rule& b) { return a.info.code < b.info.code; });
}

const RuleRegistry& RuleRegistry::standard() {
    static const RuleRegistry registry = [] {
        std::vector<Rule> all = rules::compiler_rules();
        for (const Rule* rule : {
                 &rules::kUnknownPredicate,
                 &rules::kUnknownHandler,
                 &rules::kNoJitter,
                 &rules::kRetryAllErrors,
                 &rules::kRetryPermanentError,
                 &rules::kRetryStatementTimeout,
                 &rules::kRetryPoolExhausted,
                 &rules::kRetriesBeyondDeadline,
                 &rules::kMinBudgetExceedsDeadline,
                 &rules::kAttemptTimeoutExceedsDeadline,
                 &rules::kUnboundedTotalTime,
                 &rules::kJitterWiderThanDelay,
                 &rules::kUnreachableRetryRule,
                 &rules::kOutcomeUnknownNotIdempotent,
                 &rules::kUnusedPolicy,
                 &rules::kBuiltinFallback,
                 &rules::kImmediateRetry,
                 &rules::kDelayTooShort,
                 &rules::kUnthrottledRetries,
                 &rules::kSettingsWithoutRetries,
                 &rules::kMinBudgetWithoutDeadline,
                 &rules::kUnreachableRoute,
                 &rules::kRetryOptimisticConflict,
                 &rules::kBroadRollbackClass,
                 &rules::kLooseRetryBudget,
                 &rules::kRetryClientError,
                 &rules::kBackoffNeverGrows,
                 &rules::kUnitlessDuration,
                 &rules::kBudgetRefusesRetries,
                 &rules::kDecorrelatedIgnoresGrowth,
                 &rules::kRetryUnknownError,
                 &rules::kBreakerFlapsAtLowTraffic,
                 &rules::kHalfOpenBeyondMinimumCalls,
                 &rules::kHintsIgnoredWhenThrottled,
                 &rules::kBreakerOpenPastDeadlines,
                 &rules::kUnusedBreaker,
                 &rules::kRetryAmplification,
                 &rules::kCallCycle,
                 &rules::kUnboundCallee,
                 &rules::kProtocolCallWithoutTimeout,
                 &rules::kHedgeNotIdempotent,
                 &rules::kHedgeAfterTimeout,
                 &rules::kHedgeAfterDeadline,
                 &rules::kHedgeUnboundedLoad,
                 &rules::kHedgeManyAttempts,
             }) {
            all.push_back(*rule);
        }
        for (Rule& rule : rules::machinery_rules()) {
            all.push_back(rule);
        }
        return RuleRegistry(std::move(all));
    }();
    return registry;
}

const Rule* RuleRegistry::find(std::string_view code_or_name) const noexcept {
    for (const Rule& rule : rules_) {
        if (same_code(rule.info.code, code_or_name) || rule.info.name == code_or_name) {
            return &rule;
        }
    }
    return nullptr;
}

std::string RuleRegistry::suggest(std::string_view unknown) const {
    std::vector<std::string_view> names;
    for (const Rule& rule : rules_) {
        names.push_back(rule.info.name);
        names.push_back(rule.info.code);
    }
    const std::string close = dsl::closest_match(unknown, names);
    if (!close.empty()) {
        const Rule* rule = find(close);
        return "did you mean '" + std::string(rule->info.code) + " " +
               std::string(rule->info.name) + "'?";
    }
    return "expected a rule code such as RB301 or a name such as no-jitter (see docs/rules/)";
}

}  // namespace rebound::lint
