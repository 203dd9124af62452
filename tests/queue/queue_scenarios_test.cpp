// The retry queue on each database (docs/queue.md): migrations, the outbox, retries at their due
// time, dead letters, strict per-key order, pause, requeue and discard, reclaiming an expired
// lease, and two workers racing for the same rows. Each scenario runs on SQLite, PostgreSQL and
// MariaDB (the servers of tests/odbc/database-server.sh); the multi-process runs with SIGKILL are
// in queue_process_test.cpp.
#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "queue_test_support.hpp"
#include "rebound/error_exception.hpp"
#include "rebound/queue/queue_metrics.hpp"
#include "rebound/queue/queue_schema.hpp"
#include "rebound/queue/worker_pool.hpp"

namespace rebound::testing {
namespace {

using Catch::Matchers::Contains;
using namespace std::chrono_literals;
using queue::Delivery;
using queue::MessageState;
using queue::NewMessage;
using queue::QueueHandlers;
using queue::WorkerOptions;
using queue::WorkerPool;

std::shared_ptr<const Policy> retry_policy(int max_attempts, Duration delay,
                                           std::string route = "retry-fast") {
    return PolicyBuilder("queue-test")
        .max_attempts(max_attempts)
        .backoff(Backoff::fixed(delay))
        .jitter(Jitter::none())
        .retry_on(Matcher::transient())
        .route(std::chrono::hours(1), std::move(route))
        .build();
}

HandlerRegistration registration(std::string name, std::shared_ptr<const Policy> policy) {
    return HandlerRegistration{.name = std::move(name), .policy = std::move(policy)};
}

std::int64_t enqueue(const QueueDatabase& database, odbc::Connection& connection,
                     std::string handler, std::optional<std::string> key = std::nullopt) {
    return database.store().enqueue(
        connection, NewMessage{.handler = std::move(handler), .key = std::move(key)});
}

void migrations_are_versioned_and_idempotent(const std::string& name) {
    QueueDatabase database(name);
    odbc::Connection connection = database.connect();
    CHECK(queue::schema_version(connection) == queue::kSchemaVersion);
    const queue::MigrationResult again = queue::migrate(connection);
    CHECK(again.from_version == queue::kSchemaVersion);
    CHECK(again.to_version == queue::kSchemaVersion);
    CHECK(query_int(connection, "SELECT COUNT(*) FROM rebound_queue_schema") == 1);
    CHECK_NOTHROW(queue::require_current_schema(connection));

    connection.execute("INSERT INTO rebound_queue_schema (version, applied_at) VALUES (99, 0)");
    CHECK_THROWS_WITH(queue::migrate(connection), Contains("version 99, newer than this library"));
    CHECK_THROWS_AS(queue::require_current_schema(connection), queue::SchemaError);

    connection.execute("DROP TABLE rebound_queue_schema");
    CHECK(queue::schema_version(connection) == 0);
    CHECK_THROWS_WITH(queue::require_current_schema(connection),
                      Contains("run `rebound queue init`"));
}

void outbox_message_exists_only_if_the_transaction_commits(const std::string& name) {
    QueueDatabase database(name);
    odbc::Connection connection = database.connect();
    connection.execute("CREATE TABLE queue_effects (command_id VARCHAR(200) NOT NULL)");
    connection.set_autocommit(false);
    connection.execute("INSERT INTO queue_effects (command_id) VALUES ('order-1')");
    database.store().enqueue(connection, NewMessage{.handler = "order.placed", .payload = "1"});
    connection.rollback();
    CHECK(query_int(connection, "SELECT COUNT(*) FROM rebound_queue_messages") == 0);
    CHECK(query_int(connection, "SELECT COUNT(*) FROM queue_effects") == 0);

    connection.execute("INSERT INTO queue_effects (command_id) VALUES ('order-1')");
    const std::int64_t id = database.store().enqueue(
        connection, NewMessage{.handler = "order.placed", .payload = "order 1"});
    const std::int64_t later = database.store().enqueue(
        connection, NewMessage{.handler = "order.placed", .command_id = "c-2", .delay = 1h});
    connection.commit();
    CHECK(query_int(connection, "SELECT COUNT(*) FROM queue_effects") == 1);
    const auto message = database.store().find(connection, id);
    REQUIRE(message);
    CHECK(message->state == MessageState::Ready);
    CHECK(message->attempt == 0);
    CHECK(message->payload == "order 1");
    CHECK_THAT(message->command_id, Contains("order.placed:"));
    CHECK(message->due_at <= database.store().now(connection));
    const auto delayed = database.store().find(connection, later);
    REQUIRE(delayed);
    CHECK(delayed->command_id == "c-2");
    CHECK(delayed->due_at - delayed->created_at >= 3'599'000'000);
    CHECK(delayed->due_at - delayed->created_at <= 3'601'000'000);
    connection.commit();

    CHECK_THROWS_WITH(database.store().enqueue(connection, NewMessage{.handler = ""}),
                      Contains("handler must have 1 to 200 characters"));
    CHECK_THROWS_WITH(
        database.store().enqueue(connection, NewMessage{.handler = "h", .delay = -1s}),
        Contains("delay must not be negative"));
}

struct AttemptRecord {
    int attempt = 0;
    std::int64_t claimed_at = 0;
    std::int64_t due_at = 0;
    std::int64_t database_now = 0;
};

void failures_are_retried_at_their_due_time_or_dead_lettered(const std::string& name) {
    QueueDatabase database(name);
    odbc::Connection connection = database.connect();
    connection.execute("CREATE TABLE queue_effects (command_id VARCHAR(200) NOT NULL)");
    std::mutex mutex;
    std::vector<AttemptRecord> flaky_attempts;
    auto handlers = std::make_shared<QueueHandlers>();
    handlers->add(registration("t.flaky", retry_policy(5, 150ms)), [&](Delivery& d) {
        const std::lock_guard lock(mutex);
        flaky_attempts.push_back({d.message.attempt, d.message.claimed_at.value_or(0),
                                  d.message.due_at, database.store().now(d.connection)});
        if (d.message.attempt < 3) {
            throw Error(ErrorCategory::ServiceUnavailable, "flaky dependency");
        }
    });
    handlers->add(registration("t.broken", retry_policy(5, 10ms)), [](Delivery&) {
        throw Error(ErrorCategory::ConstraintViolation, "duplicate order");
    });
    handlers->add(registration("t.exhausted", retry_policy(2, 10ms, "tier-1")),
                  [](Delivery&) { throw Error(ErrorCategory::ServiceUnavailable, "still down"); });
    // Writes through the worker's connection, then fails once: the first write must roll back.
    handlers->add(registration("t.writes", retry_policy(3, 10ms)), [](Delivery& d) {
        d.connection.execute("INSERT INTO queue_effects (command_id) VALUES (?)",
                             {d.message.command_id});
        if (d.message.attempt == 1) {
            throw Error(ErrorCategory::ServiceUnavailable, "after the write");
        }
    });
    const std::int64_t flaky = enqueue(database, connection, "t.flaky");
    const std::int64_t broken = enqueue(database, connection, "t.broken");
    const std::int64_t exhausted = enqueue(database, connection, "t.exhausted");
    const std::int64_t writes = enqueue(database, connection, "t.writes");

    WorkerPool pool(odbc_environment(), handlers, worker_options(database));
    pool.start();
    REQUIRE(wait_until(
        [&] { return count_in(connection, "done") == 2 && count_in(connection, "dead") == 2; }));
    pool.stop();

    const auto flaky_message = database.store().find(connection, flaky);
    REQUIRE(flaky_message);
    CHECK(flaky_message->state == MessageState::Done);
    CHECK(flaky_message->attempt == 3);
    CHECK(flaky_message->route == "retry-fast");
    CHECK(flaky_message->last_error.category == "service_unavailable");
    REQUIRE(flaky_attempts.size() == 3);
    for (std::size_t i = 1; i < flaky_attempts.size(); ++i) {
        const AttemptRecord& attempt = flaky_attempts[i];
        INFO("attempt " << attempt.attempt);
        CHECK(attempt.claimed_at >= attempt.due_at);  // never before due_at
        CHECK(attempt.database_now >= attempt.due_at);
        // due_at = the failure's time + 150 ms, after the previous claim.
        CHECK(attempt.due_at - flaky_attempts[i - 1].claimed_at >= 150'000);
    }

    const auto broken_message = database.store().find(connection, broken);
    REQUIRE(broken_message);
    CHECK(broken_message->state == MessageState::Dead);
    CHECK(broken_message->attempt == 1);
    CHECK(broken_message->dead_reason == "non_retryable");
    CHECK(broken_message->last_error.category == "constraint_violation");
    CHECK(broken_message->last_error.message == "duplicate order");

    const auto exhausted_message = database.store().find(connection, exhausted);
    REQUIRE(exhausted_message);
    CHECK(exhausted_message->state == MessageState::Dead);
    CHECK(exhausted_message->attempt == 2);
    CHECK(exhausted_message->dead_reason == "exhausted");
    CHECK(exhausted_message->route == "tier-1");
    CHECK(exhausted_message->last_error.message == "still down");

    CHECK(database.store().find(connection, writes)->attempt == 2);
    CHECK(query_int(connection, "SELECT COUNT(*) FROM queue_effects") == 1);

    const queue::WorkerMetrics& metrics = pool.metrics();
    CHECK(metrics.succeeded == 2);
    CHECK(metrics.dead == 2);
    CHECK(metrics.retried == 4);  // flaky twice, exhausted once, writes once
    CHECK(metrics.retry_lateness.count() == 4);
    CHECK(metrics.lost_leases == 0);
}

void per_key_order_holds_under_retries(const std::string& name) {
    QueueDatabase database(name);
    odbc::Connection connection = database.connect();
    connection.set_autocommit(false);
    const std::vector<std::string> keys{"customer-a", "customer-b", "customer-c"};
    for (int i = 0; i < 6; ++i) {
        for (const std::string& key : keys) {
            enqueue(database, connection, "t.ordered", key);
        }
    }
    enqueue(database, connection, "t.ordered");  // no key: no order
    connection.commit();
    connection.set_autocommit(true);
    std::mutex mutex;
    std::map<std::string, std::vector<std::int64_t>> completed;
    auto handlers = std::make_shared<QueueHandlers>();
    handlers->add(registration("t.ordered", retry_policy(5, 30ms)), [&](Delivery& d) {
        if (d.message.id % 3 == 0 && d.message.attempt == 1) {
            throw Error(ErrorCategory::Deadlock, "first attempt fails");
        }
        const std::lock_guard lock(mutex);
        completed[d.message.key.value_or("")].push_back(d.message.id);
    });
    WorkerPool pool(odbc_environment(), handlers, worker_options(database, 3));
    pool.start();
    REQUIRE(wait_until([&] { return count_in(connection, "done") == 19; }));
    pool.stop();
    const std::lock_guard lock(mutex);
    for (const std::string& key : keys) {
        INFO(key);
        const std::vector<std::int64_t>& ids = completed[key];
        CHECK(ids.size() == 6);
        CHECK(std::is_sorted(ids.begin(), ids.end()));
    }
    CHECK(pool.metrics().retried >= 5);
}

void a_paused_handler_waits_until_resumed(const std::string& name) {
    QueueDatabase database(name);
    odbc::Connection connection = database.connect();
    CHECK(database.store().pause(connection, "t.paused"));
    CHECK_FALSE(database.store().pause(connection, "t.paused"));
    for (int i = 0; i < 4; ++i) {
        enqueue(database, connection, "t.paused");
    }
    enqueue(database, connection, "t.running");
    std::atomic<int> paused_calls{0};
    auto handlers = std::make_shared<QueueHandlers>();
    handlers->add(registration("t.paused", retry_policy(3, 10ms)),
                  [&](Delivery&) { ++paused_calls; });
    handlers->add(registration("t.running", retry_policy(3, 10ms)), [](Delivery&) {});
    WorkerPool pool(odbc_environment(), handlers, worker_options(database));
    pool.start();
    REQUIRE(wait_until([&] { return count_in(connection, "done") == 1; }));
    std::this_thread::sleep_for(300ms);  // several polls of both threads
    CHECK(paused_calls == 0);
    const queue::QueueStatus status = database.store().status(connection);
    const auto paused = std::find_if(status.handlers.begin(), status.handlers.end(),
                                     [](const auto& h) { return h.handler == "t.paused"; });
    REQUIRE(paused != status.handlers.end());
    CHECK(paused->paused);
    CHECK(paused->due == 4);
    CHECK(paused->oldest_due_age_us.value_or(0) >= 300'000);

    CHECK(database.store().resume(connection, "t.paused"));
    CHECK_FALSE(database.store().resume(connection, "t.paused"));
    REQUIRE(wait_until([&] { return count_in(connection, "done") == 5; }));
    pool.stop();
    CHECK(paused_calls == 4);
}

void dead_letters_are_requeued_after_a_fix_or_discarded(const std::string& name) {
    QueueDatabase database(name);
    odbc::Connection connection = database.connect();
    std::atomic<bool> fixed{false};
    auto handlers = std::make_shared<QueueHandlers>();
    handlers->add(registration("t.fragile", retry_policy(3, 10ms)), [&](Delivery&) {
        if (!fixed) {
            throw Error(ErrorCategory::DataError, "bad payload");
        }
    });
    std::vector<std::int64_t> ids{enqueue(database, connection, "t.fragile"),
                                  enqueue(database, connection, "t.fragile")};
    const std::int64_t keyed = enqueue(database, connection, "t.fragile", "k1");
    const std::int64_t behind = enqueue(database, connection, "t.fragile", "k1");
    const std::int64_t other_key = enqueue(database, connection, "t.fragile", "k2");

    WorkerPool pool(odbc_environment(), handlers, worker_options(database));
    pool.start();
    // The dead keyed message holds back the later one of its key, not the other key.
    REQUIRE(wait_until([&] { return count_in(connection, "dead") == 4; }));
    std::this_thread::sleep_for(200ms);
    CHECK(database.store().find(connection, behind)->state == MessageState::Ready);
    CHECK(count_in(connection, "dead") == 4);
    const queue::QueueStatus status = database.store().status(connection);
    REQUIRE(status.blocked_keys.size() == 2);
    CHECK(status.blocked_keys[0].key == "k1");
    CHECK(status.blocked_keys[0].dead_id == keyed);
    CHECK(status.blocked_keys[0].waiting == 1);
    CHECK(status.blocked_keys[1].waiting == 0);

    const std::vector<queue::Message> dead = database.store().dead(connection, "t.fragile", 10);
    REQUIRE(dead.size() == 4);
    CHECK(dead[0].last_error.category == "data_error");
    CHECK(dead[0].last_error.message == "bad payload");
    CHECK(dead[0].dead_reason == "non_retryable");

    // Discard one, refuse ids that are not dead.
    const queue::OperatorResult discarded =
        database.store().discard(connection, std::vector<std::int64_t>{other_key, 987654});
    CHECK(discarded.applied == std::vector<std::int64_t>{other_key});
    REQUIRE(discarded.rejected.size() == 1);
    CHECK(discarded.rejected[0].reason == "no such message");
    CHECK_FALSE(database.store().find(connection, other_key));

    fixed = true;
    ids.push_back(keyed);
    ids.push_back(behind);
    const queue::OperatorResult requeued = database.store().requeue(connection, ids, true);
    CHECK(requeued.applied == std::vector<std::int64_t>{ids[0], ids[1], keyed});
    REQUIRE(requeued.rejected.size() == 1);
    CHECK(requeued.rejected[0].id == behind);
    CHECK(requeued.rejected[0].reason == "it is ready, not dead");
    REQUIRE(wait_until([&] { return count_in(connection, "done") == 4; }));
    pool.stop();
    CHECK(database.store().find(connection, ids[0])->attempt == 1);  // reset, then one attempt
    CHECK(database.store().find(connection, behind)->attempt == 1);
    CHECK(database.store().dead(connection, "", 10).empty());
}

void an_expired_lease_is_reclaimed_as_a_lost_attempt(const std::string& name) {
    QueueDatabase database(name);
    odbc::Connection connection = database.connect();
    const std::int64_t id = enqueue(database, connection, "t.ok");
    connection.set_autocommit(false);
    const std::vector<std::string> handler{"t.ok"};
    REQUIRE(database.store().claim(connection, handler, 1, 50ms, "ghost/0/1").size() == 1);
    // A second claim finds nothing while the lease holds.
    CHECK(database.store().claim(connection, handler, 1, 50ms, "ghost/0/2").empty());
    connection.set_autocommit(true);
    std::this_thread::sleep_for(100ms);
    auto handlers = std::make_shared<QueueHandlers>();
    handlers->add(registration("t.ok", retry_policy(3, 10ms)), [](Delivery&) {});
    WorkerPool pool(odbc_environment(), handlers, worker_options(database, 1));
    pool.start();
    REQUIRE(wait_until([&] { return count_in(connection, "done") == 1; }));
    pool.stop();
    const auto message = database.store().find(connection, id);
    REQUIRE(message);
    CHECK(message->attempt == 2);
    CHECK(message->last_error.category == "connection_lost");
    CHECK_THAT(message->last_error.message, Contains("ghost/0/1 vanished during attempt 1"));
    CHECK(pool.metrics().expired_settled == 1);
    // The vanished worker's late completion changes nothing.
    CHECK_FALSE(database.store().complete(connection, id, "ghost/0/1", false));
}

void racing_workers_claim_disjoint_rows(const std::string& name) {
    QueueDatabase database(name);
    odbc::Connection connection = database.connect();
    connection.set_autocommit(false);
    constexpr int kMessages = 120;
    for (int i = 0; i < kMessages; ++i) {
        enqueue(database, connection, "t.race");
    }
    connection.commit();
    connection.set_autocommit(true);
    Rendezvous start(2);
    std::vector<std::int64_t> claimed[2];
    const auto race = [&](int worker) {
        odbc::Connection own = database.connect();
        own.set_autocommit(false);
        const std::vector<std::string> handler{"t.race"};
        start.arrive_and_wait();
        for (int round = 0; round < 200; ++round) {
            try {
                const auto batch = database.store().claim(
                    own, handler, 7, 60s,
                    "racer/" + std::to_string(worker) + "/" + std::to_string(round));
                if (batch.empty()) {
                    return;
                }
                for (const queue::Message& m : batch) {
                    claimed[worker].push_back(m.id);
                }
            } catch (const odbc::DatabaseError&) {
                own.rollback();  // SQLite: the other writer held the lock past the timeout
            }
        }
    };
    std::thread first(race, 0);
    std::thread second(race, 1);
    first.join();
    second.join();
    std::multiset<std::int64_t> all(claimed[0].begin(), claimed[0].end());
    all.insert(claimed[1].begin(), claimed[1].end());
    CHECK(all.size() == kMessages);
    CHECK(std::set<std::int64_t>(all.begin(), all.end()).size() == kMessages);
    CHECK(count_in(connection, "leased") == kMessages);
    CHECK(query_int(connection, "SELECT MIN(attempt) FROM rebound_queue_messages") == 1);
}

// A grouped handler (no row lock during its attempt) that runs three leases long on its first
// delivery, while a second pool of the same handler settles expired leases and claims. With
// renewal the first pool keeps the message: one delivery, nothing settled, nothing lost. Without
// it the second pool settles the lease as lost and delivers the message again.
void a_long_handler_keeps_its_message_while_its_lease_is_renewed(const std::string& name,
                                                                 bool renew) {
    QueueDatabase database(name);
    odbc::Connection connection = database.connect();
    const std::int64_t id = enqueue(database, connection, "t.slow");
    std::atomic<int> deliveries{0};
    auto handlers = std::make_shared<QueueHandlers>();
    handlers->add(
        registration("t.slow", retry_policy(5, 1ms)),
        [&](Delivery&) {
            if (deliveries.fetch_add(1) == 0) {
                std::this_thread::sleep_for(1600ms);
            }
        },
        queue::Completion::Grouped);
    WorkerOptions options = worker_options(database, 1);
    options.lease = 500ms;
    options.batch = 1;
    options.renew_leases = renew;
    WorkerPool first(odbc_environment(), handlers, options);
    first.start();
    REQUIRE(wait_until([&] { return deliveries.load() == 1; }));
    options.name = "other";
    WorkerPool second(odbc_environment(), handlers, options);
    second.start();
    REQUIRE(wait_until([&] { return count_in(connection, "done") == 1; }));
    // The first pool's grouped completion comes after its handler returned.
    std::this_thread::sleep_for(2000ms);
    second.stop();
    first.stop();
    const auto message = database.store().find(connection, id);
    REQUIRE(message);
    CHECK(message->state == MessageState::Done);
    if (renew) {
        CHECK(deliveries.load() == 1);
        CHECK(message->attempt == 1);
        CHECK(first.metrics().renewed_leases >= 2);
        CHECK(first.metrics().lost_leases == 0);
        CHECK(first.metrics().succeeded == 1);
        CHECK(second.metrics().expired_settled == 0);
        CHECK(second.metrics().claimed == 0);
        const std::string exposed = queue::render_worker_metrics(first.metrics());
        CHECK_THAT(exposed,
                   Contains("rebound_queue_worker_messages_total{outcome=\"succeeded\"} 1\n"));
        CHECK_THAT(exposed, Contains("# TYPE rebound_queue_retry_lateness_seconds summary\n"));
        CHECK_THAT(exposed, Contains("\nrebound_queue_retry_lateness_seconds_count 0\n"));
    } else {
        CHECK(deliveries.load() == 2);
        CHECK(message->attempt == 2);
        CHECK(message->last_error.category == "connection_lost");
        CHECK(second.metrics().expired_settled + first.metrics().expired_settled == 1);
        CHECK(first.metrics().lost_leases + second.metrics().lost_leases == 1);
    }
}

// The outcome of a failed grouped attempt is written once the claim's grouped attempts have run,
// so that they do not wait for its round trip: the next grouped attempt of the claim still sees
// the failed message leased. A non-grouped attempt of the claim (a transaction of its own) comes
// after it is written; the retry and the dead letter are then as for any failure.
void grouped_failures_are_written_after_the_claims_attempts(const std::string& name) {
    QueueDatabase database(name);
    odbc::Connection connection = database.connect();
    odbc::Connection observer = database.connect();
    std::int64_t failing = 0;
    std::vector<MessageState> seen;  // the failed message, from the later attempts of its claim
    const auto look = [&] {
        const auto message = database.store().find(observer, failing);
        if (!observer.autocommit()) {
            observer.commit();
        }
        seen.push_back(message ? message->state : MessageState::Done);
    };
    auto handlers = std::make_shared<QueueHandlers>();
    handlers->add(
        registration("t.grouped-fails", retry_policy(2, 10ms)),
        [](Delivery&) { throw Error(ErrorCategory::ServiceUnavailable, "still down"); },
        queue::Completion::Grouped);
    handlers->add(
        registration("t.grouped-ok", retry_policy(2, 10ms)), [&](Delivery&) { look(); },
        queue::Completion::Grouped);
    handlers->add(registration("t.written", retry_policy(2, 10ms)), [&](Delivery&) { look(); });
    failing = enqueue(database, connection, "t.grouped-fails");
    const std::int64_t grouped = enqueue(database, connection, "t.grouped-ok");
    const std::int64_t written = enqueue(database, connection, "t.written");

    WorkerPool pool(odbc_environment(), handlers, worker_options(database, 1));  // one claim
    pool.start();
    REQUIRE(wait_until(
        [&] { return count_in(connection, "done") == 2 && count_in(connection, "dead") == 1; }));
    pool.stop();

    CHECK(seen == std::vector<MessageState>{MessageState::Leased, MessageState::Ready});
    const auto failed = database.store().find(connection, failing);
    REQUIRE(failed);
    CHECK(failed->state == MessageState::Dead);
    CHECK(failed->attempt == 2);
    CHECK(failed->dead_reason == "exhausted");
    CHECK(failed->last_error.message == "still down");
    CHECK(database.store().find(connection, grouped)->state == MessageState::Done);
    CHECK(database.store().find(connection, written)->state == MessageState::Done);
    CHECK(pool.metrics().retried == 1);
    CHECK(pool.metrics().dead == 1);
    CHECK(pool.metrics().succeeded == 2);
}

// Idle workers sleep until the next message of theirs falls due (a delayed enqueue: the database
// says when; a retry the pool wrote: the pool's own schedule), not until the next poll: with a
// 30 s poll interval both attempts must start within seconds of their due_at. Stopping wakes them
// too, or the test would last 30 s.
void idle_workers_wake_when_messages_fall_due(const std::string& name) {
    QueueDatabase database(name);
    odbc::Connection connection = database.connect();
    std::mutex mutex;
    std::vector<AttemptRecord> attempts;
    auto handlers = std::make_shared<QueueHandlers>();
    handlers->add(registration("t.wake", retry_policy(3, 300ms)), [&](Delivery& d) {
        const std::lock_guard lock(mutex);
        attempts.push_back({d.message.attempt, d.message.claimed_at.value_or(0), d.message.due_at,
                            database.store().now(d.connection)});
        if (d.message.attempt == 1) {
            throw Error(ErrorCategory::ServiceUnavailable, "first attempt");
        }
    });
    // Due in 400 ms: the workers' first claims find nothing due.
    database.store().enqueue(connection, NewMessage{.handler = "t.wake", .delay = 400ms});
    WorkerOptions options = worker_options(database);
    options.poll_interval = 30s;
    WorkerPool pool(odbc_environment(), handlers, options);
    pool.start();
    const bool done = wait_until([&] { return count_in(connection, "done") == 1; }, 15s);
    const auto stop_started = std::chrono::steady_clock::now();
    pool.stop();
    CHECK(std::chrono::steady_clock::now() - stop_started < 5s);
    REQUIRE(done);
    REQUIRE(attempts.size() == 2);
    for (const AttemptRecord& attempt : attempts) {
        INFO("attempt " << attempt.attempt);
        CHECK(attempt.claimed_at >= attempt.due_at);
        CHECK(attempt.claimed_at - attempt.due_at < 5'000'000);  // the poll would be 30 s late
    }
    CHECK(pool.metrics().retry_lateness.count() == 1);
}

#define QUEUE_SCENARIOS(database)                                                                 \
    TEST_CASE("queue " database ": migrations are versioned and idempotent", "[" database "]") {  \
        migrations_are_versioned_and_idempotent(database);                                        \
    }                                                                                             \
    TEST_CASE("queue " database ": an outbox message exists only if its transaction commits",     \
              "[" database "]") {                                                                 \
        outbox_message_exists_only_if_the_transaction_commits(database);                          \
    }                                                                                             \
    TEST_CASE("queue " database ": failures retry at their due time or are dead-lettered",        \
              "[" database "]") {                                                                 \
        failures_are_retried_at_their_due_time_or_dead_lettered(database);                        \
    }                                                                                             \
    TEST_CASE("queue " database ": per-key order holds under retries", "[" database "]") {        \
        per_key_order_holds_under_retries(database);                                              \
    }                                                                                             \
    TEST_CASE("queue " database ": a paused handler waits until resumed", "[" database "]") {     \
        a_paused_handler_waits_until_resumed(database);                                           \
    }                                                                                             \
    TEST_CASE("queue " database ": dead letters are requeued after a fix or discarded",           \
              "[" database "]") {                                                                 \
        dead_letters_are_requeued_after_a_fix_or_discarded(database);                             \
    }                                                                                             \
    TEST_CASE("queue " database ": an expired lease is reclaimed as a lost attempt",              \
              "[" database "]") {                                                                 \
        an_expired_lease_is_reclaimed_as_a_lost_attempt(database);                                \
    }                                                                                             \
    TEST_CASE("queue " database ": racing workers claim disjoint rows", "[" database "]") {       \
        racing_workers_claim_disjoint_rows(database);                                             \
    }                                                                                             \
    TEST_CASE("queue " database ": a renewed lease keeps a long handler's message",               \
              "[" database "]") {                                                                 \
        a_long_handler_keeps_its_message_while_its_lease_is_renewed(database, true);              \
    }                                                                                             \
    TEST_CASE("queue " database ": without renewal a long handler's message is delivered again",  \
              "[" database "]") {                                                                 \
        a_long_handler_keeps_its_message_while_its_lease_is_renewed(database, false);             \
    }                                                                                             \
    TEST_CASE("queue " database ": grouped failures are written after the claim's attempts",      \
              "[" database "]") {                                                                 \
        grouped_failures_are_written_after_the_claims_attempts(database);                         \
    }                                                                                             \
    TEST_CASE("queue " database ": idle workers wake when messages fall due", "[" database "]") { \
        idle_workers_wake_when_messages_fall_due(database);                                       \
    }

QUEUE_SCENARIOS("sqlite")
QUEUE_SCENARIOS("postgresql")
QUEUE_SCENARIOS("mariadb")

}  // namespace
}  // namespace rebound::testing
