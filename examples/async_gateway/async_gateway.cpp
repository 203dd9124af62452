// The asynchronous gateway (docs/async.md): an Asio service that answers each request by calling
// two flaky loopback dependencies at once, pricing and inventory, each under a policy and a
// circuit breaker from async_gateway.yaml (embedded as the default; --policy FILE for another).
//
// The dependencies are TCP servers on 127.0.0.1 in the same io_context. Pricing drops every
// third connection without answering (connection_lost, retried). Inventory stalls every fifth
// request past the policy's attempt_timeout (statement_timeout, retried) and drops every
// connection during an outage, which opens its breaker: calls then fail fast with circuit_open
// until a probe gets through. Everything runs on one thread; no thread ever sleeps.
//
// It prints a summary (requests, answers, outcomes per dependency) and the Prometheus metrics,
// and exits 1 if a request is left without an outcome.
#include <asio/buffer.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/awaitable_operators.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read_until.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <iostream>
#include <map>
#include <string>

#include "async_gateway/embedded_policy.hpp"
#include "rebound/asio.hpp"
#include "rebound/dsl/load.hpp"
#include "rebound/retry_metrics.hpp"

using namespace std::chrono_literals;
using asio::ip::tcp;
using namespace asio::experimental::awaitable_operators;

namespace {

// When a dependency misbehaves, by the number of the connection it accepted (from 1).
enum class Behaviour { Answer, Drop, Stall };

class Dependency {
  public:
    Dependency(asio::io_context& io, std::string name, Behaviour (*behaviour)(int connection))
        : acceptor_(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0)),
          name_(std::move(name)),
          behaviour_(behaviour) {
        asio::co_spawn(io, accept(), asio::detached);
    }

    tcp::endpoint endpoint() const { return acceptor_.local_endpoint(); }
    void close() { acceptor_.close(); }

  private:
    asio::awaitable<void> accept() {
        for (int connection = 1;; ++connection) {
            tcp::socket socket = co_await acceptor_.async_accept(asio::use_awaitable);
            asio::co_spawn(acceptor_.get_executor(),
                           serve(std::move(socket), behaviour_(connection)), asio::detached);
        }
    }

    asio::awaitable<void> serve(tcp::socket socket, Behaviour behaviour) {
        std::string request;
        co_await asio::async_read_until(socket, asio::dynamic_buffer(request), '\n',
                                        asio::use_awaitable);
        if (behaviour == Behaviour::Drop) {
            co_return;  // the socket closes without an answer
        }
        if (behaviour == Behaviour::Stall) {
            asio::steady_timer stall(socket.get_executor(), 300ms);
            co_await stall.async_wait(asio::use_awaitable);
            co_return;
        }
        const std::string reply = name_ + " of " + request;  // request ends with '\n'
        co_await asio::async_write(socket, asio::buffer(reply), asio::use_awaitable);
    }

    tcp::acceptor acceptor_;
    std::string name_;
    Behaviour (*behaviour_)(int connection);
};

Behaviour pricing_behaviour(int connection) {
    return connection % 3 == 0 ? Behaviour::Drop : Behaviour::Answer;
}

Behaviour inventory_behaviour(int connection) {
    if (connection >= 30 && connection < 42) {
        return Behaviour::Drop;  // the outage
    }
    return connection % 5 == 0 ? Behaviour::Stall : Behaviour::Answer;
}

// One attempt: connect, send the item, read one line. Throws asio::system_error on failure.
asio::awaitable<std::string> call(tcp::endpoint endpoint, std::string item) {
    tcp::socket socket(co_await asio::this_coro::executor);
    co_await socket.async_connect(endpoint, asio::use_awaitable);
    item += '\n';
    co_await asio::async_write(socket, asio::buffer(item), asio::use_awaitable);
    std::string reply;
    co_await asio::async_read_until(socket, asio::dynamic_buffer(reply), '\n', asio::use_awaitable);
    reply.pop_back();
    co_return reply;
}

struct Summary {
    int requests = 0;
    int answered = 0;
    std::map<std::string, std::map<std::string, int>> outcomes;  // handler -> outcome -> runs
};

asio::awaitable<void> client(const rebound::asio::RetryExecutor& executor,
                             const Dependency& pricing, const Dependency& inventory, int first,
                             int count, Summary& summary) {
    for (int i = first; i < first + count; ++i) {
        const std::string item = "item-" + std::to_string(i);
        const auto fetch = [&](std::string_view handler, tcp::endpoint endpoint) {
            return executor.run(
                handler, [endpoint, item] { return call(endpoint, item); }, asio::use_awaitable);
        };
        // Both dependencies at once; each run retries on its own.
        auto [price, stock] = co_await (fetch("FetchPrice", pricing.endpoint()) &&
                                        fetch("FetchStock", inventory.endpoint()));
        ++summary.requests;
        summary.outcomes["FetchPrice"][std::string(rebound::to_string(price.outcome))]++;
        summary.outcomes["FetchStock"][std::string(rebound::to_string(stock.outcome))]++;
        if (price.succeeded() && stock.succeeded()) {
            ++summary.answered;
        }
    }
}

std::shared_ptr<const rebound::PolicySet> load_policies(int argc, char** argv) {
    const std::string file = argc == 3 && std::string(argv[1]) == "--policy" ? argv[2] : "";
    rebound::dsl::LoadResult loaded =
        file.empty()
            ? rebound::dsl::load_text(async_gateway::kEmbeddedPolicy,
                                      "<embedded async_gateway.yaml>", rebound::dsl::Syntax::Yaml)
            : rebound::dsl::load_file(file);
    for (const rebound::dsl::Diagnostic& diagnostic : loaded.diagnostics) {
        std::cerr << rebound::dsl::format_diagnostic(diagnostic, loaded.source) << '\n';
    }
    return loaded.policy_set;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 1 && !(argc == 3 && std::string(argv[1]) == "--policy")) {
        std::cerr << "usage: rebound_example_async_gateway [--policy FILE]\n";
        return 2;
    }
    const auto policies = load_policies(argc, argv);
    if (!policies) {
        return 2;
    }
    rebound::RetryMetrics metrics;
    const rebound::asio::RetryExecutor executor(
        {.listeners = {&metrics},
         .resolver = [policies](std::string_view handler) { return policies->resolve(handler); }});

    asio::io_context io;
    Dependency pricing(io, "price", pricing_behaviour);
    Dependency inventory(io, "stock", inventory_behaviour);
    constexpr int kClients = 4;
    constexpr int kRequestsPerClient = 10;
    Summary summary;
    int clients_done = 0;
    for (int c = 0; c < kClients; ++c) {
        asio::co_spawn(io,
                       client(executor, pricing, inventory, c * kRequestsPerClient,
                              kRequestsPerClient, summary),
                       [&](std::exception_ptr error) {
                           if (error) {
                               std::cerr << "a client failed\n";
                           }
                           if (++clients_done == kClients) {
                               pricing.close();
                               inventory.close();
                           }
                       });
    }
    io.run();

    std::cout << "requests: " << summary.requests << ", answered in full: " << summary.answered
              << '\n';
    for (const auto& [handler, outcomes] : summary.outcomes) {
        std::cout << handler << ':';
        for (const auto& [outcome, runs] : outcomes) {
            std::cout << ' ' << outcome << ' ' << runs;
        }
        std::cout << '\n';
    }
    std::cout << '\n' << metrics.render();
    return summary.requests == kClients * kRequestsPerClient ? 0 : 1;
}
