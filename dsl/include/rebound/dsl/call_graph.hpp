// The call graph of handler bindings across policy files (docs/resilience.md, "Retry
// amplification across layers").
//
// A binding's `calls` lists the handlers its work calls; a name resolves like any handler name,
// across every file of the graph: an exact binding, else the longest matching `prefix.*` binding
// (the first file's binding when several files bind the same key). Each binding multiplies the
// calls that reach it by its factor, `max_attempts * (1 + redeliveries)`: one request through the
// path a -> b -> c can reach c factor(a) * factor(b) * factor(c) times in the worst case.
//
// The graph is built once and never changes; it is safe to share between threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "rebound/dsl/document.hpp"
#include "rebound/policy_set.hpp"

namespace rebound::dsl {

// Products saturate here (far above any threshold, far below overflow).
inline constexpr std::int64_t kMaxCallProduct = 1'000'000'000'000'000;

// One handler binding as a node of the call graph.
struct CallGraphNode {
    std::string file;
    std::string key;          // an exact handler name or a `prefix.*` pattern
    SourcePosition position;  // of the key
    int max_attempts = 1;     // of the policy the binding uses
    std::int64_t redeliveries = 0;
    std::vector<Located<std::string>> calls;

    // The most times one request's call reaches this handler's work.
    std::int64_t factor() const noexcept { return max_attempts * (1 + redeliveries); }
};

// The bindings of one compiled file, in file order. Bindings whose policy did not compile are
// left out. Precondition: `set` was compiled from `document`.
std::vector<CallGraphNode> call_graph_nodes(const Document& document, const PolicySet& set,
                                            std::string_view file);

// A path through the graph: nodes[0] is where it starts; names[i] is how nodes[i] was reached
// (the callee name as written; the key for the first node).
struct CallPath {
    std::vector<std::size_t> nodes;
    std::vector<std::string> names;
    std::int64_t product = 1;  // of the nodes' factors, saturated at kMaxCallProduct
};

// A cycle: nodes[0] calls nodes[1] ... and nodes.back() calls nodes[0] through its call
// number `closing_call`.
struct CallCycle {
    std::vector<std::size_t> nodes;
    std::size_t closing_call = 0;
};

// A name in `calls` that no binding of the graph resolves.
struct UnboundCall {
    std::size_t caller = 0;
    std::size_t call = 0;  // index into the caller's calls
};

struct AmplifiedPaths {
    std::vector<CallPath> paths;  // in search order
    bool truncated = false;       // the search stopped at its limit; more paths may exceed
};

class CallGraph {
  public:
    explicit CallGraph(std::vector<CallGraphNode> nodes);

    const std::vector<CallGraphNode>& nodes() const noexcept { return nodes_; }
    // The node `handler` resolves to, or nullopt.
    std::optional<std::size_t> resolve(std::string_view handler) const;
    // Where each of node `node`'s calls resolves (nullopt: unbound).
    const std::vector<std::optional<std::size_t>>& targets(std::size_t node) const {
        return targets_[node];
    }
    // Whether any call of the graph resolves to `node`.
    bool is_called(std::size_t node) const { return called_[node]; }

    std::vector<CallCycle> cycles() const;
    std::vector<UnboundCall> unbound_calls() const;
    // Every simple path from a node that nothing calls whose product exceeds `max`, up to
    // `limit` paths; a path of one node only when it has redeliveries. Subtrees that cannot exceed
    // `max` are not searched, so the cost is linear in the graph when nothing amplifies.
    AmplifiedPaths amplified_paths(std::int64_t max, std::size_t limit) const;
    // The path from `start` with the largest product (just `start` when it calls nothing bound).
    CallPath worst_path_from(std::size_t start) const;

  private:
    std::vector<CallGraphNode> nodes_;
    std::unordered_map<std::string, std::size_t> exact_;
    std::unordered_map<std::string, std::size_t> prefixes_;  // "orders." for `orders.*`
    std::vector<std::vector<std::optional<std::size_t>>> targets_;
    std::vector<bool> called_;
    // The largest product of a path starting at each node, edges closing a cycle left out.
    std::vector<std::int64_t> best_product_;
    std::vector<std::optional<std::size_t>> best_call_;  // the call that path takes first
};

// "a x3 -> b x3 -> c x5 (5 attempts x 1 + 4 redeliveries = 25)": each hop with its factor.
std::string describe_path(const CallGraph& graph, const CallPath& path);
// "a -> b -> a".
std::string describe_cycle(const CallGraph& graph, const CallCycle& cycle);

}  // namespace rebound::dsl
