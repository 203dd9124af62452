// Hedged calls of rebound::curl::AsyncHttpClient (docs/hedging.md): under a policy with `hedge`
// each hedge is one more transfer on the client's multi handle, and the losers' transfers are
// taken out of it when the winner is known. Against the real loopback server of the client's
// tests (tests/support/flaky_http_server.py), whose /slow/ID requests watch their connection and
// count, in /closed/ID, those the client closed before their answer was due: the proof that a
// loser's transfer left the multi handle (which closes its connection) and was not awaited. The
// executor runs on the real clock: the hedge is due 50 ms after the first transfer starts.
#include <catch2/catch.hpp>

#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "braced_co_await.hpp"
#include "hedging_policy.hpp"
#include "loopback_http_server.hpp"
#include "rebound/asio/retry_executor.hpp"
#include "rebound/curl/async_http_client.hpp"
#include "rebound/retry_metrics.hpp"

namespace {

using namespace std::chrono_literals;
using rebound::ErrorCategory;
using rebound::RetryOutcome;
using rebound::curl::AsyncHttpClient;
using rebound::curl::CallResult;
using rebound::curl::HedgedCallResult;
using rebound::curl::HttpRequest;

// How long a slow answer of the server is due after its request: far longer than any call that
// a hedge wins takes.
constexpr int kSlowMs = 5000;

// One io_context run by the test's thread, the server, an asynchronous executor on the real
// clock whose every handler hedges after 50 ms (two attempts, transient failures not fatal),
// `idempotent.call` declared idempotent and every other handler not, and a client.
struct Fixture {
    explicit Fixture(std::vector<rebound::RetryListener*> listeners = {})
        : executor({.listeners = std::move(listeners),
                    .resolver =
                        [this](std::string_view h) {
                            return rebound::test::resolution_of(policy, h == "idempotent.call");
                        }}),
          client(io.get_executor()) {}

    asio::io_context io;
    rebound::testing::LoopbackHttpServer server{FLAKY_HTTP_SERVER};
    std::shared_ptr<const rebound::Policy> policy =
        rebound::test::compile_hedging(rebound::test::hedging_spec(50ms, 2));
    rebound::asio::RetryExecutor executor;
    AsyncHttpClient client;

    HttpRequest get(const std::string& path) const {
        HttpRequest r;
        r.method = "GET";
        r.url = server.url(path);
        return r;
    }

    // Runs `call` (a coroutine returning R) to completion on this thread: io.run() returns once
    // no transfer is left on the multi handle, a loser's included.
    template <typename R, typename Call>
    R complete(Call call) {
        std::optional<R> result;
        asio::co_spawn(
            io, [&]() -> asio::awaitable<void> { result = co_await call(); }, asio::detached);
        io.run();
        io.restart();
        REQUIRE(result.has_value());
        return std::move(*result);
    }

    HedgedCallResult send(const HttpRequest& outgoing, const std::string& handler) {
        return complete<HedgedCallResult>(
            [&] { return client.call_hedged(executor, handler, outgoing); });
    }

    CallResult plain_send(const HttpRequest& outgoing) {
        return complete<CallResult>(
            [&] { return client.call(executor, "idempotent.call", outgoing); });
    }

    // The number of ID's slow requests whose client closed the connection before the answer,
    // once the server has seen `expected` (it notices a close as soon as it happens), or what it
    // saw after 2 s: still long before their answers were due.
    int closed(const std::string& id, int expected) {
        const auto until = std::chrono::steady_clock::now() + 2s;
        for (;;) {
            const CallResult r = plain_send(get("/closed/" + id));
            REQUIRE(r.response.status == 200);
            const int seen = std::stoi(r.response.body);
            if (seen >= expected || std::chrono::steady_clock::now() > until) {
                return seen;
            }
            std::this_thread::sleep_for(10ms);
        }
    }
};

std::string slow(const std::string& id) {
    return "/slow/" + id + "?fail=1&ms=" + std::to_string(kSlowMs);
}

}  // namespace

TEST_CASE("async curl hedge: a hedge wins over a slow first transfer, which is taken out at once",
          "[async_curl][hedge]") {
    Fixture f;
    const auto started = std::chrono::steady_clock::now();
    const HedgedCallResult r = f.send(f.get(slow("a")), "idempotent.call");
    const auto elapsed = std::chrono::steady_clock::now() - started;
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 2);
    CHECK(r.hedge.hedges == 1);
    CHECK(r.hedge.winner == 2);
    CHECK(r.hedge.abandoned == 1);
    CHECK(r.hedge.delay == rebound::Duration(50ms));
    CHECK(r.response.status == 200);
    CHECK(r.response.body == "ok");
    // The first transfer left the multi handle when the hedge won: the server saw its connection
    // closed while its answer was still seconds away, and io.run() did not wait for it.
    CHECK(f.closed("a", 1) == 1);
    CHECK(elapsed < std::chrono::milliseconds(kSlowMs / 2));
}

TEST_CASE("async curl hedge: a handler not declared idempotent never has two transfers at once",
          "[async_curl][hedge]") {
    Fixture f;
    const HedgedCallResult r = f.send(f.get("/slow/b?fail=1&ms=300"), "call");
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 1);
    CHECK(r.hedge.hedges == 0);
    CHECK(r.hedge.one_at_a_time);
    CHECK(r.response.status == 200);
    CHECK(f.closed("b", 0) == 0);
}

TEST_CASE("async curl hedge: call gives the winner's response, or the last one without a winner",
          "[async_curl][hedge]") {
    Fixture f;
    // The first attempt's 503 is not fatal and starts the hedge at once, which gets the 200.
    const CallResult won = f.plain_send(f.get("/status/c?code=503&fail=1"));
    CHECK(won.run.succeeded());
    CHECK(won.run.attempts == 2);
    CHECK(won.response.status == 200);
    CHECK(won.response.body == "ok");
    const CallResult lost = f.plain_send(f.get("/status/d?code=503&fail=2"));
    CHECK(lost.run.outcome == RetryOutcome::Exhausted);
    CHECK(lost.run.attempts == 2);
    CHECK(lost.response.status == 503);
    REQUIRE(lost.run.last_error.has_value());
    CHECK(lost.run.last_error->description().effective_category() ==
          ErrorCategory::ServiceUnavailable);
}

TEST_CASE("async curl hedge: RetryMetrics counts the hedge and its win", "[async_curl][hedge]") {
    rebound::RetryMetrics metrics;
    Fixture f({&metrics});
    REQUIRE(f.send(f.get(slow("e")), "idempotent.call").hedge.winner == 2);
    const std::string text = metrics.render();
    CHECK(text.find("rebound_hedges_total{handler=\"idempotent.call\"} 1\n") != std::string::npos);
    CHECK(text.find("rebound_hedge_wins_total{handler=\"idempotent.call\"} 1\n") !=
          std::string::npos);
    CHECK(text.find("rebound_hedge_delay_seconds{handler=\"idempotent.call\"} 0.05\n") !=
          std::string::npos);
    CHECK(metrics.attempts("idempotent.call") == 2);
}

TEST_CASE(
    "async curl hedge: a hedged call with its options written in the call keeps no "
    "reference to them",
    "[async_curl][hedge][braced]") {
    Fixture f;
    std::stop_source stop;
    std::optional<HedgedCallResult> result;
    asio::co_spawn(
        f.io,
        [&]() -> asio::awaitable<void> {
            const std::string id = "c-8";
            HttpRequest request = f.get(slow("f"));
#if REBOUND_BRACED_CO_AWAIT_ARGUMENTS
            result = co_await f.client.call_hedged(f.executor, "idempotent.call", request,
                                                   {.command_id = id, .stop = stop.get_token()});
#else
            rebound::RunOptions options{.command_id = id, .stop = stop.get_token()};
            result = co_await f.client.call_hedged(f.executor, "idempotent.call", request,
                                                   std::move(options));
#endif
        },
        asio::detached);
    f.io.run();
    f.io.restart();
    REQUIRE(result.has_value());
    CHECK(result->run.succeeded());
    CHECK(result->hedge.winner == 2);
    CHECK(result->hedge.abandoned == 1);
    // The loser outlived the call's frame (its options and request) and touched neither.
    stop.request_stop();
    CHECK(stop.stop_requested());
    CHECK(f.closed("f", 1) == 1);
}
