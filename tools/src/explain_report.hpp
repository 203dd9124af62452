// The explain report of a resolved policy: JSON as docs/cli.md specifies, and a text rendering.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/dsl/document.hpp"
#include "rebound/policy_set.hpp"
#include "rebound/policy_spec.hpp"

namespace rebound::cli {

using Json = nlohmann::ordered_json;

// What a handler's binding says of the call graph (docs/resilience.md, "Retry amplification
// across layers"), and its worst case within its own file.
struct HandlerCalls {
    std::vector<std::string> calls;  // as the binding states them
    std::int64_t redeliveries = 0;
    // The most calls one call of the handler sends to the last handler of `worst_path`, by the
    // bindings of this file (a callee bound in another file ends the path).
    std::int64_t fan_out = 1;
    std::vector<std::string> worst_path;  // from the handler itself
};

// The calls of `handler` as `set` (compiled from `document`) binds it.
HandlerCalls handler_calls(const dsl::Document& document, const PolicySet& set,
                           std::string_view handler);

// {"service", "policy", ["handler", "resolved_via", "idempotent", "idempotent_source"],
//  "max_attempts", ... "server_delay", "breaker", "schedule", ["calls", "redeliveries",
//  "worst_case_fan_out"]}; the bracketed keys with a handler (`calls` too).
Json explain_json(const std::string& service, const Policy& policy,
                  const HandlerResolution* handler = nullptr, const std::string& handler_name = {},
                  const HandlerCalls* calls = nullptr);

// A readable multi-line description of the same information.
std::string explain_text(const std::string& service, const Policy& policy,
                         const HandlerResolution* handler = nullptr,
                         const std::string& handler_name = {}, const HandlerCalls* calls = nullptr);

// The file's handler bindings: [{"key", "policy", "idempotent", "idempotent_source", "calls",
// "redeliveries"}], in file order; idempotent as the file alone decides it.
Json bindings_json(const PolicySet& set);

// The same as text: one aligned line per binding, then the default.
std::string bindings_text(const PolicySet& set);

// Milliseconds as a JSON number: an integer when whole, else with at most 3 decimals (durations
// are whole microseconds).
Json milliseconds_json(Duration d);

}  // namespace rebound::cli
