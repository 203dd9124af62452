// The explain report of a resolved policy: JSON as docs/cli.md specifies, and a text rendering.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "rebound/policy_set.hpp"
#include "rebound/policy_spec.hpp"

namespace rebound::cli {

using Json = nlohmann::ordered_json;

// {"service", "policy", ["handler", "resolved_via", "idempotent", "idempotent_source"],
//  "max_attempts", ... "server_delay", "breaker", "schedule"}.
Json explain_json(const std::string& service, const Policy& policy,
                  const HandlerResolution* handler = nullptr, const std::string& handler_name = {});

// A readable multi-line description of the same information.
std::string explain_text(const std::string& service, const Policy& policy,
                         const HandlerResolution* handler = nullptr,
                         const std::string& handler_name = {});

// The file's handler bindings: [{"key", "policy", "idempotent", "idempotent_source"}], in file
// order; idempotent as the file alone decides it.
Json bindings_json(const PolicySet& set);

// The same as text: one aligned line per binding, then the default.
std::string bindings_text(const PolicySet& set);

// Milliseconds as a JSON number: an integer when whole, else with at most 3 decimals (durations
// are whole microseconds).
Json milliseconds_json(Duration d);

}  // namespace rebound::cli
