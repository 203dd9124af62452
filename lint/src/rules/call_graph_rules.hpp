// RB338 retry-amplification, RB339 call-cycle and RB340 unbound-callee: the checks on the call
// graph that `calls` builds across every file linted together (docs/resilience.md, "Retry
// amplification across layers"). They run once per lint run, not once per file.
#pragma once

#include <vector>

#include "rebound/dsl/call_graph.hpp"
#include "rebound/lint/config.hpp"
#include "rebound/lint/finding.hpp"
#include "rebound/lint/rule.hpp"

namespace rebound::lint::rules {

// The findings of the three rules, by file: `per_file[i]` holds file i's bindings (from
// dsl::call_graph_nodes) and the result's element i that file's findings, at default severity.
std::vector<Findings> call_graph_findings(std::vector<std::vector<dsl::CallGraphNode>> per_file,
                                          const LintSettings& settings,
                                          const RuleRegistry& registry);

}  // namespace rebound::lint::rules
