#include "call_graph_rules.hpp"

#include <string>
#include <utility>

#include "../make_finding.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

// More paths than this in one run are summarised in the last finding: a graph dense enough to
// have them needs its structure fixed, not a longer list.
constexpr std::size_t kMaxReportedPaths = 200;

std::string in_quotes(std::string_view text) {
    return "'" + std::string(text) + "'";
}

}  // namespace

const Rule kRetryAmplification{
    RuleInfo{"RB338", "retry-amplification", Severity::Warning, RuleOrigin::Semantic,
             "a call path across services whose retries multiply past max (default 10) calls",
             "Each layer that retries multiplies the calls the layers below it receive: 3 "
             "attempts at the edge, 3 in the middle and 5 at the database send 45 calls to the "
             "database for one request, exactly when it is failing. Retry at one layer (usually "
             "the edge or the one nearest the failing dependency), give the others one attempt, "
             "and put a retry budget on the ones that keep retrying."},
    nullptr};

const Rule kCallCycle{
    RuleInfo{"RB339", "call-cycle", Severity::Error, RuleOrigin::Semantic,
             "handlers whose calls form a cycle",
             "A handler that calls itself, directly or through others, multiplies its retries "
             "with every turn of the cycle: the worst case has no bound. Break the cycle, or "
             "remove the binding's calls entry if the call graph is wrong."},
    nullptr};

const Rule kUnboundCallee{
    RuleInfo{"RB340", "unbound-callee", Severity::Note, RuleOrigin::Semantic,
             "a name in calls that no linted file binds",
             "The amplification check only sees handlers bound in the files linted together. A "
             "callee bound nowhere leaves the call graph incomplete: lint the callee's service "
             "file with this one, or correct the name."},
    nullptr};

std::vector<Findings> call_graph_findings(std::vector<std::vector<dsl::CallGraphNode>> per_file,
                                          const LintSettings& settings,
                                          const RuleRegistry& registry) {
    std::vector<Findings> findings(per_file.size());
    std::vector<std::size_t> file_of;  // node index -> file index
    std::vector<dsl::CallGraphNode> nodes;
    for (std::size_t file = 0; file < per_file.size(); ++file) {
        for (dsl::CallGraphNode& node : per_file[file]) {
            file_of.push_back(file);
            nodes.push_back(std::move(node));
        }
    }
    const dsl::CallGraph graph(std::move(nodes));
    const auto report = [&](std::size_t node, SourcePosition position, std::string_view code,
                            std::string message, std::string suggestion) {
        findings[file_of[node]].push_back(make_finding(registry, code, graph.nodes()[node].file,
                                                       position, std::move(message),
                                                       std::move(suggestion)));
    };

    const std::int64_t max = settings.thresholds.max_amplification;
    const dsl::AmplifiedPaths amplified = graph.amplified_paths(max, kMaxReportedPaths);
    for (std::size_t i = 0; i < amplified.paths.size(); ++i) {
        const dsl::CallPath& path = amplified.paths[i];
        const std::size_t first = path.nodes.front();
        std::string message = "up to " + std::to_string(path.product) + " calls reach " +
                              in_quotes(path.names.back()) + " for one request to " +
                              in_quotes(path.names.front()) + ", more than " + std::to_string(max) +
                              ": " + dsl::describe_path(graph, path) + " = " +
                              std::to_string(path.product);
        if (amplified.truncated && i + 1 == amplified.paths.size()) {
            message += " (the search stopped after " + std::to_string(kMaxReportedPaths) +
                       " paths; more may exceed)";
        }
        report(first, graph.nodes()[first].position, kRetryAmplification.info.code,
               std::move(message),
               "retry at one layer and give the others max_attempts: 1, or put a retry budget "
               "on the layers that retry");
    }
    for (const dsl::CallCycle& cycle : graph.cycles()) {
        const std::size_t last = cycle.nodes.back();
        report(last, graph.nodes()[last].calls[cycle.closing_call].position, kCallCycle.info.code,
               "calls form a cycle: " + dsl::describe_cycle(graph, cycle) +
                   "; each turn multiplies the retries again",
               "break the cycle, or correct the calls entry");
    }
    for (const dsl::UnboundCall& unbound : graph.unbound_calls()) {
        const dsl::CallGraphNode& caller = graph.nodes()[unbound.caller];
        const dsl::Located<std::string>& callee = caller.calls[unbound.call];
        report(unbound.caller, callee.position, kUnboundCallee.info.code,
               in_quotes(caller.key) + " calls " + in_quotes(callee.value) +
                   ", which no linted file binds; the call graph stops there",
               "lint the file that binds " + in_quotes(callee.value) + " together with this one");
    }
    return findings;
}

}  // namespace rebound::lint::rules
