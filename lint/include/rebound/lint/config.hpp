// The lint configuration: `.rebound-lint.yaml`, found in the current directory or a parent.
//
//   rules:                  # severity per rule (code or name): off, error, warning or note
//     RB301: off
//     retry-all-errors: error
//   predicates: [is_retryable_http]   # retry_if names registered in code (checked by RB107)
//   handlers: [payments.capture]      # handler names registered in code (checked by RB111)
//   delay-too-short: { min_delay: 10ms }                  # thresholds, under the rule's name
//   unthrottled-retries: { max_attempts: 5, window: 1s }
//   loose-retry-budget: { max_token_ratio: 0.5 }
//   retry-amplification: { max: 10 }
//
// The file is linted with the same machinery as policy files: its problems are findings with
// positions (unknown keys and severities with did-you-mean, unknown rules as RB317).
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/duration.hpp"
#include "rebound/lint/finding.hpp"
#include "rebound/lint/rule.hpp"

namespace rebound::lint {

inline constexpr std::string_view kConfigFileName = ".rebound-lint.yaml";

// The thresholds of the rules that have them. The defaults are where a reviewer who has read the
// rule pages (docs/rules/) would put them; `.rebound-lint.yaml` moves them per project.
struct RuleThresholds {
    // RB319 delay-too-short: the mean wait per retry, after jitter, below which retries come too
    // fast for anything to recover.
    Duration min_delay = std::chrono::milliseconds(10);
    // RB320 unthrottled-retries: more than `max_attempts` attempts expected within `window` of
    // the first failure, with neither a budget nor a deadline, is reported. 5 lets the largest
    // tier of the seeds pass; 3 is the Google SRE book's limit per request.
    int max_attempts = 5;
    Duration window = std::chrono::seconds(1);
    // RB326 loose-retry-budget: a budget's token_ratio above this hardly throttles.
    double max_token_ratio = 0.5;
    // RB338 retry-amplification: a call path whose worst case sends more than this many calls
    // to its last handler for one request (docs/resilience.md, section 4).
    int max_amplification = 10;

    friend bool operator==(const RuleThresholds&, const RuleThresholds&) = default;
};

struct LintSettings {
    // Rule code -> severity to report at, or nullopt for off. Rules not listed keep their
    // default severity. Compiler rules are never listed (they cannot change).
    std::map<std::string, std::optional<Severity>, std::less<>> severities;
    // retry_if predicate names known to be registered in code; nullopt when not configured.
    std::optional<std::vector<std::string>> predicates;
    // Handler names registered in code (`handlers:`, or `rebound lint --handlers FILE`); nullopt
    // when not configured, and then exact bindings are not checked (RB111).
    std::optional<std::vector<std::string>> handlers;
    RuleThresholds thresholds;

    // The severity `rule` reports at under these settings, or nullopt when it is off.
    std::optional<Severity> severity_of(const RuleInfo& rule) const;
};

struct ConfigResult {
    LintSettings settings;
    Findings findings;   // problems in the configuration file itself
    std::string source;  // the file's text, for carets
};

// Reads a configuration. Never throws for bad input: problems are findings with positions.
ConfigResult load_config_text(std::string_view text, std::string_view file,
                              const RuleRegistry& registry = RuleRegistry::standard());
ConfigResult load_config_file(const std::filesystem::path& path,
                              const RuleRegistry& registry = RuleRegistry::standard());

// `.rebound-lint.yaml` in `start` or its nearest parent that has one, or nullopt.
std::optional<std::filesystem::path> find_config(const std::filesystem::path& start);

}  // namespace rebound::lint
