// The gRPC adapter on Asio (docs/protocols.md, docs/hedging.md): AsyncUnaryClient retries and
// hedges unary calls against a real loopback gRPC server in the test process
// (flaky_grpc_server.hpp). Hedged attempts are told apart by the `rebound-previous-rpc-attempts`
// header the client sends, and the server holds replies (a stall until the client cancels, or a
// reply that waits for a later attempt) instead of the test sleeping, so each case depends on
// the order of events, not on how fast this machine is. Label grpc: runs under AddressSanitizer
// in CI, which checks that an abandoned attempt, whose call ends after the run completed and the
// caller's result is gone, touches nothing freed.

// A standard header before Asio's (rebound/asio/retry_executor.hpp says why).
#include <cstdlib>

#include <asio/co_spawn.hpp>
#include <asio/io_context.hpp>
#include <asio/use_awaitable.hpp>
#include <catch2/catch.hpp>

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "flaky_grpc_server.hpp"
#include "hedging_policy.hpp"
#include "rebound/grpc/async_unary_client.hpp"
#include "rebound/grpc/unary_client.hpp"
#include "rebound/hedging_unsupported.hpp"
#include "rebound/retry_metrics.hpp"

namespace {

using namespace std::chrono_literals;
using rebound::Duration;
using rebound::ErrorCategory;
using rebound::RetryOutcome;
using rebound::grpc::CallResult;
using rebound::testing::FlakyGrpcServer;
using rebound::testing::ScriptedReply;
using Code = ::grpc::StatusCode;

const std::string kMethod = "/rebound.test.Catalog/Get";
const std::string kHandler = "catalog.get";

// `catalog-read`: hedges after `delay` up to `max_attempts` attempts, retries transient failures
// and statement_timeout, server delay hints capped at 5 s.
rebound::PolicySpec hedging(Duration delay, int max_attempts) {
    rebound::PolicySpec spec = rebound::test::hedging_spec(delay, max_attempts);
    spec.retry_on.push_back(rebound::Matcher::of_category(ErrorCategory::StatementTimeout));
    spec.server_delay.cap = 5s;
    spec.deadline = 30s;  // bounds a test that goes wrong
    return spec;
}

::grpc::ByteBuffer bytes(const std::string& text) {
    ::grpc::Slice slice(text);
    return ::grpc::ByteBuffer(&slice, 1);
}

std::string text(const ::grpc::ByteBuffer& buffer) {
    std::vector<::grpc::Slice> slices;
    if (!buffer.Valid() || !buffer.Dump(&slices).ok()) {
        return {};
    }
    std::string result;
    for (const ::grpc::Slice& slice : slices) {
        result.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    }
    return result;
}

// A server with `script`, an asynchronous executor whose resolver gives kHandler `policy`
// (idempotent unless told), and a client on a channel to the server. run() awaits `body` on an
// io_context until everything on it is done: the run, and the abandoned attempts' calls.
struct Fixture {
    explicit Fixture(std::vector<ScriptedReply> script, const rebound::PolicySpec& spec,
                     bool declared_idempotent = true)
        : server(std::move(script)),
          policy(rebound::test::compile_hedging(spec)),
          idempotent(declared_idempotent) {}

    FlakyGrpcServer server;
    std::shared_ptr<const rebound::Policy> policy;
    bool idempotent;
    rebound::RetryMetrics metrics;
    rebound::asio::RetryExecutor executor{
        {.listeners = {&metrics}, .resolver = [this](std::string_view) {
             return rebound::test::resolution_of(policy, idempotent);
         }}};
    rebound::grpc::AsyncUnaryClient client{
        ::grpc::CreateChannel(server.address(), ::grpc::InsecureChannelCredentials())};

    template <typename Body>
    void run(Body body) {
        asio::io_context io;
        std::exception_ptr failed;
        asio::co_spawn(io, std::move(body), [&](std::exception_ptr error) { failed = error; });
        io.run();
        if (failed) {
            std::rethrow_exception(failed);
        }
    }

    CallResult call(const std::string& request = "get 7") {
        CallResult result;
        run([&]() -> asio::awaitable<void> {
            result = co_await client.call(executor, kHandler, kMethod, bytes(request));
        });
        return result;
    }
};

ScriptedReply stall(int attempt) {
    return ScriptedReply{Code::OK, {}, true, attempt};
}

ScriptedReply reply(int attempt, Code code, std::vector<std::string> pushback = {}, int after = 0) {
    return ScriptedReply{code, std::move(pushback), false, attempt, after};
}

bool contains(const std::string& text, const std::string& line) {
    return text.find(line) != std::string::npos;
}

}  // namespace

TEST_CASE("grpc async: a hedge wins over a slow first call, which the server sees cancelled",
          "[grpc][hedge]") {
    // The first call gets no reply until the client cancels it; the hedge, due after 20 ms,
    // gets the echo at once.
    Fixture f({stall(1)}, hedging(20ms, 2));
    const CallResult r = f.call("get 7");
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 2);
    CHECK(r.status.ok());
    CHECK(text(r.response) == "get 7");
    REQUIRE(r.hedge.has_value());
    CHECK(r.hedge->winner == 2);
    CHECK(r.hedge->hedges == 1);
    CHECK(r.hedge->abandoned == 1);
    CHECK(r.hedge->delay == Duration(20ms));
    CHECK(f.server.attempts() == std::vector<int>{1, 2});
    // The loser's context was cancelled: the server's reactor hears OnCancel.
    CHECK(f.server.wait_cancelled(1));
    CHECK(f.server.cancelled() == std::vector<int>{1});

    const std::string metrics = f.metrics.render();
    CHECK(contains(metrics, "rebound_hedges_total{handler=\"catalog.get\"} 1\n"));
    CHECK(contains(metrics, "rebound_hedge_wins_total{handler=\"catalog.get\"} 1\n"));
    CHECK(contains(metrics, "rebound_hedge_delay_seconds{handler=\"catalog.get\"} 0.02\n"));
}

TEST_CASE("grpc async: a fatal status cancels every call in flight", "[grpc][hedge]") {
    // Two calls stall; the third fails INVALID_ARGUMENT, which no policy retries.
    Fixture f({stall(1), stall(2), reply(3, Code::INVALID_ARGUMENT)}, hedging(10ms, 3));
    const CallResult r = f.call();
    CHECK(r.run.outcome == RetryOutcome::NonRetryable);
    CHECK(r.run.attempts == 3);
    CHECK(r.status.error_code() == Code::INVALID_ARGUMENT);
    CHECK_FALSE(r.response.Valid());
    REQUIRE(r.run.last_error.has_value());
    CHECK(r.run.last_error->description().category == ErrorCategory::DataError);
    REQUIRE(r.hedge.has_value());
    CHECK(r.hedge->winner == 0);
    CHECK(r.hedge->hedges == 2);
    CHECK(r.hedge->abandoned == 2);
    CHECK(f.server.wait_cancelled(1));
    CHECK(f.server.wait_cancelled(2));
}

TEST_CASE("grpc async: a non-fatal failure starts the next hedge at once", "[grpc][hedge]") {
    // The hedge is due after an hour: only the first call's UNAVAILABLE can start it.
    Fixture f({reply(1, Code::UNAVAILABLE)}, hedging(1h, 2));
    const CallResult r = f.call();
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 2);
    REQUIRE(r.hedge.has_value());
    CHECK(r.hedge->winner == 2);
    CHECK(r.hedge->abandoned == 0);
    CHECK(f.server.attempts() == std::vector<int>{1, 2});
    CHECK(f.server.cancelled().empty());
}

TEST_CASE("grpc async: a pushback trailer holds the next hedge for its delay", "[grpc][hedge]") {
    // UNAVAILABLE with `grpc-retry-pushback-ms: 200`: the hedge the failure makes due (the
    // schedule's is an hour away) waits until 200 ms after it.
    Fixture f({reply(1, Code::UNAVAILABLE, {"200"})}, hedging(1h, 2));
    const CallResult r = f.call();
    CHECK(r.run.succeeded());
    REQUIRE(r.hedge.has_value());
    CHECK(r.hedge->winner == 2);
    REQUIRE(r.run.last_error.has_value());
    CHECK(r.run.last_error->description().server_delay == Duration(200ms));
    const auto arrivals = f.server.arrivals();
    REQUIRE(arrivals.size() == 2);
    // A lower bound only: the hint is honoured, however slow the machine.
    CHECK(arrivals[1] - arrivals[0] >= 200ms);
}

TEST_CASE("grpc async: a negative pushback refuses and cancels the hedge in flight",
          "[grpc][hedge]") {
    // The first call fails with `grpc-retry-pushback-ms: -1` only once the hedge has arrived.
    Fixture f({reply(1, Code::UNAVAILABLE, {"-1"}, 2), stall(2)}, hedging(10ms, 2));
    const CallResult r = f.call();
    CHECK(r.run.outcome == RetryOutcome::ServerRefused);
    CHECK(r.run.attempts == 2);
    CHECK(r.status.error_code() == Code::UNAVAILABLE);
    REQUIRE(r.hedge.has_value());
    CHECK(r.hedge->abandoned == 1);
    CHECK(f.server.wait_cancelled(2));
}

TEST_CASE("grpc async: a handler that is not idempotent never has two calls in flight",
          "[grpc][hedge]") {
    // The hedge would be due after 1 ms; the first call stalls until attempt_timeout cancels
    // it, and only then does the next attempt start.
    rebound::PolicySpec spec = hedging(1ms, 2);
    spec.attempt_timeout = 200ms;
    Fixture f({stall(1)}, spec, false);
    CallResult result;
    int in_flight = 0;
    int most = 0;
    rebound::asio::HedgedResult<std::optional<rebound::Error>> run;
    f.run([&]() -> asio::awaitable<void> {
        run = co_await f.executor.run_hedged(
            f.executor.blocking().resolve(kHandler), kHandler,
            [&](const rebound::AttemptInfo& info)
                -> asio::awaitable<std::optional<rebound::Error>> {
                most = std::max(most, ++in_flight);
                try {
                    std::optional<rebound::Error> error =
                        co_await f.client.attempt(kMethod, bytes("put"), info, result);
                    --in_flight;
                    co_return error;
                } catch (...) {
                    --in_flight;
                    throw;
                }
            },
            asio::use_awaitable);
    });
    CHECK(run.succeeded());
    CHECK(run.hedge.one_at_a_time);
    CHECK(run.hedge.hedges == 1);
    CHECK(run.hedge.winner == 2);
    CHECK(most == 1);
    CHECK(f.server.attempts() == std::vector<int>{1, 2});
    CHECK(text(result.response) == "put");
    REQUIRE(run.last_error.has_value());
    CHECK(run.last_error->description().category == ErrorCategory::StatementTimeout);
}

TEST_CASE("grpc async: a retrying policy retries, each attempt telling the server its number",
          "[grpc]") {
    rebound::PolicySpec spec;
    spec.name = "calls";
    spec.max_attempts = 3;
    spec.backoff = rebound::Backoff::fixed(1ms);
    spec.jitter = rebound::Jitter::none();
    spec.retry_on = {rebound::Matcher::transient()};
    Fixture f({reply(1, Code::UNAVAILABLE), reply(2, Code::UNAVAILABLE)}, spec);
    const CallResult r = f.call("get 8");
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 3);
    CHECK(text(r.response) == "get 8");
    CHECK_FALSE(r.hedge.has_value());
    CHECK(f.server.attempts() == std::vector<int>{1, 2, 3});
}

TEST_CASE("grpc: the blocking client refuses a hedging policy", "[grpc][hedge]") {
    FlakyGrpcServer server;
    const auto policy = rebound::test::compile_hedging(hedging(20ms, 2));
    const rebound::RetryExecutor executor{
        {.resolver = [&](std::string_view) { return rebound::test::resolution_of(policy); }}};
    const rebound::grpc::UnaryClient client(
        executor, ::grpc::CreateChannel(server.address(), ::grpc::InsecureChannelCredentials()));
    CHECK_THROWS_AS(client.call(kHandler, kMethod, bytes("x")), rebound::HedgingUnsupported);
    CHECK(server.calls() == 0);
}

TEST_CASE("grpc async: a default_timeout of zero is refused when the client is made", "[grpc]") {
    const auto channel = ::grpc::CreateChannel("127.0.0.1:1", ::grpc::InsecureChannelCredentials());
    CHECK_THROWS_WITH(rebound::grpc::AsyncUnaryClient(channel, {.default_timeout = 0ms}),
                      "rebound::grpc: default_timeout must be positive (nullopt for none)");
}
