// decide(): the retry decision of docs/semantics.md.
//
// After attempt `n` (1-based) fails with error `e` at `elapsed` since the first attempt started,
// first hit wins:
//   1. e matches never_retry_on                          -> stop, non_retryable
//   2. e is commit_outcome_unknown and not idempotent    -> stop, outcome_unknown
//   3. e carries server_refused                           -> stop, server_refused (takes a
//                                                            budget token)
//   4. retry_on/retry_if non-empty and e matches neither  -> stop, non_retryable
//   5. n >= max_attempts                                  -> stop, exhausted
//   6. d = jittered backoff delay for retry k = n, combined with e's server_delay hint under
//      the policy's server_delay settings (server_delay.hpp); a hint over the cap with
//      over_cap = stop                                    -> stop, server_delay_too_long
//   7. deadline set and elapsed + d + min_attempt_budget > deadline -> stop, deadline
//   8. budget set and refusing                            -> stop, throttled
//   9. retry after d, with the route chosen by `routes`
//
// The decision is a pure function of its inputs except for the random draw and the retry budget.
// It never reads a clock, allocates, locks or throws, and is safe to call from many threads on one
// shared Policy (each thread with its own RandomSource, or a thread-safe one). One exception, once
// per thread: under a policy with a budget, the thread's first decision lets the C library record
// the exit hook of the thread's budget stripe (retry_budget.hpp).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "rebound/duration.hpp"
#include "rebound/error.hpp"
#include "rebound/policy.hpp"
#include "rebound/random_source.hpp"
#include "rebound/vocabulary.hpp"

namespace rebound {

enum class DecisionReason : std::uint8_t {
    Retry,
    NonRetryable,
    OutcomeUnknown,
    Exhausted,
    Deadline,
    Throttled,
    ServerRefused,
    ServerDelayTooLong,
};

// Why a decision retries or stops: the step of the list above that decided.
inline constexpr WordRow<DecisionReason> kDecisionReasons[] = {
    {DecisionReason::Retry, "retry", "retry after the delay"},
    {DecisionReason::NonRetryable, "non_retryable",
     "never_retry_on matched, or retry_on and retry_if did not"},
    {DecisionReason::OutcomeUnknown, "outcome_unknown",
     "the commit's outcome is unknown and the work is not idempotent"},
    {DecisionReason::Exhausted, "exhausted", "max_attempts reached"},
    {DecisionReason::Deadline, "deadline", "the wait and the next attempt do not fit the deadline"},
    {DecisionReason::Throttled, "throttled", "the retry budget refused the retry"},
    {DecisionReason::ServerRefused, "server_refused", "the server said not to retry"},
    {DecisionReason::ServerDelayTooLong, "server_delay_too_long",
     "the server's delay hint is over the cap, and over_cap is stop"},
};
static_assert(is_vocabulary(kDecisionReasons));

constexpr std::span<const WordRow<DecisionReason>> vocabulary(DecisionReason) noexcept {
    return kDecisionReasons;
}

// What the caller knows about the attempt that just failed.
struct AttemptContext {
    int attempt = 1;             // n, 1-based
    Duration elapsed{0};         // since the first attempt started
    Duration previous_delay{0};  // the delay before this attempt (decorrelated jitter); 0 for none
    bool idempotent = false;     // the handler may safely repeat a commit
};

struct Decision {
    bool retry = false;
    DecisionReason reason = DecisionReason::NonRetryable;
    Duration delay{0};     // the wait before the next attempt; 0 when stopping
    int next_attempt = 0;  // n + 1 when retrying, 0 when stopping
    ErrorCategory category = ErrorCategory::Unknown;  // the error's effective category
    // Wire text of the rule that decided (`category:deadlock`, `predicate:NAME`); empty when no
    // rule was involved. Views into the Policy, valid while it lives.
    std::string_view matched;
    // The chosen route target when the policy has routes and retries; empty otherwise.
    std::string_view route;
};

namespace detail {
// decide()'s two paths (decision.cpp), the same steps: the first is taken only where
// Policy::decides_without_calls(error) holds.
Decision decide_without_calls(const Policy& policy, const ErrorDescription& error,
                              const AttemptContext& context) noexcept;
Decision decide_with_calls(const Policy& policy, const ErrorDescription& error,
                           const AttemptContext& context, RandomSource& random) noexcept;
}  // namespace detail

// Inline only to choose the path: a path without calls is built without saving registers, which
// a call from one shared entry would cost back (an sret result rules out a tail call). Always
// inlined: left to itself, GCC keeps it out of line in a caller with several calls to it, and each
// decision then pays a call that only passes its arguments on.
[[gnu::always_inline]] inline Decision decide(const Policy& policy, const ErrorDescription& error,
                                              const AttemptContext& context,
                                              RandomSource& random) noexcept {
    if (policy.decides_without_calls(error)) {
        return detail::decide_without_calls(policy, error, context);
    }
    return detail::decide_with_calls(policy, error, context, random);
}

}  // namespace rebound
