// The libcurl adapter against a real loopback HTTP server that fails on purpose
// (tests/support/flaky_http_server.py, started and stopped by each test): statuses with
// Retry-After, connection resets before and after the request was read, stalls past the attempt
// timeout, and POSTs deduplicated by Idempotency-Key (docs/protocols.md).
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <stdexcept>
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
    explicit Fixture(rebound::curl::TransferLimits limits = {}) : client(executor, limits) {}

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
    HttpClient client;

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

TEST_CASE("curl: a Retry-After date in 9999 waits the cap instead of retrying at once", "[curl]") {
    // "Not for a long time": once 0 ms or a random delay (the date overflowed the clock's
    // nanoseconds), so every attempt went at once. Now the saturated hint is over the 5 s cap.
    Fixture f;
    const auto r = f.send(
        "GET",
        "/status/d?code=503&fail=3&retry_after=Fri%2C%2031%20Dec%209999%2023%3A59%3A59%20GMT");
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 4);
    CHECK(f.sleeper.delays() == std::vector<Duration>{5s, 5s, 5s});
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

namespace {

// Retries transient failures up to 3 times, with neither deadline nor attempt_timeout: the policy
// gives a transfer no time limit, as the built-in one does.
std::shared_ptr<const rebound::Policy> unlimited_policy() {
    return rebound::PolicyBuilder("unlimited")
        .max_attempts(3)
        .backoff(rebound::Backoff::fixed(10ms))
        .jitter(rebound::Jitter::none())
        .retry_on(rebound::Matcher::transient())
        .build();
}

std::string last_message(const rebound::curl::CallResult& r) {
    REQUIRE(r.run.last_error.has_value());
    return std::string(r.run.last_error->description().message);
}

// A listening socket on 127.0.0.1 whose accept queue is full (backlog 0, never accepted, and
// filled by connections of its own): the kernel drops further SYNs, so a connect to it never
// completes. Closed with the object.
class FullListener {
  public:
    FullListener() : listener_(::socket(AF_INET, SOCK_STREAM, 0)) {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (listener_ < 0 ||
            ::bind(listener_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
            ::listen(listener_, 0) != 0 ||
            ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
            throw std::runtime_error("no loopback listener");
        }
        port_ = ntohs(address.sin_port);
        for (int& filler : fillers_) {
            filler = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
            (void)::connect(filler, reinterpret_cast<sockaddr*>(&address), length);
        }
    }
    ~FullListener() {
        for (const int filler : fillers_) {
            ::close(filler);
        }
        ::close(listener_);
    }
    FullListener(const FullListener&) = delete;
    FullListener& operator=(const FullListener&) = delete;

    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/x"; }

  private:
    int listener_;
    int port_ = 0;
    int fillers_[4]{-1, -1, -1, -1};
};

}  // namespace

TEST_CASE("curl: a body up to max_body_size is kept, one byte more fails as data_error", "[curl]") {
    Fixture f({.max_body_size = 1000});
    for (const std::string chunked : {"0", "1"}) {
        INFO("chunked=" << chunked);
        const auto fits = f.send("GET", "/big/a?bytes=1000&chunked=" + chunked);
        CHECK(fits.run.succeeded());
        CHECK(fits.response.body == std::string(1000, 'x'));

        // By its Content-Length before the body is read, or as a chunked body arrives.
        const auto over = f.send("GET", "/big/b?bytes=1001&chunked=" + chunked);
        CHECK(over.run.outcome == RetryOutcome::NonRetryable);
        CHECK(over.run.attempts == 1);
        CHECK(last_category(over) == ErrorCategory::DataError);
        CHECK(over.run.last_error->description().http_status == 0);
        CHECK(last_message(over) ==
              "response body larger than max_body_size (1000 bytes); HTTP status 200");
        CHECK(over.response.status == 200);
        CHECK(over.response.body.empty());
    }
}

TEST_CASE("curl: a large body stops at the default max_body_size", "[curl]") {
    Fixture f;
    CHECK(rebound::curl::TransferLimits{}.max_body_size == 64u << 20);
    const auto r = f.send("GET", "/big/c?chunked=1&bytes=" + std::to_string((64u << 20) + 1));
    CHECK(last_category(r) == ErrorCategory::DataError);
    CHECK(r.response.body.empty());
}

TEST_CASE("curl: without deadline or attempt_timeout a silent server is cut off by default_timeout",
          "[curl]") {
    Fixture f({.default_timeout = 200ms});
    f.policy = unlimited_policy();
    // The server reads the GET and never answers: each attempt ends at the default timeout,
    // after the request was sent (connection_lost, retried), instead of waiting for ever.
    const auto r = f.send("GET", "/silent/a");
    CHECK(r.run.outcome == RetryOutcome::Exhausted);
    CHECK(r.run.attempts == 3);
    CHECK(last_category(r) == ErrorCategory::ConnectionLost);
    CHECK(last_message(r) == "Timeout was reached");
}

TEST_CASE("curl: the policy's attempt_timeout replaces default_timeout", "[curl]") {
    // A default far shorter than the stall: the policy's 300 ms attempt_timeout governs, so the
    // 100 ms stall completes.
    Fixture f({.default_timeout = 1ms});
    const auto r = f.send("GET", "/stall/b?fail=1&ms=100");
    CHECK(r.run.succeeded());
    CHECK(r.run.attempts == 1);
}

TEST_CASE("curl: a connect that never completes fails at connect_timeout as connection_failure",
          "[curl]") {
    const FullListener listener;
    Fixture f({.connect_timeout = 100ms, .default_timeout = 30s});
    f.policy = unlimited_policy();
    HttpRequest request;
    request.url = listener.url();
    const auto r = f.client.call("call", request);
    CHECK(r.run.outcome == RetryOutcome::Exhausted);
    CHECK(r.run.attempts == 3);
    CHECK(last_category(r) == ErrorCategory::ConnectionFailure);
}

TEST_CASE("curl: limits of zero are refused when the client is made", "[curl]") {
    rebound::testing::RecordingSleeper sleeper;
    const rebound::RetryExecutor executor({.sleeper = &sleeper});
    CHECK_THROWS_WITH(HttpClient(executor, {.max_body_size = 0}),
                      "rebound::curl: max_body_size must be at least 1 byte");
    CHECK_THROWS_WITH(HttpClient(executor, {.connect_timeout = Duration(0)}),
                      "rebound::curl: connect_timeout must be positive");
    CHECK_THROWS_WITH(HttpClient(executor, {.default_timeout = Duration(-1)}),
                      "rebound::curl: default_timeout must be positive (nullopt for none)");
}
