// The transactional runner on the engine's single run (RetryRun): the policy's circuit breaker,
// listener events and RetryMetrics, the dead-letter sink and policies resolved by handler name,
// against real databases (SQLite, and PostgreSQL for a breaker that opens while the database
// refuses connections). Virtual time: a ManualClock that only the RecordingSleeper moves.
#include <catch2/catch.hpp>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "database_test_support.hpp"
#include "event_log.hpp"
#include "hedging_policy.hpp"
#include "rebound/dsl/load.hpp"
#include "rebound/hedging_unsupported.hpp"
#include "rebound/odbc/transactional_runner.hpp"
#include "rebound/retry_metrics.hpp"
#include "rebound/testing.hpp"

namespace rebound::testing {
namespace {

using namespace std::chrono_literals;
using odbc::Connection;
using odbc::TransactionAttempt;
using odbc::TransactionOutcome;
using odbc::TransactionReport;
using test_support::EventLog;

// The clock, sleeper and listeners both a runner and an executor are given.
struct Harness {
    ManualClock clock;
    RecordingSleeper sleeper{&clock};
    EventLog log;
    RetryMetrics metrics;

    odbc::TransactionalRunner runner(odbc::TransactionalRunner::Dependencies more = {}) {
        more.clock = &clock;
        more.sleeper = &sleeper;
        std::vector<RetryListener*> listeners{&log, &metrics};
        listeners.insert(listeners.end(), more.listeners.begin(), more.listeners.end());
        more.listeners = std::move(listeners);
        return odbc::TransactionalRunner(std::move(more));
    }
};

// A database with one row, and a second session that holds SQLite's write lock until released,
// so that every write of another session fails with "database is locked" (lock_timeout).
struct LockedDatabase {
    TemporarySqliteDatabase database;
    Connection admin = open_connection(database.connection_string());
    Connection holder = open_connection(database.connection_string());
    Connection connection = open_connection(database.connection_string());

    LockedDatabase() {
        admin.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)");
        admin.execute("INSERT INTO items (id, value) VALUES (1, 0)");
        lock();
    }
    void lock() {
        holder.set_autocommit(false);
        holder.execute("UPDATE items SET value = value WHERE id = 1");
    }
    void release() { holder.rollback(); }
    std::string value() { return admin.query_value("SELECT value FROM items").value_or(""); }
};

void add_one(Connection& connection, const TransactionAttempt&) {
    connection.execute("UPDATE items SET value = value + 1 WHERE id = 1");
}

std::shared_ptr<const Policy> fixed_policy(int max_attempts) {
    return PolicyBuilder("ledger")
        .max_attempts(max_attempts)
        .backoff(Backoff::fixed(10ms))
        .jitter(Jitter::none())
        .retry_on(Matcher::transient())
        .build();
}

// A consecutive-failures breaker that opens after `failures` failures for 5 s, one probe.
std::shared_ptr<CircuitBreaker> breaker_after(int failures, const Clock& clock) {
    BreakerSettings settings;
    settings.name = "ledger-db";
    settings.trip = BreakerTrip::Consecutive;
    settings.consecutive_failures = failures;
    settings.open_for = 5s;
    return std::make_shared<CircuitBreaker>(settings, clock.now());
}

TEST_CASE("sqlite: a transaction's events and metrics are the blocking executor's",
          "[sqlite][runner]") {
    // The same failures, met for real by the runner and thrown by the executor's work: the two
    // must tell their listeners the same events and count the same metrics.
    LockedDatabase db;
    const auto policy = fixed_policy(5);
    Harness through_runner;
    const odbc::TransactionalRunner runner = through_runner.runner();
    const TransactionReport retried =
        runner.run(db.connection, *policy, {.handler = "ledger.post"},
                   [&](Connection& c, const TransactionAttempt& attempt) {
                       if (attempt.number == 3) {
                           db.release();
                       }
                       add_one(c, attempt);
                   });
    CHECK(retried.succeeded());
    const TransactionReport refused = runner.run(
        db.connection, *policy, {.handler = "ledger.post"}, [](Connection& c, const auto&) {
            c.execute("INSERT INTO items (id, value) VALUES (1, 0)");  // duplicate key
        });
    CHECK(refused.outcome == TransactionOutcome::NonRetryable);

    Harness through_executor;
    const RetryExecutor executor({.clock = &through_executor.clock,
                                  .sleeper = &through_executor.sleeper,
                                  .listeners = {&through_executor.log, &through_executor.metrics}});
    HandlerResolution resolution;
    resolution.policy = policy;
    resolution.via = ResolvedVia::Code;
    executor.run(resolution, "ledger.post", [](const AttemptInfo& attempt) {
        if (attempt.attempt < 3) {
            throw Error(ErrorCategory::LockTimeout, "database is locked");
        }
    });
    executor.run(resolution, "ledger.post",
                 [] { throw Error(ErrorCategory::ConstraintViolation, "UNIQUE constraint"); });

    const std::vector<std::string> expected{"start 1", "retry 1 lock_timeout 10000us",
                                            "start 2", "retry 2 lock_timeout 10000us",
                                            "start 3", "succeeded after 3",
                                            "start 1", "stopped non_retryable after 1"};
    CHECK(through_runner.log.lines == expected);
    CHECK(through_executor.log.lines == expected);
    CHECK(through_runner.metrics.retries("ledger.post", ErrorCategory::LockTimeout) == 2);
    CHECK(through_runner.metrics.render() == through_executor.metrics.render());
    CHECK(db.value() == "1");
}

// Keeps what a dead letter says, copied during accept().
class RecordingSink final : public DeadLetterSink {
  public:
    bool accept(const DeadLetter& letter) override {
        handler = letter.handler;
        command_id = letter.command_id;
        policy = letter.policy;
        attempts = letter.attempts;
        category = letter.error.description().effective_category();
        message = letter.error.description().message;
        const auto* text = std::any_cast<std::string>(&letter.item);
        item = text != nullptr ? *text : "";
        return true;
    }
    std::string handler, command_id, policy, message, item;
    int attempts = 0;
    ErrorCategory category = ErrorCategory::Unknown;
};

TEST_CASE("sqlite: an exhausted transaction goes to the dead-letter sink", "[sqlite][runner]") {
    LockedDatabase db;
    const auto policy = PolicyBuilder("ledger")
                            .max_attempts(2)
                            .backoff(Backoff::fixed(10ms))
                            .jitter(Jitter::none())
                            .retry_on(Matcher::transient())
                            .on_exhausted(ExhaustedAction::DeadLetter)
                            .build();
    Harness h;
    RecordingSink sink;
    const TransactionReport report =
        h.runner({.dead_letter_sink = &sink})
            .run(db.connection, *policy,
                 {.handler = "ledger.post", .command_id = "cmd-7", .item = std::string("payload")},
                 add_one);
    CHECK(report.outcome == TransactionOutcome::DeadLettered);
    CHECK(report.attempts == 2);
    REQUIRE(report.failures.size() == 2);
    CHECK(report.failures[1].failure.category == ErrorCategory::LockTimeout);
    CHECK(sink.handler == "ledger.post");
    CHECK(sink.command_id == "cmd-7");
    CHECK(sink.policy == "ledger");
    CHECK(sink.attempts == 2);
    CHECK(sink.category == ErrorCategory::LockTimeout);
    CHECK_THAT(sink.message, Catch::Contains("database is locked"));
    CHECK(sink.item == "payload");
    CHECK(h.log.lines.back() == "stopped dead_lettered after 2");
    // Without a sink the same run ends exhausted.
    CHECK(h.runner().run(db.connection, *policy, {.handler = "ledger.post"}, add_one).outcome ==
          TransactionOutcome::Exhausted);
    CHECK(db.value() == "0");
}

constexpr std::string_view kLedgerPolicies = R"(rebound: 1
service: ledger
policies:
  quick:
    max_attempts: 2
    backoff: { type: fixed, delay: 10ms }
    jitter: none
    retry_on: [transient]
  patient:
    max_attempts: 4
    backoff: { type: fixed, delay: 20ms }
    jitter: none
    retry_on: [transient]
  unknown_ok:
    max_attempts: 3
    backoff: { type: fixed, delay: 10ms }
    jitter: none
    retry_on: [transient, commit_outcome_unknown]
handlers:
  ledger.post: quick
  ledger.replay: unknown_ok
  ledger.settle: { policy: unknown_ok, idempotent: false }
default: patient
)";

TEST_CASE("sqlite: the runner takes a handler's policy from a policy file", "[sqlite][runner]") {
    const dsl::LoadResult loaded =
        dsl::load_text(kLedgerPolicies, "ledger.yaml", dsl::Syntax::Yaml);
    REQUIRE(loaded.policy_set);
    const std::shared_ptr<const PolicySet> policies = loaded.policy_set;
    LockedDatabase db;
    Harness h;
    const odbc::TransactionalRunner runner = h.runner(
        {.resolver = [policies](std::string_view handler) { return policies->resolve(handler); }});

    const TransactionReport post = runner.run(db.connection, "ledger.post", {}, add_one);
    CHECK(post.outcome == TransactionOutcome::Exhausted);
    CHECK(post.attempts == 2);
    REQUIRE(post.policy);
    CHECK(post.policy->name() == "quick");
    const TransactionReport other = runner.run(db.connection, "ledger.other", {}, add_one);
    CHECK(other.attempts == 4);
    CHECK(other.policy->name() == "patient");
    const TransactionReport resolved = runner.run(db.connection, policies->resolve("ledger.post"),
                                                  {.handler = "ledger.post"}, add_one);
    CHECK(resolved.attempts == 2);
    CHECK(h.metrics.attempts("ledger.post") == 4);
    CHECK(h.metrics.attempts("ledger.other") == 4);
    CHECK(h.sleeper.delays() == std::vector<Duration>{10ms, 20ms, 20ms, 20ms, 10ms});
    db.release();

    // Idempotency: the options count as the handler's code, and a binding that states
    // `idempotent` wins over them.
    const auto unknown_once = [](Connection& c, const TransactionAttempt& attempt) {
        add_one(c, attempt);
        if (attempt.number == 1) {
            odbc::DatabaseFailure failure;
            failure.phase = DatabasePhase::Commit;
            failure.category = ErrorCategory::CommitOutcomeUnknown;
            throw odbc::DatabaseError(failure);
        }
    };
    const auto replay =
        runner.run(db.connection, "ledger.replay", {.idempotent = true}, unknown_once);
    CHECK(replay.succeeded());
    CHECK(replay.attempts == 2);
    const auto not_stated = runner.run(db.connection, "ledger.replay", {}, unknown_once);
    CHECK(not_stated.outcome == TransactionOutcome::OutcomeUnknown);
    const auto settle =
        runner.run(db.connection, "ledger.settle", {.idempotent = true}, unknown_once);
    CHECK(settle.outcome == TransactionOutcome::OutcomeUnknown);
    CHECK(settle.attempts == 1);
    CHECK(db.value() == "1");  // the one attempt that committed
}

TEST_CASE("sqlite: a probe that throws another exception gives the breaker's permit back",
          "[sqlite][runner][breaker]") {
    LockedDatabase db;
    Harness h;
    const auto policy = PolicyBuilder("ledger")
                            .max_attempts(1)
                            .retry_on(Matcher::transient())
                            .breaker(breaker_after(1, h.clock))
                            .build();
    const odbc::TransactionalRunner runner = h.runner();
    CHECK(runner.run(db.connection, *policy, {.handler = "ledger.post"}, add_one).outcome ==
          TransactionOutcome::Exhausted);  // the lock_timeout opens the breaker
    db.release();
    CHECK(runner.run(db.connection, *policy, {.handler = "ledger.post"}, add_one).outcome ==
          TransactionOutcome::CircuitOpen);
    h.clock.advance(5s);  // half-open: one probe at a time
    h.log.lines.clear();
    CHECK_THROWS_WITH(runner.run(db.connection, *policy, {.handler = "ledger.post"},
                                 [](Connection& c, const TransactionAttempt& attempt) {
                                     add_one(c, attempt);
                                     throw std::runtime_error("not a database error");
                                 }),
                      "not a database error");
    CHECK(h.log.lines == std::vector<std::string>{"start 1"});  // no end: the run was abandoned
    CHECK(db.value() == "0");                                   // rolled back
    // The probe's permit went back: the next transaction is admitted, and closes the breaker.
    const TransactionReport probe =
        runner.run(db.connection, *policy, {.handler = "ledger.post"}, add_one);
    CHECK(probe.succeeded());
    CHECK(policy->breaker()->snapshot(h.clock.now()).state == BreakerState::Closed);
    CHECK(db.value() == "1");
}

TEST_CASE("sqlite: a hedging policy is refused before the connection is touched",
          "[sqlite][runner][hedge]") {
    LockedDatabase db;
    db.release();
    Harness h;
    PolicySpec spec = test::hedging_spec(20ms, 3);
    spec.name = "ledger-reads";
    const auto policy = test::compile_hedging(spec);
    const odbc::TransactionalRunner runner = h.runner();
    int calls = 0;
    CHECK_THROWS_AS(runner.run(db.connection, *policy, {.handler = "ledger.read"},
                               [&](Connection&, const TransactionAttempt&) { ++calls; }),
                    HedgingUnsupported);
    CHECK(calls == 0);
    CHECK(h.log.lines.empty());
    CHECK(db.connection.autocommit());  // no transaction was begun
}

// Makes `database` refuse new sessions and ends the ones it has, from an admin session.
void shut_out(Connection& admin, const std::string& database) {
    admin.execute("ALTER DATABASE " + database + " ALLOW_CONNECTIONS false");
    admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" +
                  database + "'");
    for (int i = 0; i < 100; ++i) {
        if (admin.query_value("SELECT count(*) FROM pg_stat_activity WHERE datname = '" + database +
                              "'") == "0") {
            return;
        }
        std::this_thread::sleep_for(50ms);
    }
    FAIL("the sessions of " << database << " did not end");
}

TEST_CASE("postgresql: a breaker opens while the database is unreachable, then fails fast",
          "[postgresql][runner][breaker]") {
    const std::string server = server_connection_string("postgresql");
    Connection admin = open_connection(server);
    admin.execute("DROP DATABASE IF EXISTS rb_breaker WITH (FORCE)");
    admin.execute("CREATE DATABASE rb_breaker");
    std::string connection_string = server;
    const auto database = connection_string.find("Database=postgres");
    REQUIRE(database != std::string::npos);
    connection_string.replace(database, std::string("Database=postgres").size(),
                              "Database=rb_breaker");
    Connection connection = open_connection(connection_string);
    connection.execute("CREATE TABLE rb_ledger (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)");
    connection.execute("INSERT INTO rb_ledger VALUES (1, 0)");

    Harness h;
    // Two consecutive failures open the breaker for 5 s; a 1 s deadline cannot wait that out.
    const auto policy = PolicyBuilder("ledger")
                            .max_attempts(5)
                            .backoff(Backoff::fixed(10ms))
                            .jitter(Jitter::none())
                            .deadline(1s)
                            .retry_on(Matcher::transient())
                            .breaker(breaker_after(2, h.clock))
                            .build();
    const odbc::TransactionalRunner runner = h.runner();
    int statements = 0;
    const auto add = [&](Connection& c, const TransactionAttempt&) {
        ++statements;
        c.execute("UPDATE rb_ledger SET value = value + 1 WHERE id = 1");
    };
    REQUIRE(runner.run(connection, *policy, {.handler = "ledger.post"}, add).succeeded());

    shut_out(admin, "rb_breaker");
    const TransactionReport failing =
        runner.run(connection, *policy, {.handler = "ledger.post"}, add);
    CHECK(failing.outcome == TransactionOutcome::CircuitOpen);
    REQUIRE(failing.failures.size() == 3);
    INFO(failing.failures[0].failure.summary() << " / " << failing.failures[1].failure.summary());
    CHECK(failing.failures[0].reconnect_next);  // the session was terminated
    CHECK(failing.failures[1].failure.phase == DatabasePhase::Connect);
    CHECK(failing.failures[1].failure.category == ErrorCategory::ConnectionFailure);
    CHECK(failing.failures[2].refused);
    CHECK(failing.failures[2].failure.category == ErrorCategory::CircuitOpen);
    CHECK(statements == 2);
    CHECK_FALSE(connection.is_open());

    // The database takes sessions again, but the breaker is open: the next transactions are
    // refused at once and never reconnect.
    admin.execute("ALTER DATABASE rb_breaker ALLOW_CONNECTIONS true");
    h.log.lines.clear();
    for (int i = 0; i < 3; ++i) {
        const TransactionReport refused =
            runner.run(connection, *policy, {.handler = "ledger.post"}, add);
        CHECK(refused.outcome == TransactionOutcome::CircuitOpen);
        CHECK(refused.attempts == 1);
        REQUIRE(refused.failures.size() == 1);
        CHECK(refused.failures[0].refused);
        CHECK(refused.failures[0].reconnect_next);
    }
    CHECK(statements == 2);
    CHECK_FALSE(connection.is_open());
    CHECK(h.log.lines == std::vector<std::string>{"start 1", "stopped circuit_open after 1",
                                                  "start 1", "stopped circuit_open after 1",
                                                  "start 1", "stopped circuit_open after 1"});
    CHECK(h.metrics.runs("ledger.post", RetryOutcome::CircuitOpen) == 4);

    // Once the open period is over, a probe reconnects, commits and closes the breaker.
    h.clock.advance(5s);
    CHECK(runner.run(connection, *policy, {.handler = "ledger.post"}, add).succeeded());
    CHECK(connection.is_open());
    CHECK(policy->breaker()->snapshot(h.clock.now()).state == BreakerState::Closed);
    CHECK(connection.query_value("SELECT value FROM rb_ledger WHERE id = 1") == "2");
    connection = open_connection(server);  // leaves rb_breaker, so that it can be dropped
    admin.execute("DROP DATABASE IF EXISTS rb_breaker WITH (FORCE)");
}

}  // namespace
}  // namespace rebound::testing
