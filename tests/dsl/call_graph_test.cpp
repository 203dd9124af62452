// The call graph of handler bindings (rebound/dsl/call_graph.hpp): name resolution, products,
// cycles, unbound callees and the bounded path search behind lint's RB338..RB340.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "rebound/dsl/call_graph.hpp"

using rebound::dsl::CallGraph;
using rebound::dsl::CallGraphNode;
using rebound::dsl::kMaxCallProduct;
using rebound::dsl::Located;

namespace {

CallGraphNode node(std::string key, int attempts, std::vector<std::string> calls = {},
                   std::int64_t redeliveries = 0) {
    CallGraphNode n;
    n.file = "f.yaml";
    n.key = std::move(key);
    n.max_attempts = attempts;
    n.redeliveries = redeliveries;
    for (std::string& callee : calls) {
        n.calls.push_back(Located<std::string>{std::move(callee), {}});
    }
    return n;
}

}  // namespace

TEST_CASE("call graph: a callee resolves to the exact binding, else the longest prefix",
          "[call_graph]") {
    const CallGraph graph({node("a", 1), node("orders.*", 1), node("orders.email.*", 1),
                           node("orders.email.send", 1)});
    CHECK(graph.resolve("a") == 0U);
    CHECK(graph.resolve("orders.ship") == 1U);
    CHECK(graph.resolve("orders.email.digest") == 2U);
    CHECK(graph.resolve("orders.email.send") == 3U);
    CHECK_FALSE(graph.resolve("orders").has_value());
    CHECK_FALSE(graph.resolve("b").has_value());
}

TEST_CASE("call graph: products multiply along paths, the worst path is found", "[call_graph]") {
    const CallGraph graph({node("edge", 3, {"mid", "side"}), node("mid", 3, {"db"}),
                           node("side", 2, {"nowhere"}), node("db", 5, {}, 1)});
    const auto worst = graph.worst_path_from(0);
    CHECK(worst.product == 3 * 3 * 10);
    CHECK(worst.names == std::vector<std::string>{"edge", "mid", "db"});
    CHECK(graph.worst_path_from(2).product == 2);
    CHECK_FALSE(graph.is_called(0));
    CHECK(graph.is_called(3));
    REQUIRE(graph.unbound_calls().size() == 1);
    CHECK(graph.unbound_calls()[0].caller == 2);

    const auto amplified = graph.amplified_paths(10, 100);
    REQUIRE(amplified.paths.size() == 1);  // edge -> mid (9) is within 10, edge -> mid -> db not
    CHECK(amplified.paths[0].product == 90);
    CHECK_FALSE(amplified.truncated);
    CHECK(graph.amplified_paths(100, 100).paths.empty());
    CHECK(rebound::dsl::describe_path(graph, amplified.paths[0]) ==
          "edge x3 -> mid x3 -> db x10 (5 attempts x 2 deliveries)");
}

TEST_CASE("call graph: cycles are found once each, and end the path search", "[call_graph]") {
    const CallGraph graph({node("a", 3, {"b"}), node("b", 3, {"a", "c"}), node("c", 3, {"c"}),
                           node("root", 3, {"a"})});
    const auto cycles = graph.cycles();
    REQUIRE(cycles.size() == 2);
    CHECK(rebound::dsl::describe_cycle(graph, cycles[0]) == "a -> b -> a");
    CHECK(rebound::dsl::describe_cycle(graph, cycles[1]) == "c -> c");
    const auto amplified = graph.amplified_paths(10, 100);
    for (const auto& path : amplified.paths) {
        CHECK(path.nodes.front() == 3U);  // only `root` is called by nothing
    }
    // root -> a is 9; root -> a -> b is 27 and root -> a -> b -> c 81; the calls back to a and
    // from c to itself are skipped.
    REQUIRE(amplified.paths.size() == 2);
    CHECK(amplified.paths[1].product == 81);
}

TEST_CASE("call graph: products saturate, and the search stops at its limit", "[call_graph]") {
    std::vector<CallGraphNode> chain;
    for (int i = 0; i < 12; ++i) {
        chain.push_back(node("n" + std::to_string(i), 1000, {"n" + std::to_string(i + 1)}));
    }
    chain.push_back(node("n12", 1000));
    const CallGraph graph(std::move(chain));
    CHECK(graph.worst_path_from(0).product == kMaxCallProduct);
    const auto amplified = graph.amplified_paths(10, 5);
    CHECK(amplified.paths.size() == 5);
    CHECK(amplified.truncated);
}
