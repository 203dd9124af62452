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
//   async_http/paired         one of each per iteration, alternating which goes first; its
//                             counter call_over_perform is the goal's figure
//                             goal (issue 15): call <= 1.02 x perform
//   async_http/hedged_paired  a call under a hedging policy whose hedge is never due (1 s; the
//                             first transfer answers long before) and the same call under the
//                             same policy without `hedge`, alternating; its counter
//                             hedged_over_plain is the goal's figure
//                             goal (issue 41): hedged <= 1.1 x plain
#include <benchmark/benchmark.h>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <stdexcept>

#include "loopback_http_server.hpp"
#include "rebound/asio/retry_executor.hpp"
#include "rebound/curl/async_http_client.hpp"
#include "rebound/hedge.hpp"
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

// One transfer through the bare multi driver; false if it did not answer 200.
bool perform_once(asio::io_context& io, const rebound::curl::AsyncHttpClient& client,
                  const rebound::curl::HttpRequest& request) {
    std::optional<rebound::curl::AttemptOutcome> outcome;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            outcome = co_await client.perform(request, std::nullopt);
        },
        asio::detached);
    io.run();
    io.restart();
    return outcome && outcome->code == CURLE_OK && outcome->response.status == 200;
}

// One call as a run of the asynchronous executor; false if it did not succeed with 200.
bool call_once(asio::io_context& io, const rebound::curl::AsyncHttpClient& client,
               const rebound::asio::RetryExecutor& executor,
               const rebound::curl::HttpRequest& request) {
    std::optional<rebound::curl::CallResult> result;
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            result = co_await client.call(executor, "bench.get", request);
        },
        asio::detached);
    io.run();
    io.restart();
    return result && result->run.succeeded() && result->response.status == 200;
}

// An executor whose every handler resolves to `policy`, declared idempotent.
rebound::asio::RetryExecutor make_executor(std::shared_ptr<const rebound::Policy> policy) {
    return rebound::asio::RetryExecutor({.resolver = [policy](std::string_view) {
        rebound::HandlerResolution r;
        r.policy = policy;
        r.idempotent = true;  // a GET; a hedging policy may then hedge
        return r;
    }});
}

std::shared_ptr<const rebound::Policy> calls_policy() {
    return rebound::PolicyBuilder("calls")
        .max_attempts(4)
        .backoff(rebound::Backoff::fixed(10ms))
        .retry_on(rebound::Matcher::transient())
        .build();
}

void BM_async_http_perform(benchmark::State& state) {
    asio::io_context io;
    const rebound::curl::AsyncHttpClient client(io.get_executor());
    const rebound::curl::HttpRequest request = ok_request();
    connect(io, client, request);
    for (auto _ : state) {
        if (!perform_once(io, client, request)) {
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
    const rebound::asio::RetryExecutor executor = make_executor(calls_policy());
    connect(io, client, request);
    for (auto _ : state) {
        if (!call_once(io, client, executor, request)) {
            state.SkipWithError("the call failed");
            return;
        }
    }
}
BENCHMARK(BM_async_http_call)
    ->Name("async_http/call")
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// Runs `a` and `b` once each per iteration, alternating which goes first, each timed on its own:
// a change in the server's or the machine's speed during the run falls on both alike, which two
// cases run one after the other cannot promise (their medians differ by several percent from one
// run to the next at a cv near 10%). Counters: the mean of each (`a_name`, `b_name`, in us) and
// `ratio_name`, the ratio of b's sum to a's, which is the goal's figure.
template <typename A, typename B>
void time_pairs(benchmark::State& state, A a, B b, const char* a_name, const char* b_name,
                const char* ratio_name) {
    std::chrono::steady_clock::duration a_time{};
    std::chrono::steady_clock::duration b_time{};
    bool b_first = false;
    for (auto _ : state) {
        b_first = !b_first;
        for (const bool is_b : {b_first, !b_first}) {
            const auto start = std::chrono::steady_clock::now();
            const bool ok = is_b ? b() : a();
            (is_b ? b_time : a_time) += std::chrono::steady_clock::now() - start;
            if (!ok) {
                state.SkipWithError("a transfer or a call failed");
                return;
            }
        }
    }
    const auto microseconds = [&](std::chrono::steady_clock::duration total) {
        return std::chrono::duration<double, std::micro>(total).count() /
               static_cast<double>(state.iterations());
    };
    state.counters[a_name] = microseconds(a_time);
    state.counters[b_name] = microseconds(b_time);
    state.counters[ratio_name] = a_time.count() > 0 ? static_cast<double>(b_time.count()) /
                                                          static_cast<double>(a_time.count())
                                                    : 0.0;
}

// A transfer and a call in every iteration; call_over_perform is issue 15's figure.
void BM_async_http_paired(benchmark::State& state) {
    asio::io_context io;
    const rebound::curl::AsyncHttpClient client(io.get_executor());
    const rebound::curl::HttpRequest request = ok_request();
    const rebound::asio::RetryExecutor executor = make_executor(calls_policy());
    connect(io, client, request);
    time_pairs(
        state, [&] { return perform_once(io, client, request); },
        [&] { return call_once(io, client, executor, request); }, "perform_us", "call_us",
        "call_over_perform");
}
BENCHMARK(BM_async_http_paired)
    ->Name("async_http/paired")
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// Two attempts, transient failures retried, and a hedge after 1 s when `hedge`: a run that never
// hedges, since the loopback answer comes in well under a millisecond.
std::shared_ptr<const rebound::Policy> reads_policy(bool hedge) {
    rebound::PolicySpec spec;
    spec.name = "reads";
    spec.max_attempts = 2;
    spec.retry_on = {rebound::Matcher::transient()};
    if (hedge) {
        rebound::HedgeSettings settings;
        settings.fixed_delay = 1s;
        spec.hedge = settings;
    }
    rebound::PolicyResult result = rebound::Policy::create(spec);
    if (!result) {
        throw std::logic_error("the bench's policy does not compile");
    }
    return std::move(result.policy);
}

// The same call under the policy without and with `hedge`; hedged_over_plain is issue 41's
// figure: what a hedged run that never hedges costs (its state, strand and timer, the attempt's
// own coroutine) on a real round trip.
void BM_async_http_hedged_paired(benchmark::State& state) {
    asio::io_context io;
    const rebound::curl::AsyncHttpClient client(io.get_executor());
    const rebound::curl::HttpRequest request = ok_request();
    const rebound::asio::RetryExecutor plain = make_executor(reads_policy(false));
    const rebound::asio::RetryExecutor hedged = make_executor(reads_policy(true));
    connect(io, client, request);
    time_pairs(
        state, [&] { return call_once(io, client, plain, request); },
        [&] { return call_once(io, client, hedged, request); }, "plain_us", "hedged_us",
        "hedged_over_plain");
}
BENCHMARK(BM_async_http_hedged_paired)
    ->Name("async_http/hedged_paired")
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
