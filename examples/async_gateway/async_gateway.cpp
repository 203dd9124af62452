// The asynchronous gateway (docs/async.md): an Asio service that answers each request by calling
// two flaky loopback HTTP dependencies at once, pricing and inventory, through
// rebound::curl::AsyncHttpClient (libcurl's multi interface on the same io_context), each under a
// policy and a circuit breaker from async_gateway.yaml (embedded as the default; --policy FILE
// for another).
//
// The dependencies are minimal HTTP/1.1 servers on 127.0.0.1 in the same io_context. Pricing
// closes every third request's connection without answering (a GET that got nothing back after
// it was sent: connection_lost, retried) and answers every seventh with 503 and Retry-After: 0
// (service_unavailable, retried). Inventory stalls every fifth request past the policy's
// attempt_timeout (the executor cancels the transfer: statement_timeout, retried) and drops
// every request during an outage, which opens its breaker: calls then fail fast with
// circuit_open until a probe gets through. Everything runs on one thread; no thread ever sleeps.
//
// It prints a summary (requests, answers, outcomes per dependency) and the Prometheus metrics,
// and exits 1 if a request is left without an outcome.

// A standard header before Asio's, as in Rebound's own headers: every translation unit must make
// Asio allocate coroutine frames the same way (rebound/curl/async_http_client.hpp).
#include <cstdlib>

#include <CLI/CLI.hpp>
#include <asio/buffer.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/experimental/awaitable_operators.hpp>
#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/read_until.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>
#include <iostream>
#include <map>
#include <string>

#include "async_gateway/embedded_policy.hpp"
#include "common/command_line.hpp"
#include "rebound/asio.hpp"
#include "rebound/curl/async_http_client.hpp"
#include "rebound/dsl/load.hpp"
#include "rebound/retry_metrics.hpp"

using namespace std::chrono_literals;
using asio::ip::tcp;
using namespace asio::experimental::awaitable_operators;

namespace {

// What a dependency does with a request, by the number of the request it received (from 1).
enum class Behaviour { Answer, Drop, Stall, Unavailable };

class Dependency {
  public:
    Dependency(asio::io_context& io, std::string name, Behaviour (*behaviour)(int request))
        : acceptor_(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0)),
          name_(std::move(name)),
          behaviour_(behaviour) {
        asio::co_spawn(io, accept(), asio::detached);
    }

    // The URL of an item on this dependency.
    std::string url(const std::string& item) const {
        return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port()) + "/" + item;
    }
    void close() { acceptor_.close(); }

  private:
    asio::awaitable<void> accept() {
        for (;;) {
            tcp::socket socket = co_await acceptor_.async_accept(asio::use_awaitable);
            asio::co_spawn(acceptor_.get_executor(), serve(std::move(socket)), asio::detached);
        }
    }

    // One request per connection (every answer says Connection: close).
    asio::awaitable<void> serve(tcp::socket socket) {
        std::string request;
        co_await asio::async_read_until(socket, asio::dynamic_buffer(request), "\r\n\r\n",
                                        asio::use_awaitable);
        switch (behaviour_(++requests_)) {
            case Behaviour::Drop:
                co_return;  // the socket closes without an answer
            case Behaviour::Stall: {
                asio::steady_timer stall(socket.get_executor(), 300ms);
                co_await stall.async_wait(asio::use_awaitable);
                co_return;
            }
            case Behaviour::Unavailable:
                co_await reply(socket, "503 Service Unavailable", "Retry-After: 0\r\n", "");
                co_return;
            case Behaviour::Answer:
                break;
        }
        // "GET /item-3 HTTP/1.1": the item is the path without its slash.
        const std::size_t path = request.find(' ') + 2;
        const std::string item = request.substr(path, request.find(' ', path) - path);
        co_await reply(socket, "200 OK", "", name_ + " of " + item);
    }

    static asio::awaitable<void> reply(tcp::socket& socket, const std::string& status,
                                       const std::string& headers, const std::string& body) {
        const std::string message = "HTTP/1.1 " + status +
                                    "\r\nContent-Length: " + std::to_string(body.size()) +
                                    "\r\nConnection: close\r\n" + headers + "\r\n" + body;
        co_await asio::async_write(socket, asio::buffer(message), asio::use_awaitable);
    }

    tcp::acceptor acceptor_;
    std::string name_;
    Behaviour (*behaviour_)(int request);
    int requests_ = 0;
};

Behaviour pricing_behaviour(int request) {
    if (request % 3 == 0) {
        return Behaviour::Drop;
    }
    return request % 7 == 0 ? Behaviour::Unavailable : Behaviour::Answer;
}

Behaviour inventory_behaviour(int request) {
    if (request >= 30 && request < 42) {
        return Behaviour::Drop;  // the outage
    }
    return request % 5 == 0 ? Behaviour::Stall : Behaviour::Answer;
}

struct Summary {
    int requests = 0;
    int answered = 0;
    std::map<std::string, std::map<std::string, int>> outcomes;  // handler -> outcome -> runs
};

asio::awaitable<void> client(const rebound::asio::RetryExecutor& executor,
                             const rebound::curl::AsyncHttpClient& http, const Dependency& pricing,
                             const Dependency& inventory, int first, int count, Summary& summary) {
    for (int i = first; i < first + count; ++i) {
        const std::string item = "item-" + std::to_string(i);
        const auto fetch = [&](std::string_view handler, const Dependency& dependency) {
            rebound::curl::HttpRequest request;  // a GET
            request.url = dependency.url(item);
            return http.call(executor, handler, std::move(request));
        };
        // Both dependencies at once; each run retries on its own.
        auto [price, stock] =
            co_await (fetch("FetchPrice", pricing) && fetch("FetchStock", inventory));
        ++summary.requests;
        summary.outcomes["FetchPrice"][std::string(rebound::to_string(price.run.outcome))]++;
        summary.outcomes["FetchStock"][std::string(rebound::to_string(stock.run.outcome))]++;
        if (price.run.succeeded() && stock.run.succeeded()) {
            ++summary.answered;
        }
    }
}

// The policies of `file`, or the embedded ones when it is empty; nullptr after reporting errors.
std::shared_ptr<const rebound::PolicySet> load_policies(const std::string& file) {
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
    CLI::App app{
        "The asynchronous gateway: an Asio service calling two flaky loopback HTTP "
        "dependencies at once, each under a retry policy and a circuit breaker."};
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // last wins
    std::string policy_file;
    app.add_option("--policy", policy_file,
                   "Policy file of the service (default: the embedded copy of "
                   "examples/async_gateway/async_gateway.yaml)")
        ->type_name("FILE");
    if (const std::optional<int> status = examples::parse_command_line(app, argc, argv)) {
        return *status;
    }
    const auto policies = load_policies(policy_file);
    if (!policies) {
        return 2;
    }
    rebound::RetryMetrics metrics;
    const rebound::asio::RetryExecutor executor(
        {.listeners = {&metrics},
         .resolver = [policies](std::string_view handler) { return policies->resolve(handler); }});

    asio::io_context io;
    const rebound::curl::AsyncHttpClient http(io.get_executor());
    Dependency pricing(io, "price", pricing_behaviour);
    Dependency inventory(io, "stock", inventory_behaviour);
    constexpr int kClients = 4;
    constexpr int kRequestsPerClient = 10;
    Summary summary;
    int clients_done = 0;
    for (int c = 0; c < kClients; ++c) {
        asio::co_spawn(io,
                       client(executor, http, pricing, inventory, c * kRequestsPerClient,
                              kRequestsPerClient, summary),
                       [&](const std::exception_ptr& error) {
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
