// The JSON Schema (draft-07) of the YAML/JSON policy format, as `rebound schema` prints it.
//
// The definitions of the policy fields are generated from the field table (policy_fields():
// wire name, kind, range, default, docs, parent); what the table cannot express (the document's
// top level, names, durations, matchers, breaker declarations, handler bindings, the variants of
// backoff and jitter, required keys) is hand-kept in tools/src/policy_schema_parts.json and merged
// in. policies/schema/rebound-policy.schema.json is this function's output, shipped as data; the
// test schema:generated fails when the two differ.
#pragma once

#include <string>
#include <string_view>

namespace rebound::cli {

// The schema as JSON text, indented by two spaces, ending with a newline.
std::string policy_schema();

// The bytes of tools/src/policy_schema_parts.json, embedded at build time.
std::string_view policy_schema_parts();

}  // namespace rebound::cli
