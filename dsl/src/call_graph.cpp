#include "rebound/dsl/call_graph.hpp"

#include <algorithm>
#include <set>
#include <utility>

namespace rebound::dsl {
namespace {

constexpr std::string_view kPrefixSuffix = ".*";

std::int64_t saturating_product(std::int64_t a, std::int64_t b) noexcept {
    if (a <= 0 || b <= 0) {
        return 0;
    }
    return a > kMaxCallProduct / b ? kMaxCallProduct : std::min(a * b, kMaxCallProduct);
}

enum class Mark : std::uint8_t { Unvisited, OnStack, Done };

// One frame of an iterative depth-first search: the node and the next call to follow.
struct Frame {
    std::size_t node;
    std::size_t next_call = 0;
};

using Targets = std::vector<std::vector<std::optional<std::size_t>>>;

// Depth-first search over every node, roots in index order, calls in order. Calls
// `on_back_edge(stack, call)` for call `call` of stack.back() into a node still on the stack (it
// closes a cycle), and `on_finish(node, marks)` once every call of `node` is explored (its
// children are Done then, or OnStack when the call closes a cycle).
template <typename OnBackEdge, typename OnFinish>
void depth_first(const Targets& targets, OnBackEdge on_back_edge, OnFinish on_finish) {
    std::vector<Mark> marks(targets.size(), Mark::Unvisited);
    std::vector<Frame> stack;
    for (std::size_t root = 0; root < targets.size(); ++root) {
        if (marks[root] != Mark::Unvisited) {
            continue;
        }
        stack.push_back(Frame{root});
        marks[root] = Mark::OnStack;
        while (!stack.empty()) {
            Frame& frame = stack.back();
            const auto& out = targets[frame.node];
            if (frame.next_call == out.size()) {
                const std::size_t node = frame.node;
                on_finish(node, marks);
                marks[node] = Mark::Done;
                stack.pop_back();
                continue;
            }
            const std::size_t call = frame.next_call++;
            const std::optional<std::size_t> target = out[call];
            if (!target) {
                continue;
            }
            if (marks[*target] == Mark::Unvisited) {
                marks[*target] = Mark::OnStack;
                stack.push_back(Frame{*target});
            } else if (marks[*target] == Mark::OnStack) {
                on_back_edge(stack, call);
            }
        }
    }
}

}  // namespace

std::vector<CallGraphNode> call_graph_nodes(const Document& document, const PolicySet& set,
                                            std::string_view file) {
    std::vector<CallGraphNode> nodes;
    for (const HandlerBinding& binding : set.bindings()) {
        const std::shared_ptr<const Policy>& policy = set.policy_of(binding);
        if (!policy) {
            continue;
        }
        CallGraphNode node;
        node.file = std::string(file);
        node.key = binding.key;
        node.max_attempts = policy->spec().max_attempts;
        node.redeliveries = binding.redeliveries;
        const auto written = std::find_if(
            document.handlers.begin(), document.handlers.end(),
            [&](const HandlerNode& handler) { return handler.key.value == binding.key; });
        if (written != document.handlers.end()) {
            node.position = written->key.position;
            if (written->calls) {
                node.calls = written->calls->items;
            }
        }
        nodes.push_back(std::move(node));
    }
    return nodes;
}

CallGraph::CallGraph(std::vector<CallGraphNode> nodes) : nodes_(std::move(nodes)) {
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
        const std::string& key = nodes_[i].key;
        if (key.ends_with(kPrefixSuffix)) {
            prefixes_.try_emplace(key.substr(0, key.size() - 1), i);
        } else {
            exact_.try_emplace(key, i);
        }
    }
    targets_.resize(nodes_.size());
    called_.assign(nodes_.size(), false);
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
        for (const Located<std::string>& callee : nodes_[i].calls) {
            const std::optional<std::size_t> target = resolve(callee.value);
            targets_[i].push_back(target);
            if (target) {
                called_[*target] = true;
            }
        }
    }
    // Best products, children before parents (post-order); an edge into a node still on the
    // stack closes a cycle and is left out.
    best_product_.assign(nodes_.size(), 0);
    best_call_.assign(nodes_.size(), std::nullopt);
    depth_first(
        targets_, [](const std::vector<Frame>&, std::size_t) {},
        [this](std::size_t node, const std::vector<Mark>& marks) {
            const auto& out = targets_[node];
            std::int64_t best_below = 1;
            for (std::size_t call = 0; call < out.size(); ++call) {
                if (out[call] && marks[*out[call]] == Mark::Done &&
                    best_product_[*out[call]] > best_below) {
                    best_below = best_product_[*out[call]];
                    best_call_[node] = call;
                }
            }
            best_product_[node] = saturating_product(nodes_[node].factor(), best_below);
        });
}

std::optional<std::size_t> CallGraph::resolve(std::string_view handler) const {
    if (const auto exact = exact_.find(std::string(handler)); exact != exact_.end()) {
        return exact->second;
    }
    // Longest prefix first: for a.b.c try "a.b." then "a.".
    for (std::size_t dot = handler.rfind('.'); dot != std::string_view::npos;
         dot = dot == 0 ? std::string_view::npos : handler.rfind('.', dot - 1)) {
        if (const auto prefix = prefixes_.find(std::string(handler.substr(0, dot + 1)));
            prefix != prefixes_.end()) {
            return prefix->second;
        }
    }
    return std::nullopt;
}

std::vector<CallCycle> CallGraph::cycles() const {
    std::vector<CallCycle> found;
    std::set<std::vector<std::size_t>> seen;  // each cycle once, from its smallest node
    depth_first(
        targets_,
        [&](const std::vector<Frame>& stack, std::size_t call) {
            const std::size_t target = *targets_[stack.back().node][call];
            const auto start = std::find_if(stack.begin(), stack.end(),
                                            [&](const Frame& f) { return f.node == target; });
            CallCycle cycle;
            for (auto it = start; it != stack.end(); ++it) {
                cycle.nodes.push_back(it->node);
            }
            cycle.closing_call = call;
            std::vector<std::size_t> canonical = cycle.nodes;
            std::rotate(canonical.begin(), std::min_element(canonical.begin(), canonical.end()),
                        canonical.end());
            if (seen.insert(std::move(canonical)).second) {
                found.push_back(std::move(cycle));
            }
        },
        [](std::size_t, const std::vector<Mark>&) {});
    return found;
}

std::vector<UnboundCall> CallGraph::unbound_calls() const {
    std::vector<UnboundCall> found;
    for (std::size_t caller = 0; caller < nodes_.size(); ++caller) {
        for (std::size_t call = 0; call < targets_[caller].size(); ++call) {
            if (!targets_[caller][call]) {
                found.push_back(UnboundCall{caller, call});
            }
        }
    }
    return found;
}

AmplifiedPaths CallGraph::amplified_paths(std::int64_t max, std::size_t limit) const {
    AmplifiedPaths result;
    std::vector<bool> on_path(nodes_.size(), false);
    // The path being extended: frames, and the product up to each frame.
    std::vector<Frame> stack;
    std::vector<std::int64_t> products;
    const auto path_of = [&]() {
        CallPath path;
        for (std::size_t i = 0; i < stack.size(); ++i) {
            path.nodes.push_back(stack[i].node);
            path.names.push_back(
                i == 0 ? nodes_[stack[i].node].key
                       : nodes_[stack[i - 1].node].calls[stack[i - 1].next_call - 1].value);
        }
        path.product = products.back();
        return path;
    };
    for (std::size_t root = 0; root < nodes_.size(); ++root) {
        if (called_[root] || best_product_[root] <= max) {
            continue;
        }
        stack.push_back(Frame{root});
        products.push_back(nodes_[root].factor());
        on_path[root] = true;
        // One binding alone multiplies across layers only through its broker's redeliveries;
        // its own attempts are the single-policy rules' business.
        if (products.back() > max && nodes_[root].redeliveries > 0) {
            result.paths.push_back(path_of());
        }
        while (!stack.empty()) {
            if (result.paths.size() >= limit) {
                result.truncated = true;
                return result;
            }
            Frame& frame = stack.back();
            const auto& out = targets_[frame.node];
            if (frame.next_call == out.size()) {
                on_path[frame.node] = false;
                stack.pop_back();
                products.pop_back();
                continue;
            }
            const std::optional<std::size_t> target = out[frame.next_call++];
            // Skip cycles, and subtrees whose best path cannot exceed `max` from here.
            if (!target || on_path[*target] ||
                saturating_product(products.back(), best_product_[*target]) <= max) {
                continue;
            }
            const std::int64_t product =
                saturating_product(products.back(), nodes_[*target].factor());
            stack.push_back(Frame{*target});
            products.push_back(product);
            on_path[*target] = true;
            if (product > max) {
                result.paths.push_back(path_of());
            }
        }
    }
    return result;
}

CallPath CallGraph::worst_path_from(std::size_t start) const {
    CallPath path;
    std::vector<bool> visited(nodes_.size(), false);
    std::size_t node = start;
    path.nodes.push_back(node);
    path.names.push_back(nodes_[node].key);
    visited[node] = true;
    while (best_call_[node]) {
        const std::size_t call = *best_call_[node];
        const std::size_t next = *targets_[node][call];
        if (visited[next]) {
            break;
        }
        path.nodes.push_back(next);
        path.names.push_back(nodes_[node].calls[call].value);
        visited[next] = true;
        node = next;
    }
    path.product = best_product_[start];
    return path;
}

std::string describe_path(const CallGraph& graph, const CallPath& path) {
    std::string text;
    for (std::size_t i = 0; i < path.nodes.size(); ++i) {
        const CallGraphNode& node = graph.nodes()[path.nodes[i]];
        text += (i == 0 ? "" : " -> ") + path.names[i] + " x" + std::to_string(node.factor());
        if (node.redeliveries > 0) {
            text += " (" + std::to_string(node.max_attempts) + " attempts x " +
                    std::to_string(1 + node.redeliveries) + " deliveries)";
        }
    }
    return text;
}

std::string describe_cycle(const CallGraph& graph, const CallCycle& cycle) {
    std::string text;
    for (std::size_t i = 0; i < cycle.nodes.size(); ++i) {
        text += (i == 0 ? "" : " -> ") + graph.nodes()[cycle.nodes[i]].key;
    }
    const CallGraphNode& last = graph.nodes()[cycle.nodes.back()];
    return text + " -> " + last.calls[cycle.closing_call].value;
}

}  // namespace rebound::dsl
