// The overhead of running an HTTP call through AsyncHttpClient under the asynchronous executor
// (docs/protocols.md, The libcurl adapter on Asio), beside the bare transfer through the same
// multi driver in the same run, on real loopback round trips to tests/support/flaky_http_server.py
// (started by the bench). Sequential GETs of a 2-byte body on the client's kept connection, one
// io_context on this thread.
//
// Cases (real time per round trip):
//   async_http/perform        AsyncHttpClient::perform: the transfer alone, the baseline
//   async_http/call           AsyncHttpClient::call: the same transfer as a run of
//                             rebound::asio::RetryExecutor (policy resolution, the run's state
//                             and strand, the attempt's coroutine, classification)
//                             goal (issue 15): call <= 1.02 x perform
#include <benchmark/benchmark.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <memory>
#include <optional>
#include <stdexcept>

#include "loopback_http_server.hpp"
#include "rebound/asio/retry_executor.hpp"
#include "rebound/curl/async_http_client.hpp"
#include "rebound/policy.hpp"

using namespace std::chrono_literals;

namespace {

// One server for the whole program; the cases share its warm process.
rebound::testing::LoopbackHttpServer& server() {
    static rebound::testing::LoopbackHttpServer instance(REBOUND_FLAKY_HTTP_SERVER);
    return instance;
}

rebound::curl::HttpRequest ok_request() {
    rebound::curl::HttpRequest request;
    request.url = server().url("/ok/bench");
    return request;
}

// One transfer before the timing, so that every timed one goes on the client's kept connection
// (the first pays the connect, and the server's thread for it).
void connect(asio::io_context& io, const rebound::curl::AsyncHttpClient& client,
             const rebound::curl::HttpRequest& request) {
    asio::co_spawn(
        io, [&]() -> asio::awaitable<void> { co_await client.perform(request, std::nullopt); },
        asio::detached);
    io.run();
    io.restart();
}

void BM_async_http_perform(benchmark::State& state) {
    asio::io_context io;
    const rebound::curl::AsyncHttpClient client(io.get_executor());
    const rebound::curl::HttpRequest request = ok_request();
    connect(io, client, request);
    for (auto _ : state) {
        std::optional<rebound::curl::AttemptOutcome> outcome;
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                outcome = co_await client.perform(request, std::nullopt);
            },
            asio::detached);
        io.run();
        io.restart();
        if (!outcome || outcome->code != CURLE_OK || outcome->response.status != 200) {
            state.SkipWithError("the transfer failed");
            return;
        }
    }
}
BENCHMARK(BM_async_http_perform)
    ->Name("async_http/perform")
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

void BM_async_http_call(benchmark::State& state) {
    asio::io_context io;
    const rebound::curl::AsyncHttpClient client(io.get_executor());
    const rebound::curl::HttpRequest request = ok_request();
    const auto policy = rebound::PolicyBuilder("calls")
                            .max_attempts(4)
                            .backoff(rebound::Backoff::fixed(10ms))
                            .retry_on(rebound::Matcher::transient())
                            .build();
    const rebound::asio::RetryExecutor executor({.resolver = [&](std::string_view) {
        rebound::HandlerResolution r;
        r.policy = policy;
        return r;
    }});
    connect(io, client, request);
    for (auto _ : state) {
        std::optional<rebound::curl::CallResult> result;
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                result = co_await client.call(executor, "bench.get", request);
            },
            asio::detached);
        io.run();
        io.restart();
        if (!result || !result->run.succeeded() || result->response.status != 200) {
            state.SkipWithError("the call failed");
            return;
        }
    }
}
BENCHMARK(BM_async_http_call)
    ->Name("async_http/call")
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
