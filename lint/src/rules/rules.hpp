// The rules of `rebound lint`, one per source file in this directory. The registry
// (rule_registry.cpp) lists them; codes and names never change once released.
#pragma once

#include <vector>

#include "rebound/lint/rule.hpp"

namespace rebound::lint::rules {

// RB001..RB111 except RB107 and RB111: the compiler's diagnostics (compiler_rules.cpp).
std::vector<Rule> compiler_rules();

extern const Rule kUnknownPredicate;               // RB107 unknown-predicate
extern const Rule kUnknownHandler;                 // RB111 unknown-handler
extern const Rule kNoJitter;                       // RB301 no-jitter
extern const Rule kRetryAllErrors;                 // RB302 retry-all-errors
extern const Rule kRetryPermanentError;            // RB303 retry-permanent-error
extern const Rule kRetryStatementTimeout;          // RB304 retry-statement-timeout
extern const Rule kRetryPoolExhausted;             // RB305 retry-pool-exhausted
extern const Rule kRetriesBeyondDeadline;          // RB306 retries-beyond-deadline
extern const Rule kMinBudgetExceedsDeadline;       // RB307 min-budget-exceeds-deadline
extern const Rule kAttemptTimeoutExceedsDeadline;  // RB308 attempt-timeout-exceeds-deadline
extern const Rule kUnboundedTotalTime;             // RB309 unbounded-total-time
extern const Rule kJitterWiderThanDelay;           // RB310 jitter-wider-than-delay
extern const Rule kUnreachableRetryRule;           // RB311 unreachable-retry-rule
extern const Rule kOutcomeUnknownNotIdempotent;    // RB312 outcome-unknown-not-idempotent
extern const Rule kUnusedPolicy;                   // RB313 unused-policy
extern const Rule kBuiltinFallback;                // RB314 builtin-fallback
extern const Rule kImmediateRetry;                 // RB318 immediate-retry
extern const Rule kDelayTooShort;                  // RB319 delay-too-short
extern const Rule kUnthrottledRetries;             // RB320 unthrottled-retries
extern const Rule kSettingsWithoutRetries;         // RB321 settings-without-retries
extern const Rule kMinBudgetWithoutDeadline;       // RB322 min-budget-without-deadline
extern const Rule kUnreachableRoute;               // RB323 unreachable-route
extern const Rule kRetryOptimisticConflict;        // RB324 retry-optimistic-conflict
extern const Rule kBroadRollbackClass;             // RB325 broad-rollback-class
extern const Rule kLooseRetryBudget;               // RB326 loose-retry-budget
extern const Rule kRetryClientError;               // RB327 retry-client-error
extern const Rule kBackoffNeverGrows;              // RB328 backoff-never-grows
extern const Rule kUnitlessDuration;               // RB329 unitless-duration
extern const Rule kBudgetRefusesRetries;           // RB330 budget-refuses-retries
extern const Rule kDecorrelatedIgnoresGrowth;      // RB331 decorrelated-ignores-growth
extern const Rule kRetryUnknownError;              // RB332 retry-unknown-error
// RB333..RB337: circuit breakers and server delay hints (breaker_rules.cpp).
extern const Rule kBreakerFlapsAtLowTraffic;    // RB333 breaker-flaps-at-low-traffic
extern const Rule kHalfOpenBeyondMinimumCalls;  // RB334 half-open-beyond-minimum-calls
extern const Rule kHintsIgnoredWhenThrottled;   // RB335 hints-ignored-when-throttled
extern const Rule kBreakerOpenPastDeadlines;    // RB336 breaker-open-past-deadlines
extern const Rule kUnusedBreaker;               // RB337 unused-breaker
// RB338..RB340: the call graph across files (call_graph_rules.cpp); no per-file check, the
// linter runs them once per lint run.
extern const Rule kRetryAmplification;  // RB338 retry-amplification
extern const Rule kCallCycle;           // RB339 call-cycle
extern const Rule kUnboundCallee;       // RB340 unbound-callee
// RB341: calls through a protocol client (protocol_call_without_timeout.cpp).
extern const Rule kProtocolCallWithoutTimeout;  // RB341 protocol-call-without-timeout
// RB342..RB346: hedged attempts (hedge_rules.cpp).
extern const Rule kHedgeNotIdempotent;  // RB342 hedge-not-idempotent
extern const Rule kHedgeAfterTimeout;   // RB343 hedge-after-timeout
extern const Rule kHedgeAfterDeadline;  // RB344 hedge-after-deadline
extern const Rule kHedgeUnboundedLoad;  // RB345 hedge-unbounded-load
extern const Rule kHedgeManyAttempts;   // RB346 hedge-many-attempts

// RB315 unused-suppression, RB316 invalid-suppression, RB317 unknown-rule: reported by the
// suppression and configuration machinery (machinery_rules.cpp).
std::vector<Rule> machinery_rules();

}  // namespace rebound::lint::rules
