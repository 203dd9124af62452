// ResilienceRegistry: the budgets and circuit breakers of a process, kept across policy reloads
// (docs/resilience.md, "State across reloads").
//
// A compiled policy set is replaced as a whole by a reload, but the state that protects a
// dependency must not be: a reload during an outage must not refill a retry budget or close an
// open breaker. So a budget belongs to (service, policy name) and a breaker to (service, breaker
// name) here, for the life of the process, and each compiled snapshot takes them from here:
//   - a breaker that exists keeps its state and window and takes the new settings at its next
//     change of state;
//   - a budget whose settings are unchanged is the same object; one whose settings changed is
//     replaced by a budget holding tokens * new max_tokens / old max_tokens (as gRPC does), so
//     the snapshot being replaced keeps its own until its work ends;
//   - after a reload, retain() drops what the files no longer declare; if it comes back later,
//     it starts fresh.
// Thread-safe; the lookups take a mutex (they run when policies are compiled, never per call).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rebound/circuit_breaker.hpp"
#include "rebound/clock.hpp"
#include "rebound/hedge_tokens.hpp"
#include "rebound/retry_budget.hpp"

namespace rebound {

class ResilienceRegistry {
  public:
    // The breaker of (service, settings.name): the existing one (with `settings` from its next
    // change of state) or a new one created at `now`. Throws std::invalid_argument for invalid
    // settings, leaving any existing breaker as it was.
    std::shared_ptr<CircuitBreaker> breaker(std::string_view service,
                                            const BreakerSettings& settings, Clock::TimePoint now,
                                            const ErrorTypeRegistry* error_types = nullptr);

    // The budget of (service, policy): the existing one when its settings are `settings`, else a
    // budget with `settings`, scaled from the existing one or full when there is none.
    std::shared_ptr<RetryBudget> budget(std::string_view service, std::string_view policy,
                                        const BudgetSettings& settings);

    // The hedge tokens of (service, policy), as budget(): the existing ones when their settings
    // are `settings`, else tokens with `settings`, scaled by the new burst / the old burst from
    // the existing ones, or full when there are none (docs/hedging.md).
    std::shared_ptr<HedgeTokens> hedge_tokens(std::string_view service, std::string_view policy,
                                              const HedgeTokenSettings& settings);
    // Drops the hedge tokens of `service` whose policies are not listed.
    void retain_hedge_tokens(std::string_view service, std::span<const std::string> policies);

    // Drops the breakers and budgets of `service` whose names are not listed.
    void retain(std::string_view service, std::span<const std::string> breaker_names,
                std::span<const std::string> budget_policies);

    // Tells `listener` of every change of state of every breaker, present and future, with the
    // service it belongs to (for JSON logs: observability::JsonLogListener). Empty: none.
    using TransitionListener =
        std::function<void(std::string_view service, const BreakerTransition& transition)>;
    void set_transition_listener(TransitionListener listener);

    // Every breaker, for inspection and metrics: (service, breaker).
    std::vector<std::pair<std::string, std::shared_ptr<CircuitBreaker>>> breakers() const;

    // A budget of the registry, for inspection and metrics.
    struct RegisteredBudget {
        std::string service;
        std::string policy;
        BudgetSettings settings;
        std::shared_ptr<RetryBudget> budget;
    };
    // Every budget, in (service, policy) order.
    std::vector<RegisteredBudget> budgets() const;

    // The one registry of the process (an explicit registration point; policy files loaded
    // without another registry use it).
    static ResilienceRegistry& process() noexcept;

  private:
    using Key = std::pair<std::string, std::string>;  // (service, name)
    struct BudgetEntry {
        BudgetSettings settings;
        std::shared_ptr<RetryBudget> budget;
    };

    void attach_listener(const std::string& service, CircuitBreaker& breaker) const;

    mutable std::mutex mutex_;
    TransitionListener listener_;
    std::map<Key, std::shared_ptr<CircuitBreaker>, std::less<>> breakers_;
    std::map<Key, BudgetEntry, std::less<>> budgets_;
    std::map<Key, std::shared_ptr<HedgeTokens>, std::less<>> hedge_tokens_;
};

}  // namespace rebound
