// The gRPC adapter (docs/protocols.md): a grpc::Status with its trailing metadata classified
// through the pure classification, and unary calls through grpc::GenericStub under a policy
// against a real loopback gRPC server (flaky_grpc_server.hpp) that fails UNAVAILABLE with and
// without `grpc-retry-pushback-ms` trailers, stalls past the deadline, then succeeds.
#include <catch2/catch.hpp>

#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>

#include <chrono>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "flaky_grpc_server.hpp"
#include "rebound/grpc/status_classification.hpp"
#include "rebound/grpc/unary_client.hpp"
#include "rebound/policy.hpp"
#include "rebound/testing.hpp"

namespace {

using namespace std::chrono_literals;
using rebound::Duration;
using rebound::ErrorCategory;
using rebound::GrpcStatus;
using rebound::RetryOutcome;
using rebound::grpc::TrailingMetadata;
using rebound::testing::FlakyGrpcServer;
using rebound::testing::ScriptedReply;
using Code = ::grpc::StatusCode;

const std::string kMethod = "/rebound.test.Ledger/Pay";

// Retries transient failures three times after 10 ms (no jitter), each attempt limited to
// `attempt_timeout`, hints capped at 5 s (a longer hint stops the run).
std::shared_ptr<const rebound::Policy> calls_policy(Duration attempt_timeout = 300ms) {
    rebound::ServerDelaySettings hints;
    hints.cap = 5s;
    return rebound::PolicyBuilder("calls")
        .max_attempts(4)
        .backoff(rebound::Backoff::fixed(10ms))
        .jitter(rebound::Jitter::none())
        .attempt_timeout(attempt_timeout)
        .retry_on(rebound::Matcher::transient())
        .retry_on(rebound::Matcher::grpc_status(GrpcStatus::DeadlineExceeded))
        .server_delay(hints)
        .build();
}

::grpc::ByteBuffer bytes(const std::string& text) {
    ::grpc::Slice slice(text);
    return ::grpc::ByteBuffer(&slice, 1);
}

std::string text(const ::grpc::ByteBuffer& buffer) {
    std::vector<::grpc::Slice> slices;
    REQUIRE(buffer.Dump(&slices).ok());
    std::string result;
    for (const ::grpc::Slice& slice : slices) {
        result.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    }
    return result;
}

// A server with `script`, a recording sleeper (waits are recorded, not slept) and a client on a
// channel to the server.
struct Fixture {
    explicit Fixture(std::vector<ScriptedReply> script, Duration attempt_timeout = 300ms)
        : server(std::move(script)), policy(calls_policy(attempt_timeout)) {}

    FlakyGrpcServer server;
    std::shared_ptr<const rebound::Policy> policy;
    rebound::testing::RecordingSleeper sleeper;
    rebound::RetryExecutor executor{{.sleeper = &sleeper, .resolver = [this](std::string_view) {
                                         rebound::HandlerResolution r;
                                         r.policy = policy;
                                         r.via = rebound::ResolvedVia::Code;
                                         return r;
                                     }}};
    rebound::grpc::UnaryClient client{
        executor, ::grpc::CreateChannel(server.address(), ::grpc::InsecureChannelCredentials())};

    rebound::grpc::CallResult call(const rebound::RunOptions& options = {}) {
        return client.call("ledger.pay", kMethod, bytes("pay 10"), options);
    }
};

ScriptedReply unavailable(std::vector<std::string> pushback = {}) {
    return ScriptedReply{Code::UNAVAILABLE, std::move(pushback), false};
}

const rebound::ErrorDescription& last_error(const rebound::grpc::CallResult& r) {
    REQUIRE(r.run.last_error.has_value());
    return r.run.last_error->description();
}

}  // namespace

TEST_CASE("grpc status: codes map to the canonical statuses, unknown codes to UNKNOWN", "[grpc]") {
    CHECK(rebound::grpc::status_of(Code::OK) == GrpcStatus::Ok);
    CHECK(rebound::grpc::status_of(Code::UNAVAILABLE) == GrpcStatus::Unavailable);
    CHECK(rebound::grpc::status_of(Code::UNAUTHENTICATED) == GrpcStatus::Unauthenticated);
    CHECK(rebound::grpc::status_of(static_cast<Code>(17)) == GrpcStatus::Unknown);
    CHECK(rebound::grpc::status_of(Code::DO_NOT_USE) == GrpcStatus::Unknown);
}

TEST_CASE("grpc status: the pushback trailer becomes a hint or a refusal", "[grpc]") {
    const ::grpc::Status unavailable(Code::UNAVAILABLE, "down");
    const std::string key(rebound::grpc::kPushbackTrailer);

    const auto none = rebound::grpc::classify(unavailable, TrailingMetadata{});
    CHECK(none.category == ErrorCategory::ServiceUnavailable);
    CHECK_FALSE(none.pushback.delay.has_value());
    CHECK_FALSE(none.pushback.refused);

    const std::string other = "x-other";
    const std::string value = "250";
    const auto hinted =
        rebound::grpc::classify(unavailable, TrailingMetadata{{other, value}, {key, value}});
    CHECK(hinted.pushback.delay == Duration(250ms));
    CHECK(hinted.error().server_delay == Duration(250ms));
    CHECK(hinted.error().grpc_status == GrpcStatus::Unavailable);

    const std::string negative = "-1";
    CHECK(rebound::grpc::classify(unavailable, TrailingMetadata{{key, negative}})
              .error()
              .server_refused);

    // Of several, the last counts (as gRPC keeps only the last it received).
    const std::string other_value = "300";
    CHECK(rebound::grpc::classify(unavailable, TrailingMetadata{{key, value}, {key, value}})
              .pushback.delay == Duration(250ms));
    CHECK(rebound::grpc::classify(unavailable, TrailingMetadata{{key, value}, {key, other_value}})
              .pushback.delay == Duration(300ms));
    CHECK(
        rebound::grpc::classify(unavailable, TrailingMetadata{{key, other_value}, {key, negative}})
            .pushback.refused);

    // An OK call did not fail, whatever its trailers say.
    const auto ok = rebound::grpc::classify(::grpc::Status::OK, TrailingMetadata{{key, negative}});
    CHECK_FALSE(ok.failed());
    CHECK_FALSE(ok.pushback.refused);
}

TEST_CASE("grpc: UNAVAILABLE without pushback is retried after the backoff", "[grpc]") {
    Fixture f({unavailable(), unavailable()});
    const auto r = f.call();
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 3);
    CHECK(r.status.ok());
    CHECK(text(r.response) == "pay 10");
    CHECK(f.server.calls() == 3);
    CHECK(f.server.methods() == std::vector<std::string>(3, kMethod));
    CHECK(f.sleeper.delays() == std::vector<Duration>{10ms, 10ms});
    CHECK(last_error(r).category == ErrorCategory::ServiceUnavailable);
    CHECK(last_error(r).grpc_status == GrpcStatus::Unavailable);
}

TEST_CASE("grpc: UNAVAILABLE with pushback waits the pushback, not the shorter backoff", "[grpc]") {
    Fixture f({unavailable({"250"}), unavailable({"0"}), unavailable({"1200"})});
    const auto r = f.call();
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 4);
    // max(backoff, hint): 0 ms of pushback leaves the backoff's 10 ms.
    CHECK(f.sleeper.delays() == std::vector<Duration>{250ms, 10ms, 1200ms});
    CHECK(last_error(r).server_delay == Duration(1200ms));
}

TEST_CASE("grpc: a negative pushback stops the run at once", "[grpc]") {
    Fixture f({unavailable({"-1"})});
    const auto r = f.call();
    CHECK(r.run.outcome == RetryOutcome::ServerRefused);
    CHECK(r.run.attempts == 1);
    CHECK(f.server.calls() == 1);
    CHECK(r.status.error_code() == Code::UNAVAILABLE);
    CHECK(last_error(r).server_refused);
    CHECK(f.sleeper.delays().empty());
}

TEST_CASE("grpc: an unreadable pushback refuses retries as a negative one does", "[grpc]") {
    Fixture f({unavailable({"soon"})});
    const auto r = f.call();
    CHECK(r.run.outcome == RetryOutcome::ServerRefused);
    CHECK(f.server.calls() == 1);
}

TEST_CASE("grpc: a pushback beyond the cap stops the run", "[grpc]") {
    Fixture f({unavailable({"60000"})});
    const auto r = f.call();
    CHECK(r.run.outcome == RetryOutcome::ServerDelayTooLong);
    CHECK(f.server.calls() == 1);
    CHECK(f.sleeper.delays().empty());
}

TEST_CASE("grpc: a pushback never makes a non-retryable status retried", "[grpc]") {
    Fixture f({ScriptedReply{Code::INVALID_ARGUMENT, {"5"}, false}});
    const auto r = f.call();
    CHECK(r.run.outcome == RetryOutcome::NonRetryable);
    CHECK(r.run.attempts == 1);
    CHECK(last_error(r).category == ErrorCategory::DataError);
    CHECK(r.status.error_message() == "scripted failure");
    CHECK(last_error(r).message == "scripted failure");
}

TEST_CASE("grpc: UNAVAILABLE on every attempt exhausts the policy", "[grpc]") {
    Fixture f({unavailable(), unavailable(), unavailable(), unavailable(), unavailable()});
    const auto r = f.call();
    CHECK(r.run.outcome == RetryOutcome::Exhausted);
    CHECK(r.run.attempts == 4);
    CHECK(f.server.calls() == 4);
    CHECK(r.status.error_code() == Code::UNAVAILABLE);
    CHECK_FALSE(r.response.Valid());  // no response was kept
}

TEST_CASE("grpc: a call that stalls past the attempt timeout ends DEADLINE_EXCEEDED", "[grpc]") {
    Fixture f({ScriptedReply{Code::OK, {}, true}});
    const auto r = f.call();
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 2);
    CHECK(last_error(r).category == ErrorCategory::StatementTimeout);
    CHECK(last_error(r).grpc_status == GrpcStatus::DeadlineExceeded);
}

TEST_CASE("grpc: nothing listening is UNAVAILABLE and retried", "[grpc]") {
    rebound::testing::RecordingSleeper sleeper;
    const auto policy = calls_policy();
    rebound::RetryExecutor executor{{.sleeper = &sleeper, .resolver = [&](std::string_view) {
                                         rebound::HandlerResolution r;
                                         r.policy = policy;
                                         return r;
                                     }}};
    // A port that was listening a moment ago and no longer is.
    std::string address;
    {
        const FlakyGrpcServer gone;
        address = gone.address();
    }
    const rebound::grpc::UnaryClient client(
        executor, ::grpc::CreateChannel(address, ::grpc::InsecureChannelCredentials()));
    const auto r = client.call("ledger.pay", kMethod, bytes("x"));
    CHECK(r.run.outcome == RetryOutcome::Exhausted);
    CHECK(r.run.attempts == 4);
    CHECK(r.status.error_code() == Code::UNAVAILABLE);
}

TEST_CASE("grpc: the run's stop token cancels a call in progress", "[grpc]") {
    Fixture f({ScriptedReply{Code::OK, {}, true}}, 30s);
    std::stop_source stop;
    std::jthread stopper([&] {
        while (f.server.calls() == 0) {
            std::this_thread::sleep_for(1ms);
        }
        stop.request_stop();
    });
    const auto started = std::chrono::steady_clock::now();
    const auto r = f.call({.stop = stop.get_token()});
    CHECK(r.status.error_code() == Code::CANCELLED);
    CHECK(r.run.attempts == 1);
    CHECK_FALSE(r.run.succeeded());
    // Ended by the stop, long before the 30 s deadline.
    CHECK(std::chrono::steady_clock::now() - started < 10s);
}

TEST_CASE("grpc: the real sleeper waits at least the pushback between attempts", "[grpc]") {
    FlakyGrpcServer server({unavailable({"150"})});
    const auto policy = calls_policy();
    rebound::RetryExecutor executor{{.resolver = [&](std::string_view) {
        rebound::HandlerResolution r;
        r.policy = policy;
        return r;
    }}};
    const rebound::grpc::UnaryClient client(
        executor, ::grpc::CreateChannel(server.address(), ::grpc::InsecureChannelCredentials()));
    const auto r = client.call("ledger.pay", kMethod, bytes("x"));
    CHECK(r.run.succeeded());
    const auto arrivals = server.arrivals();
    REQUIRE(arrivals.size() == 2);
    CHECK(arrivals[1] - arrivals[0] >= 150ms);
}

TEST_CASE("grpc: prepare sets each attempt's context", "[grpc]") {
    Fixture f({unavailable()});
    int prepared = 0;
    const auto r =
        f.client.call("ledger.pay", kMethod, bytes("x"), {}, [&](::grpc::ClientContext& context) {
            ++prepared;
            context.AddMetadata("x-request-tag", "attempt " + std::to_string(prepared));
        });
    CHECK(r.run.succeeded());
    CHECK(f.server.tags() == std::vector<std::string>{"attempt 1", "attempt 2"});
}

TEST_CASE("grpc: over a real channel the adapter reads pushback as the CLI's shared reader does",
          "[grpc]") {
    // Each set of trailer values the server sends; what a client then sees is what gRPC makes of
    // them (it parses this trailer itself, keeps the last, and re-encodes it), and the adapter
    // must say what rebound::grpc::PushbackTrailers, which `rebound classify --grpc` uses, says
    // of the values as sent.
    struct Case {
        std::vector<std::string> sent;
        std::optional<Duration> delay;  // the expected hint; refused when absent
    };
    const std::vector<Case> cases{
        {{"250"}, Duration(250ms)},
        {{" 250 "}, Duration(250ms)},
        {{"+5"}, Duration(5ms)},
        {{"-0"}, Duration(0ms)},
        {{"-1"}, std::nullopt},
        {{"1.5"}, std::nullopt},
        {{""}, std::nullopt},
        {{"2147483648"}, Duration(2147483647ms)},
        {{"9223372036854775807"}, Duration(2147483647ms)},
        {{"9223372036854775808"}, std::nullopt},
        {{"99999999999999999999"}, std::nullopt},  // 20 digits
        {{"100", "200"}, Duration(200ms)},
        {{"200", "100"}, Duration(100ms)},
        {{"-1", "100"}, Duration(100ms)},
        {{"100", "-1"}, std::nullopt},
    };
    for (const Case& c : cases) {
        std::string sent;
        rebound::grpc::PushbackTrailers shared;
        for (const std::string& value : c.sent) {
            sent += "'" + value + "' ";
            shared.add(rebound::grpc::kPushbackTrailer, value);
        }
        INFO("trailers sent: " << sent);
        const rebound::grpc::Pushback expected = rebound::grpc::parse_pushback(*shared.value());
        CHECK(expected.delay == c.delay);
        CHECK(expected.refused == !c.delay.has_value());

        Fixture f({unavailable(c.sent)});
        rebound::ServerDelaySettings hints;
        hints.over_cap = rebound::OverCapAction::Ignore;  // every hint reaches the last error
        f.policy = rebound::PolicyBuilder("one")
                       .max_attempts(1)
                       .retry_on(rebound::Matcher::transient())
                       .server_delay(hints)
                       .build();
        const auto r = f.call();
        CHECK(last_error(r).server_delay == expected.delay);
        CHECK(last_error(r).server_refused == expected.refused);
    }
}

TEST_CASE(
    "grpc: without deadline or attempt_timeout a silent server is cut off by "
    "default_timeout",
    "[grpc]") {
    FlakyGrpcServer server({ScriptedReply{Code::OK, {}, true}, ScriptedReply{Code::OK, {}, true}});
    rebound::testing::RecordingSleeper sleeper;
    // Neither deadline nor attempt_timeout, as the built-in policy; DEADLINE_EXCEEDED retried.
    const auto policy = rebound::PolicyBuilder("unlimited")
                            .max_attempts(2)
                            .backoff(rebound::Backoff::fixed(10ms))
                            .jitter(rebound::Jitter::none())
                            .retry_on(rebound::Matcher::grpc_status(GrpcStatus::DeadlineExceeded))
                            .build();
    rebound::RetryExecutor executor{{.sleeper = &sleeper, .resolver = [&](std::string_view) {
                                         rebound::HandlerResolution r;
                                         r.policy = policy;
                                         return r;
                                     }}};
    const rebound::grpc::UnaryClient client(
        executor, ::grpc::CreateChannel(server.address(), ::grpc::InsecureChannelCredentials()),
        {.default_timeout = 200ms});
    // The server never answers either call: each ends at the default deadline instead of
    // waiting for ever.
    const auto r = client.call("ledger.pay", kMethod, bytes("x"));
    CHECK(r.run.outcome == RetryOutcome::Exhausted);
    CHECK(r.run.attempts == 2);
    CHECK(r.status.error_code() == Code::DEADLINE_EXCEEDED);
    CHECK(last_error(r).category == ErrorCategory::StatementTimeout);
    CHECK(server.calls() == 2);
}

TEST_CASE("grpc: a default_timeout of zero is refused when the client is made", "[grpc]") {
    rebound::testing::RecordingSleeper sleeper;
    const rebound::RetryExecutor executor({.sleeper = &sleeper});
    const auto channel = ::grpc::CreateChannel("127.0.0.1:1", ::grpc::InsecureChannelCredentials());
    CHECK_THROWS_WITH(rebound::grpc::UnaryClient(executor, channel, {.default_timeout = 0ms}),
                      "rebound::grpc: default_timeout must be positive (nullopt for none)");
    CHECK(rebound::grpc::UnaryClientOptions{}.default_timeout == Duration(60s));
}
