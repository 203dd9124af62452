// A queue delivery as one attempt of the engine's RetryRun (docs/queue.md, "One run per message"):
// a breaker's refusal postpones a message without spending its attempts, the injected random
// source gives the blocking executor's delays, and listeners hear the blocking executor's events.
// On SQLite, PostgreSQL and MariaDB (the servers of tests/odbc/database-server.sh).
#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <vector>

#include "event_log.hpp"
#include "hedging_policy.hpp"
#include "queue_test_support.hpp"
#include "rebound/error_exception.hpp"
#include "rebound/queue/queue_metrics.hpp"
#include "rebound/queue/worker_pool.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/retry_metrics.hpp"
#include "rebound/testing.hpp"

namespace rebound::testing {
namespace {

using Catch::Matchers::Contains;
using namespace std::chrono_literals;
using queue::Delivery;
using queue::MessageState;
using queue::QueueHandlers;
using queue::WorkerOptions;
using queue::WorkerPool;

constexpr auto kOpenFor = 400ms;

// Ready again, due when the breaker half-opens (kOpenFor after the refused claim), having made
// `attempts` attempts.
bool postponed(const QueueDatabase& database, odbc::Connection& connection, std::int64_t id,
               int attempts) {
    const std::optional<queue::Message> m = database.store().find(connection, id);
    if (!connection.autocommit()) {
        connection.commit();
    }
    const std::int64_t open_us = std::chrono::microseconds(kOpenFor).count();
    return m && m->state == MessageState::Ready && m->attempt == attempts && m->claimed_at &&
           m->due_at - *m->claimed_at >= open_us &&
           m->due_at - *m->claimed_at < open_us + 5'000'000;
}

void an_open_breaker_postpones_deliveries_without_spending_attempts(const std::string& name) {
    QueueDatabase database(name);
    odbc::Connection connection = database.connect();
    ManualClock clock;  // the breaker's time: it half-opens when the test says
    BreakerSettings settings;
    settings.name = "shipping";
    settings.trip = BreakerTrip::Consecutive;
    settings.consecutive_failures = 1;
    settings.open_for = kOpenFor;
    const auto breaker = std::make_shared<CircuitBreaker>(settings, clock.now());
    const auto policy = PolicyBuilder("guarded")
                            .max_attempts(2)
                            .backoff(Backoff::fixed(10ms))
                            .jitter(Jitter::none())
                            .retry_on(Matcher::transient())
                            .breaker(breaker)
                            .build();
    std::atomic<bool> down{true};
    auto handlers = std::make_shared<QueueHandlers>();
    handlers->add(HandlerRegistration{.name = "t.guarded", .policy = policy}, [&](Delivery&) {
        if (down) {
            throw Error(ErrorCategory::ServiceUnavailable, "dependency down");
        }
    });
    RetryMetrics metrics;
    WorkerOptions options = worker_options(database, 1);
    options.clock = &clock;
    options.listeners = {&metrics};
    const std::int64_t first = database.store().enqueue(connection, {.handler = "t.guarded"});
    std::int64_t second = 0;
    {
        // The first attempt fails and opens the breaker; from then on every delivery is refused
        // and postponed to the half-open time, again and again, its attempts unspent.
        WorkerPool pool(odbc_environment(), handlers, options);
        pool.start();
        REQUIRE(wait_until([&] { return pool.metrics().retried == 1; }));
        second = database.store().enqueue(connection, {.handler = "t.guarded"});
        REQUIRE(wait_until([&] {
            return pool.metrics().postponed >= 4 && postponed(database, connection, first, 1) &&
                   postponed(database, connection, second, 0);
        }));
        pool.stop();
        CHECK(pool.metrics().dead == 0);
        CHECK(pool.metrics().succeeded == 0);
        CHECK_THAT(queue::render_worker_metrics(pool.metrics()),
                   Contains("rebound_queue_worker_messages_total{outcome=\"postponed\"} "));
    }
    const auto unsent = database.store().find(connection, second);
    REQUIRE(unsent);
    CHECK_FALSE(unsent->first_attempt_at);  // no attempt yet
    CHECK(unsent->last_error.category.empty());
    CHECK(metrics.attempts("t.guarded") == 1);
    CHECK(metrics.retries("t.guarded", ErrorCategory::CircuitOpen) == 0);

    // The breaker half-opens and the dependency is back: both succeed within their budget of
    // two attempts (had the refusals counted, the first would have been dead long ago).
    down = false;
    clock.advance(kOpenFor);
    WorkerPool pool(odbc_environment(), handlers, options);
    pool.start();
    REQUIRE(wait_until([&] { return count_in(connection, "done") == 2; }));
    pool.stop();
    CHECK(database.store().find(connection, first)->attempt == 2);
    CHECK(database.store().find(connection, second)->attempt == 1);
    CHECK(pool.metrics().succeeded == 2);
    CHECK(pool.metrics().dead == 0);
    CHECK(breaker->snapshot(clock.now()).state == BreakerState::Closed);
    CHECK(metrics.attempts("t.guarded") == 3);
    CHECK(metrics.retries("t.guarded", ErrorCategory::ServiceUnavailable) == 1);
    CHECK(metrics.runs("t.guarded", RetryOutcome::Succeeded) == 2);
    CHECK(metrics.runs("t.guarded", RetryOutcome::CircuitOpen) == 0);
}

std::shared_ptr<const Policy> jittered_policy() {
    return PolicyBuilder("jittered")
        .max_attempts(4)
        .backoff(Backoff::exponential(20ms, 2.0, 200ms))
        .jitter(Jitter::full())
        .retry_on(Matcher::transient())
        .build();
}

// Fails its first two attempts.
void fail_twice(int attempt) {
    if (attempt < 3) {
        throw Error(ErrorCategory::ServiceUnavailable, "flaky");
    }
}

void deliveries_decide_and_tell_as_the_blocking_executor(const std::string& name) {
    // The blocking executor's run of the same work, with the same random draws.
    ScriptedRandomSource reference_random{0.5, 0.25};
    RecordingSleeper sleeper;
    test_support::EventLog reference;
    const RetryExecutor executor(
        {.sleeper = &sleeper, .random = &reference_random, .listeners = {&reference}});
    int calls = 0;
    HandlerResolution resolution;
    resolution.policy = jittered_policy();
    REQUIRE(executor.run(resolution, "t.flaky", [&] { fail_twice(++calls); }).succeeded());
    REQUIRE(sleeper.delays().size() == 2);

    QueueDatabase database(name);
    odbc::Connection connection = database.connect();
    std::mutex mutex;
    std::vector<std::int64_t> delays_before;  // each retry's stored delay, as its attempt saw it
    auto handlers = std::make_shared<QueueHandlers>();
    handlers->add(HandlerRegistration{.name = "t.flaky", .policy = jittered_policy()},
                  [&](Delivery& d) {
                      if (d.message.attempt > 1) {
                          const std::lock_guard lock(mutex);
                          delays_before.push_back(d.message.last_delay_us);
                      }
                      fail_twice(d.message.attempt);
                  });
    ScriptedRandomSource random{0.5, 0.25};
    test_support::EventLog log;
    RetryMetrics metrics;
    WorkerOptions options = worker_options(database, 1);
    options.random = &random;
    options.listeners = {&log, &metrics};
    const std::int64_t id = database.store().enqueue(connection, {.handler = "t.flaky"});
    WorkerPool pool(odbc_environment(), handlers, options);
    pool.start();
    REQUIRE(wait_until([&] { return count_in(connection, "done") == 1; }));
    pool.stop();

    CHECK(log.lines == reference.lines);
    CHECK(log.lines.back() == "succeeded after 3");
    const std::vector<std::int64_t> expected{sleeper.delays()[0].count(),
                                             sleeper.delays()[1].count()};
    CHECK(delays_before == expected);
    CHECK(database.store().find(connection, id)->last_delay_us == expected[1]);
    CHECK(metrics.attempts("t.flaky") == 3);
    CHECK(metrics.retries("t.flaky", ErrorCategory::ServiceUnavailable) == 2);
    CHECK(metrics.runs("t.flaky", RetryOutcome::Succeeded) == 1);
    CHECK_THAT(metrics.render(), Contains("rebound_attempts_total{handler=\"t.flaky\"} 3\n"));
    CHECK(pool.metrics().retried == 2);
    CHECK(pool.metrics().succeeded == 1);
}

// A hedging policy: the queue runs one attempt at a time, so each such message is dead at once,
// its handler never called, with the refusal as its last error (docs/queue.md).
void a_hedging_policy_is_refused_without_running_the_handler(const std::string& name) {
    QueueDatabase database(name);
    odbc::Connection connection = database.connect();
    PolicySpec spec = test::hedging_spec(20ms, 3);
    spec.name = "hedged";
    std::atomic<int> calls{0};
    auto handlers = std::make_shared<QueueHandlers>();
    handlers->add(HandlerRegistration{.name = "t.hedged", .policy = test::compile_hedging(spec)},
                  [&](Delivery&) { ++calls; });
    const std::int64_t id = database.store().enqueue(connection, {.handler = "t.hedged"});
    WorkerPool pool(odbc_environment(), handlers, worker_options(database, 1));
    pool.start();
    REQUIRE(wait_until([&] { return pool.metrics().dead == 1; }));
    pool.stop();
    CHECK(calls == 0);
    CHECK(pool.metrics().database_errors == 0);
    const auto dead = database.store().find(connection, id);
    REQUIRE(dead);
    CHECK(dead->state == MessageState::Dead);
    CHECK_THAT(dead->last_error.message,
               Contains("policy 'hedged' hedges: hedging needs an asynchronous executor"));
}

#define QUEUE_RUN_SCENARIOS(database)                                                        \
    TEST_CASE("queue " database                                                              \
              ": an open breaker postpones deliveries without spending attempts",            \
              "[" database "]") {                                                            \
        an_open_breaker_postpones_deliveries_without_spending_attempts(database);            \
    }                                                                                        \
    TEST_CASE("queue " database ": deliveries decide and tell as the blocking executor",     \
              "[" database "]") {                                                            \
        deliveries_decide_and_tell_as_the_blocking_executor(database);                       \
    }                                                                                        \
    TEST_CASE("queue " database ": a hedging policy is refused without running the handler", \
              "[" database "]") {                                                            \
        a_hedging_policy_is_refused_without_running_the_handler(database);                   \
    }

QUEUE_RUN_SCENARIOS("sqlite")
QUEUE_RUN_SCENARIOS("postgresql")
QUEUE_RUN_SCENARIOS("mariadb")

}  // namespace
}  // namespace rebound::testing
