// The libcurl multi interface driven by Asio (AsyncHttpClient, docs/async.md) against the real
// loopback HTTP server of the blocking client's tests (tests/support/flaky_http_server.py, one
// per test case), under rebound::asio::RetryExecutor. Waits between attempts run in virtual time
// (recorded, not slept); transfers, timeouts and cancellations are real.
#include <catch2/catch.hpp>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/steady_timer.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "braced_co_await.hpp"
#include "loopback_http_server.hpp"
#include "rebound/asio/retry_executor.hpp"
#include "rebound/asio/virtual_time.hpp"
#include "rebound/curl/async_http_client.hpp"
#include "rebound/policy.hpp"
#include "rebound/testing.hpp"

namespace {

using namespace std::chrono_literals;
using rebound::Duration;
using rebound::ErrorCategory;
using rebound::RetryOutcome;
using rebound::curl::AsyncHttpClient;
using rebound::curl::CallResult;
using rebound::curl::HttpRequest;

// Retries transient failures three times after 10 ms, hints capped at 5 s (waited); with an
// attempt_timeout when given.
std::shared_ptr<const rebound::Policy> calls_policy(std::optional<Duration> attempt_timeout) {
    rebound::ServerDelaySettings hints;
    hints.cap = 5s;
    hints.over_cap = rebound::OverCapAction::Cap;
    rebound::PolicyBuilder builder("calls");
    builder.max_attempts(4)
        .backoff(rebound::Backoff::fixed(10ms))
        .jitter(rebound::Jitter::none())
        .retry_on(rebound::Matcher::transient())
        .retry_on(rebound::Matcher::of_category(ErrorCategory::StatementTimeout))
        .server_delay(hints);
    if (attempt_timeout) {
        builder.attempt_timeout(*attempt_timeout);
    }
    return builder.build();
}

// One io_context run by the test's thread, the server, an asynchronous executor in virtual time
// whose handler `idempotent.call` is declared idempotent, and a client.
struct Fixture {
    explicit Fixture(std::optional<Duration> attempt_timeout = std::nullopt,
                     AsyncHttpClient::Options options = {})
        : policy(calls_policy(attempt_timeout)), client(io.get_executor(), options) {}

    asio::io_context io;
    rebound::testing::LoopbackHttpServer server{FLAKY_HTTP_SERVER};
    rebound::testing::ManualClock clock;
    rebound::asio::VirtualTime time{clock};
    std::shared_ptr<const rebound::Policy> policy;
    rebound::asio::RetryExecutor executor{{.clock = &clock,
                                           .resolver =
                                               [this](std::string_view h) {
                                                   rebound::HandlerResolution r;
                                                   r.policy = policy;
                                                   r.via = rebound::ResolvedVia::Code;
                                                   r.idempotent = h == "idempotent.call";
                                                   return r;
                                               }},
                                          &time};
    AsyncHttpClient client;

    HttpRequest request(std::string method, const std::string& path,
                        std::vector<std::pair<std::string, std::string>> headers = {},
                        std::string body = {}) const {
        HttpRequest r;
        r.method = std::move(method);
        r.url = server.url(path);
        r.headers = std::move(headers);
        r.body = std::move(body);
        return r;
    }

    // Runs one call to completion on this thread.
    CallResult send(const HttpRequest& outgoing, rebound::RunOptions options = {},
                    std::string handler = "call") {
        std::optional<CallResult> result;
        asio::co_spawn(
            io,
            [&]() -> asio::awaitable<void> {
                result = co_await client.call(executor, handler, outgoing, options);
            },
            asio::detached);
        io.run();
        io.restart();
        REQUIRE(result.has_value());
        return std::move(*result);
    }

    int applied(const std::string& id) {
        const CallResult r = send(request("GET", "/applied/" + id));
        REQUIRE(r.run.succeeded());
        return std::stoi(r.response.body);
    }
};

ErrorCategory last_category(const CallResult& r) {
    REQUIRE(r.run.last_error.has_value());
    return r.run.last_error->description().effective_category();
}

}  // namespace

TEST_CASE("async curl: a GET succeeds with the response", "[async_curl]") {
    Fixture f;
    const CallResult r = f.send(f.request("GET", "/ok/a"));
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 1);
    CHECK(r.response.status == 200);
    CHECK(r.response.body == "ok");
    CHECK(f.time.delays().empty());
}

TEST_CASE("async curl: a 503 with Retry-After is retried after the hint", "[async_curl]") {
    Fixture f;
    const CallResult r = f.send(f.request("GET", "/status/b?code=503&fail=2&retry_after=2"));
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 3);
    CHECK(r.response.status == 200);
    CHECK(last_category(r) == ErrorCategory::ServiceUnavailable);
    CHECK(r.run.last_error->description().http_status == 503);
    CHECK(f.time.delays() == std::vector<Duration>{2s, 2s});
}

TEST_CASE("async curl: a refused connection is connection_failure and retried", "[async_curl]") {
    Fixture f;
    HttpRequest request;
    request.method = "POST";
    request.url = "http://127.0.0.1:1/nothing-listens-here";
    request.body = "x";
    const CallResult r = f.send(request);
    CHECK(r.run.outcome == RetryOutcome::Exhausted);
    CHECK(r.run.attempts == 4);
    CHECK(last_category(r) == ErrorCategory::ConnectionFailure);
    CHECK(r.response.status == 0);
}

TEST_CASE("async curl: a POST that timed out after it was sent is outcome unknown",
          "[async_curl]") {
    Fixture f(std::nullopt, {.timeout = 200ms});
    const CallResult r = f.send(f.request("POST", "/stall/c?fail=1&ms=1500", {}, "pay 10"));
    CHECK(r.run.outcome == RetryOutcome::OutcomeUnknown);
    CHECK(r.run.attempts == 1);
    CHECK(last_category(r) == ErrorCategory::CommitOutcomeUnknown);
}

TEST_CASE("async curl: a GET that timed out after it was sent is retried", "[async_curl]") {
    Fixture f(std::nullopt, {.timeout = 200ms});
    const CallResult r = f.send(f.request("GET", "/stall/d?fail=1&ms=1500"));
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 2);
    CHECK(last_category(r) == ErrorCategory::ConnectionLost);
}

TEST_CASE("async curl: a POST with an Idempotency-Key is retried after a reset and applied once",
          "[async_curl]") {
    Fixture f;
    const CallResult r =
        f.send(f.request("POST", "/reset-after/e?fail=2", {{"Idempotency-Key", "k-1"}}, "pay 10"));
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 3);
    CHECK(last_category(r) == ErrorCategory::ConnectionLost);
    CHECK(f.applied("e") == 1);
}

TEST_CASE("async curl: a POST without a key reset after it was applied is outcome unknown",
          "[async_curl]") {
    Fixture f;
    // A kept connection first: libcurl would resend a request on a reused connection that
    // closes before any answer, applying the POST twice.
    REQUIRE(f.send(f.request("GET", "/ok/warm")).run.succeeded());
    const CallResult r = f.send(f.request("POST", "/reset-after/k?fail=1", {}, "pay 10"));
    CHECK(r.run.outcome == RetryOutcome::OutcomeUnknown);
    CHECK(r.run.attempts == 1);
    CHECK(last_category(r) == ErrorCategory::CommitOutcomeUnknown);
    CHECK(f.applied("k") == 1);
}

TEST_CASE("async curl: the executor's attempt_timeout cancels a stalled transfer", "[async_curl]") {
    Fixture f(300ms);
    const auto started = std::chrono::steady_clock::now();
    const CallResult r = f.send(f.request("GET", "/stall/f?fail=1&ms=3000"));
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 2);
    CHECK(last_category(r) == ErrorCategory::StatementTimeout);
    // The first transfer was taken out at 300 ms: the run did not wait for the 3 s stall.
    CHECK(std::chrono::steady_clock::now() - started < 2500ms);
}

TEST_CASE("async curl: a stop request cancels the transfer in progress", "[async_curl]") {
    Fixture f;
    std::stop_source stop;
    asio::steady_timer stopper(f.io, 200ms);
    stopper.async_wait([&](std::error_code) { stop.request_stop(); });
    const auto started = std::chrono::steady_clock::now();
    const CallResult r =
        f.send(f.request("GET", "/stall/g?fail=1&ms=3000"), {.stop = stop.get_token()});
    CHECK(r.run.outcome == RetryOutcome::Cancelled);
    CHECK(r.run.attempts == 1);
    // io.run() returned: the transfer left the multi handle (its socket is no longer watched)
    // long before the server would have answered.
    CHECK(std::chrono::steady_clock::now() - started < 2500ms);
    // The client still works afterwards.
    CHECK(f.send(f.request("GET", "/ok/g2")).run.succeeded());
}

TEST_CASE("async curl: many concurrent requests run on one thread", "[async_curl]") {
    Fixture f;
    constexpr int kRequests = 64;
    std::vector<std::optional<CallResult>> results(kRequests);
    std::vector<HttpRequest> requests;
    for (int i = 0; i < kRequests; ++i) {
        requests.push_back(f.request("GET", "/stall/h" + std::to_string(i) + "?fail=1&ms=300"));
    }
    const std::thread::id test_thread = std::this_thread::get_id();
    bool other_thread = false;
    for (int i = 0; i < kRequests; ++i) {
        asio::co_spawn(
            f.io,
            [&, i]() -> asio::awaitable<void> {
                results[static_cast<std::size_t>(i)] = co_await f.client.call(
                    f.executor, "call", requests[static_cast<std::size_t>(i)]);
                other_thread = other_thread || std::this_thread::get_id() != test_thread;
            },
            asio::detached);
    }
    const auto started = std::chrono::steady_clock::now();
    f.io.run();
    const auto elapsed = std::chrono::steady_clock::now() - started;
    int succeeded = 0;
    for (const auto& r : results) {
        succeeded += r && r->run.succeeded() && r->response.status == 200 ? 1 : 0;
    }
    CHECK(succeeded == kRequests);
    CHECK_FALSE(other_thread);
    // One after another the stalls alone would take 64 x 300 ms = 19.2 s.
    CHECK(elapsed < 10s);
}

TEST_CASE("async curl: a body over max_body_size fails the attempt as data_error", "[async_curl]") {
    Fixture f(std::nullopt, {.limits = {.max_body_size = 1000}});
    CHECK(f.send(f.request("GET", "/big/a?bytes=1000&chunked=1")).run.succeeded());
    const CallResult r = f.send(f.request("GET", "/big/b?bytes=1001&chunked=1"));
    CHECK(r.run.outcome == RetryOutcome::NonRetryable);
    CHECK(last_category(r) == ErrorCategory::DataError);
    CHECK(r.run.last_error->description().message ==
          "response body larger than max_body_size (1000 bytes); HTTP status 200");
    CHECK(r.response.body.empty());
}

TEST_CASE(
    "async curl: without deadline or attempt_timeout a silent server is cut off by "
    "default_timeout",
    "[async_curl]") {
    Fixture f(std::nullopt, {.limits = {.default_timeout = 200ms}});
    const CallResult r = f.send(f.request("GET", "/silent/a"));
    CHECK(r.run.outcome == RetryOutcome::Exhausted);
    CHECK(r.run.attempts == 4);
    CHECK(last_category(r) == ErrorCategory::ConnectionLost);
}

TEST_CASE("async curl: a call with its options written in the call keeps no reference to them",
          "[async_curl][braced]") {
    Fixture f;
    std::stop_source stop;
    std::optional<CallResult> result;
    asio::co_spawn(
        f.io,
        [&]() -> asio::awaitable<void> {
            const std::string id = "c-7";
            HttpRequest request = f.request("GET", "/status/braced?code=503&fail=1");
#if REBOUND_BRACED_CO_AWAIT_ARGUMENTS
            result = co_await f.client.call(f.executor, "c", request,
                                            {.command_id = id, .stop = stop.get_token()});
#else
            rebound::RunOptions options{.command_id = id, .stop = stop.get_token()};
            result = co_await f.client.call(f.executor, "c", request, std::move(options));
#endif
        },
        asio::detached);
    f.io.run();
    REQUIRE(result.has_value());
    CHECK(result->run.succeeded());
    CHECK(result->run.attempts == 2);  // the options' token was watched through a wait
    // The token's shared state still belongs to the source: one reference too few would have
    // freed it with the call's copy.
    stop.request_stop();
    CHECK(stop.stop_requested());
}
