// HttpClient called from several threads at once (docs/protocols.md, "Connections"): each call
// gets an easy handle no other call is using, and handles go back to the client for later calls,
// so the connections the server accepts stay at most the number of calls in flight at once.
#include <catch2/catch.hpp>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "loopback_http_server.hpp"
#include "rebound/curl/http_client.hpp"
#include "rebound/policy.hpp"

TEST_CASE("curl: threads calling one client at once share its kept connections", "[curl]") {
    using namespace std::chrono_literals;
    const rebound::testing::LoopbackHttpServer server{FLAKY_HTTP_SERVER};
    const auto policy = rebound::PolicyBuilder("calls")
                            .max_attempts(1)
                            .attempt_timeout(5s)
                            .retry_on(rebound::Matcher::transient())
                            .build();
    const rebound::RetryExecutor executor{{.resolver = [&](std::string_view) {
        rebound::HandlerResolution r;
        r.policy = policy;
        r.via = rebound::ResolvedVia::Code;
        return r;
    }}};
    const rebound::curl::HttpClient client{executor};
    rebound::curl::HttpRequest request;
    request.url = server.url("/ok/shared");

    constexpr int kThreads = 4;
    constexpr int kCalls = 25;
    std::atomic<int> answered{0};
    {
        std::vector<std::jthread> threads;
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&] {
                for (int call = 0; call < kCalls; ++call) {
                    const auto r = client.call("shared", request);
                    if (r.run.succeeded() && r.response.body == "ok") {
                        answered.fetch_add(1, std::memory_order_relaxed);
                    }
                }
            });
        }
    }
    CHECK(answered.load() == kThreads * kCalls);
    request.url = server.url("/connections/count");
    const auto counted = client.call("shared", request);
    REQUIRE(counted.run.succeeded());
    const int accepted = std::stoi(counted.response.body);
    CHECK(accepted >= 1);
    CHECK(accepted <= kThreads);
}
