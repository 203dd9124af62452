// Retry budget metrics in the Prometheus text exposition format (version 0.0.4), for every budget
// of a ResilienceRegistry (docs/metrics.md):
//   rebound_budget_tokens{service,policy}      gauge: the tokens the budget holds now
//   rebound_budget_max_tokens{service,policy}  gauge: its max_tokens; retries are allowed while
//                                              more than half of them remain
// A budget belongs to (service, policy) in the registry, so the labels name the service file's
// `service:` and the policy. Budgets of policies built in code without a registry
// (PolicyBuilder) are not in any registry and not rendered.
#pragma once

#include <string>

#include "rebound/resilience_registry.hpp"

namespace rebound {

// Every series, budgets in (service, policy) order. Safe while the budgets are in use: each
// value is RetryBudget::tokens(), a snapshot.
std::string render_budget_metrics(const ResilienceRegistry& registry);

}  // namespace rebound
