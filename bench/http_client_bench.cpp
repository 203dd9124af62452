// rebound::curl's HttpClient on loopback (docs/protocols.md, "Connections"): one GET per call
// against tests/support/flaky_http_server.py, on the connection the client keeps between calls,
// against the same call on a new connection each time (a `Connection: close` request header, so
// the server closes it after the answer: what every call paid before the client kept handles).
// The server is Python's http.server, one thread per connection, so most of a call is the
// server's time: the difference between the two is the connection's setup and teardown.
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <string>

#include "loopback_http_server.hpp"
#include "rebound/curl/http_client.hpp"
#include "rebound/policy.hpp"

namespace {

// The server and a client with a one-attempt policy, shared by the benchmarks.
struct Setup {
    rebound::testing::LoopbackHttpServer server{REBOUND_FLAKY_HTTP_SERVER};
    std::shared_ptr<const rebound::Policy> policy = rebound::PolicyBuilder("bench")
                                                        .max_attempts(1)
                                                        .attempt_timeout(std::chrono::seconds(5))
                                                        .retry_on(rebound::Matcher::transient())
                                                        .build();
    rebound::RetryExecutor executor{{.resolver = [this](std::string_view) {
        rebound::HandlerResolution r;
        r.policy = policy;
        r.via = rebound::ResolvedVia::Code;
        return r;
    }}};
    rebound::curl::HttpClient client{executor};
};

Setup& setup() {
    static Setup shared;
    return shared;
}

void call(benchmark::State& state, bool new_connection) {
    Setup& s = setup();
    rebound::curl::HttpRequest request;
    request.url = s.server.url("/ok/bench");
    if (new_connection) {
        request.headers.emplace_back("Connection", "close");
    }
    for (auto _ : state) {
        const rebound::curl::CallResult r = s.client.call("bench", request);
        if (!r.run.succeeded()) {
            state.SkipWithError("the call failed");
            break;
        }
        benchmark::DoNotOptimize(r);
    }
}

void BM_http_call_kept_connection(benchmark::State& state) {
    call(state, false);
}
void BM_http_call_new_connection(benchmark::State& state) {
    call(state, true);
}

BENCHMARK(BM_http_call_kept_connection)->UseRealTime();
BENCHMARK(BM_http_call_new_connection)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
