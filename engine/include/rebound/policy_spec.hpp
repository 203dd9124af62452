// PolicySpec: every field of one retry policy, as plain data (docs/policy-format.md).
//
// A PolicySpec may be invalid; it is what builders and the file compiler fill in before
// `Policy::create` validates and compiles it. Defaults are the built-in defaults of the spec.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/backoff.hpp"
#include "rebound/duration.hpp"
#include "rebound/hedge.hpp"
#include "rebound/jitter.hpp"
#include "rebound/matcher.hpp"
#include "rebound/retry_budget.hpp"
#include "rebound/server_delay.hpp"
#include "rebound/vocabulary.hpp"

namespace rebound {

enum class ExhaustedAction : std::uint8_t { Fail, DeadLetter };

inline constexpr WordRow<ExhaustedAction> kExhaustedActions[] = {
    {ExhaustedAction::Fail, "fail", "the run fails with the last error"},
    {ExhaustedAction::DeadLetter, "dead_letter",
     "hand the work item and last error to the registered dead-letter sink"},
};
static_assert(is_vocabulary(kExhaustedActions));

constexpr std::span<const WordRow<ExhaustedAction>> vocabulary(ExhaustedAction) noexcept {
    return kExhaustedActions;
}

// For asynchronous consumers: a retry whose delay is at most `up_to` goes to `target`.
struct Route {
    Duration up_to{0};
    std::string target;
    friend bool operator==(const Route&, const Route&) = default;
};

struct PolicySpec {
    static constexpr int kDefaultMaxAttempts = 3;

    std::string name;
    int max_attempts = kDefaultMaxAttempts;  // 1..1000, the first attempt included
    Backoff backoff;
    Jitter jitter;
    std::optional<Duration> deadline;
    Duration min_attempt_budget{0};
    std::optional<Duration> attempt_timeout;
    std::vector<Matcher> retry_on;
    std::vector<Matcher> never_retry_on;
    std::vector<std::string> retry_if;
    ExhaustedAction on_exhausted = ExhaustedAction::Fail;
    std::optional<BudgetSettings> budget;
    std::vector<Route> routes;
    // How server delay hints are used (docs/resilience.md).
    ServerDelaySettings server_delay;
    // The circuit breaker guarding this policy's calls, declared under `breakers:` in the same
    // file; empty for none.
    std::string breaker;
    // Hedged attempts (docs/hedging.md); absent for a policy that only retries. Only an
    // asynchronous executor runs a hedging policy; the others refuse it at the start of a run.
    std::optional<HedgeSettings> hedge;

    friend bool operator==(const PolicySpec&, const PolicySpec&) = default;
};

// The built-in policy `builtin` (docs/semantics.md): every built-in default, retry_on transient.
PolicySpec builtin_policy_spec();

}  // namespace rebound
