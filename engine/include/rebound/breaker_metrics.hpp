// Circuit breaker metrics in the Prometheus text exposition format (version 0.0.4), for every
// breaker of a ResilienceRegistry:
//   rebound_breaker_state{service,breaker}               gauge: 0 closed, 1 open, 2 half-open
//   rebound_breaker_transitions_total{service,breaker,to} changes of state, by the state entered
//   rebound_breaker_refused_total{service,breaker}       calls refused
// The `service` label keeps breakers of equal names in different service files apart.
#pragma once

#include <string>

#include "rebound/clock.hpp"
#include "rebound/resilience_registry.hpp"

namespace rebound {

// Every series, breakers in (service, name) order. Safe while the breakers are in use.
std::string render_breaker_metrics(const ResilienceRegistry& registry, Clock::TimePoint now);

}  // namespace rebound
