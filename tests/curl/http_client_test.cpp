// The libcurl adapter against a real loopback HTTP server that fails on purpose
// (tests/support/flaky_http_server.py, started and stopped by each test): statuses with
// Retry-After, connection resets before and after the request was read, stalls past the attempt
// timeout, and POSTs deduplicated by Idempotency-Key (docs/protocols.md).
#include <catch2/catch.hpp>

#include <chrono>
#include <ctime>
#include <string>

#include "loopback_http_server.hpp"
#include "rebound/curl/http_client.hpp"
#include "rebound/policy.hpp"
#include "rebound/testing.hpp"

namespace {

using namespace std::chrono_literals;
using rebound::Duration;
using rebound::ErrorCategory;
using rebound::RetryOutcome;
using rebound::curl::HttpClient;
using rebound::curl::HttpRequest;

// A policy that retries transient failures three times after 10 ms, with a 300 ms attempt
// timeout and hints capped at 5 s (waited, not refused).
std::shared_ptr<const rebound::Policy> calls_policy() {
    rebound::ServerDelaySettings hints;
    hints.cap = 5s;
    hints.over_cap = rebound::OverCapAction::Cap;
    return rebound::PolicyBuilder("calls")
        .max_attempts(4)
        .backoff(rebound::Backoff::fixed(10ms))
        .jitter(rebound::Jitter::none())
        .attempt_timeout(300ms)
        .retry_on(rebound::Matcher::transient())
        .server_delay(hints)
        .build();
}

// The server, a recording sleeper (waits are recorded, not slept) and a client whose handler
// `idempotent.call` is declared idempotent.
struct Fixture {
    rebound::testing::LoopbackHttpServer server{FLAKY_HTTP_SERVER};
    rebound::testing::RecordingSleeper sleeper;
    std::shared_ptr<const rebound::Policy> policy = calls_policy();
    rebound::RetryExecutor executor{{.sleeper = &sleeper, .resolver = [this](std::string_view h) {
                                         rebound::HandlerResolution r;
                                         r.policy = policy;
                                         r.via = rebound::ResolvedVia::Code;
                                         r.idempotent = h == "idempotent.call";
                                         return r;
                                     }}};
    HttpClient client{executor};

    rebound::curl::CallResult send(std::string method, const std::string& path,
                                   std::vector<std::pair<std::string, std::string>> headers = {},
                                   std::string body = {}, std::string handler = "call") {
        HttpRequest request;
        request.method = std::move(method);
        request.url = server.url(path);
        request.headers = std::move(headers);
        request.body = std::move(body);
        return client.call(handler, request);
    }

    int applied(const std::string& id) {
        const auto result = send("GET", "/applied/" + id);
        REQUIRE(result.run.succeeded());
        return std::stoi(result.response.body);
    }
};

std::string imf_fixdate(std::chrono::system_clock::time_point t) {
    const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[64];
    std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &utc);
    return text;
}

ErrorCategory last_category(const rebound::curl::CallResult& r) {
    REQUIRE(r.run.last_error.has_value());
    return r.run.last_error->description().effective_category();
}

}  // namespace

TEST_CASE("curl: a 503 with Retry-After in seconds is retried after the hint", "[curl]") {
    Fixture f;
    const auto r = f.send("GET", "/status/a?code=503&fail=1&retry_after=2");
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 2);
    CHECK(r.response.status == 200);
    CHECK(last_category(r) == ErrorCategory::ServiceUnavailable);
    CHECK(r.run.last_error->description().http_status == 503);
    CHECK(f.sleeper.delays() == std::vector<Duration>{2s});
}

TEST_CASE("curl: a Retry-After date beyond the cap waits the cap", "[curl]") {
    Fixture f;
    const std::string date = imf_fixdate(std::chrono::system_clock::now() + 60s);
    std::string query = "/status/b?code=503&fail=1&retry_after=";
    for (const char c : date) {
        query += c == ' ' ? std::string("%20") : c == ',' ? std::string("%2C") : std::string(1, c);
    }
    const auto r = f.send("GET", query);
    CHECK(r.run.succeeded());
    CHECK(f.sleeper.delays() == std::vector<Duration>{5s});
}

TEST_CASE("curl: a 429 is resource_exhausted and retried after the backoff", "[curl]") {
    Fixture f;
    const auto r = f.send("GET", "/status/c?code=429&fail=2");
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 3);
    CHECK(last_category(r) == ErrorCategory::ResourceExhausted);
    CHECK(f.sleeper.delays() == std::vector<Duration>{10ms, 10ms});
}

TEST_CASE("curl: a reset before the request was read is retried for a GET", "[curl]") {
    Fixture f;
    const auto r = f.send("GET", "/reset-before/d?fail=1");
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 2);
    CHECK(last_category(r) == ErrorCategory::ConnectionLost);
}

TEST_CASE("curl: a POST reset after it was applied, without a key, is outcome unknown", "[curl]") {
    Fixture f;
    const auto r = f.send("POST", "/reset-after/e?fail=1", {}, "pay 10");
    CHECK(r.run.outcome == RetryOutcome::OutcomeUnknown);
    CHECK(r.run.attempts == 1);
    CHECK(last_category(r) == ErrorCategory::CommitOutcomeUnknown);
    CHECK(f.applied("e") == 1);
}

TEST_CASE("curl: a POST with an Idempotency-Key is retried after a reset and applied once",
          "[curl]") {
    Fixture f;
    const auto r = f.send("POST", "/reset-after/g?fail=2", {{"Idempotency-Key", "k-1"}}, "pay 10");
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 3);
    CHECK(last_category(r) == ErrorCategory::ConnectionLost);
    CHECK(f.applied("g") == 1);
}

TEST_CASE("curl: a POST of a handler declared idempotent is retried after a reset", "[curl]") {
    Fixture f;
    const auto r = f.send("POST", "/reset-after/h?fail=1", {}, "x", "idempotent.call");
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 2);
}

TEST_CASE("curl: a GET that stalls past the attempt timeout after sending is retried", "[curl]") {
    Fixture f;
    const auto started = std::chrono::steady_clock::now();
    const auto r = f.send("GET", "/stall/i?fail=1&ms=1500");
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 2);
    CHECK(last_category(r) == ErrorCategory::ConnectionLost);
    // The first attempt ended at the 300 ms timeout, not when the server answered.
    CHECK(std::chrono::steady_clock::now() - started < 1400ms);
}

TEST_CASE("curl: a POST that stalls past the attempt timeout is not retried", "[curl]") {
    Fixture f;
    const auto r = f.send("POST", "/stall/j?fail=1&ms=1500", {}, "x");
    CHECK(r.run.outcome == RetryOutcome::OutcomeUnknown);
    CHECK(r.run.attempts == 1);
}

TEST_CASE("curl: a refused connection is connection_failure, retried even for a POST", "[curl]") {
    Fixture f;
    HttpRequest request;
    request.method = "POST";
    request.url = "http://127.0.0.1:1/nothing-listens-here";
    request.body = "x";
    const auto r = f.client.call("call", request);
    CHECK(r.run.outcome == RetryOutcome::Exhausted);
    CHECK(r.run.attempts == 4);
    CHECK(last_category(r) == ErrorCategory::ConnectionFailure);
}

TEST_CASE("curl: a 404 is client_error and not retried", "[curl]") {
    Fixture f;
    const auto r = f.send("GET", "/status/k?code=404&fail=1");
    CHECK(r.run.outcome == RetryOutcome::NonRetryable);
    CHECK(r.response.status == 404);
    CHECK(last_category(r) == ErrorCategory::ClientError);
}

// Connection reuse (docs/protocols.md, "Connections"): the server counts the connections it
// accepted; /connections/ID answers that count, over the client's kept connection too.
namespace {

int connections(Fixture& f) {
    const auto result = f.send("GET", "/connections/count");
    REQUIRE(result.run.succeeded());
    return std::stoi(result.response.body);
}

}  // namespace

TEST_CASE("curl: calls one after another reuse one kept connection", "[curl]") {
    Fixture f;
    for (int call = 0; call < 5; ++call) {
        const auto r = f.send("GET", "/ok/reuse");
        REQUIRE(r.run.succeeded());
        CHECK(r.response.body == "ok");
    }
    CHECK(connections(f) == 1);
}

TEST_CASE("curl: a 503 with Retry-After on a kept connection is retried after the hint", "[curl]") {
    Fixture f;
    REQUIRE(f.send("GET", "/ok/warm").run.succeeded());
    const auto r = f.send("GET", "/status/kept?code=503&fail=1&retry_after=2");
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 2);
    CHECK(last_category(r) == ErrorCategory::ServiceUnavailable);
    CHECK(f.sleeper.delays() == std::vector<Duration>{2s});
    CHECK(connections(f) == 1);
}

TEST_CASE("curl: an attempt that timed out drops its connection and the next one connects again",
          "[curl]") {
    Fixture f;
    REQUIRE(f.send("GET", "/ok/before").run.succeeded());
    const auto r = f.send("GET", "/stall/dropped?fail=1&ms=1500");
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 2);
    CHECK(last_category(r) == ErrorCategory::ConnectionLost);
    // The timed-out connection is closed; the retry and the later calls share a new one.
    const auto after = f.send("GET", "/status/after?code=429&fail=1");
    CHECK(after.run.succeeded());
    CHECK(last_category(after) == ErrorCategory::ResourceExhausted);
    CHECK(connections(f) == 2);
}

TEST_CASE("curl: a POST without a key never goes on a kept connection, so a reset is not resent",
          "[curl]") {
    Fixture f;
    REQUIRE(f.send("GET", "/ok/warm").run.succeeded());
    // Sent on the kept connection, this POST would be sent again by libcurl itself after the
    // reset (a kept connection that closes before any answer looks stale to it): applied twice.
    const auto r = f.send("POST", "/reset-after/fresh?fail=1", {}, "pay 10");
    CHECK(r.run.outcome == RetryOutcome::OutcomeUnknown);
    CHECK(r.run.attempts == 1);
    CHECK(last_category(r) == ErrorCategory::CommitOutcomeUnknown);
    CHECK(f.applied("fresh") == 1);
    CHECK(connections(f) == 2);
}

TEST_CASE("curl: a POST with an Idempotency-Key uses the kept connection", "[curl]") {
    Fixture f;
    REQUIRE(f.send("GET", "/ok/warm").run.succeeded());
    const auto r = f.send("POST", "/ok/keyed", {{"Idempotency-Key", "k-2"}}, "pay 10");
    CHECK(r.run.succeeded());
    CHECK(connections(f) == 1);
}
