// SQLite 3 through sqliteodbc, on a fresh database file per test (busy timeout 0).
//
// Cases of the server databases that cannot happen here, and are therefore not run:
//  - deadlock and serialization failure: SQLite lets one writer in at a time; a second writer
//    gets SQLITE_BUSY ("database is locked", covered below), never a deadlock victim or a
//    snapshot conflict;
//  - NOWAIT: SQLite has no row locks and no NOWAIT; with busy timeout 0 every lock request is
//    "no wait", which is the "database is locked" case; a lock timeout is the same error after
//    the busy timeout;
//  - statement timeout: SQLite has no server-side statement time limit;
//  - a killed connection and commit_outcome_unknown: SQLite runs inside the process; there is
//    no connection to lose between the client and the database.
#include <catch2/catch.hpp>

#include "database_test_support.hpp"
#include "long_values.hpp"
#include "rebound/odbc/command_deduplication.hpp"
#include "rebound/odbc/transactional_runner.hpp"

namespace rebound::testing {
namespace {

using odbc::Connection;
using odbc::TransactionAttempt;
using odbc::TransactionOutcome;
using odbc::TransactionReport;

void create_table(Connection& connection) {
    connection.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)");
    connection.execute("INSERT INTO items (id, value) VALUES (1, 0), (2, 0)");
}

TEST_CASE("sqlite: the driver reports SQLite", "[sqlite]") {
    TemporarySqliteDatabase database;
    Connection connection = open_connection(database.connection_string());
    CHECK(connection.vendor() == Vendor::Sqlite);
    INFO(connection.dbms_name());
    CHECK(connection.dbms_name() == "SQLite");
}

// Moves hand over the session with its settings; a move-assigned connection first closes its own
// session (its open transaction is rolled back) and the moved-from one is closed.
TEST_CASE("sqlite: a moved connection keeps its session and settings", "[sqlite]") {
    TemporarySqliteDatabase database;
    Connection first = open_connection(database.connection_string());
    create_table(first);
    first.set_autocommit(false);
    first.execute("UPDATE items SET value = 5 WHERE id = 1");

    Connection moved(std::move(first));
    CHECK_FALSE(first.is_open());  // NOLINT(bugprone-use-after-move): the contract under test
    REQUIRE(moved.is_open());
    CHECK_FALSE(moved.autocommit());
    moved.commit();  // the transaction opened before the move

    Connection other = open_connection(database.connection_string());
    other.set_autocommit(false);
    other.execute("UPDATE items SET value = 7 WHERE id = 2");
    other = std::move(moved);      // closes other's session: its update is rolled back
    CHECK_FALSE(moved.is_open());  // NOLINT(bugprone-use-after-move): the contract under test
    REQUIRE(other.is_open());
    CHECK_FALSE(other.autocommit());
    CHECK(other.query_value("SELECT value FROM items WHERE id = 1") == "5");
    CHECK(other.query_value("SELECT value FROM items WHERE id = 2") == "0");
    other.rollback();
}

// A prepared statement runs again with new parameters; more distinct statements than the cache
// holds still run; a failed run reports the classified error and the statement runs again; the
// cache does not outlive the session (reconnect, move assignment).
TEST_CASE("sqlite: prepared statements run again with new parameters", "[sqlite]") {
    TemporarySqliteDatabase database;
    Connection connection = open_connection(database.connection_string());
    create_table(connection);
    const std::string insert = "INSERT INTO items (id, value) VALUES (?, ?)";
    const std::string select = "SELECT value FROM items WHERE id = ?";
    for (std::int64_t id = 3; id < 8; ++id) {
        CHECK(connection.execute_prepared(insert, {id, id * 10}) == 1);
    }
    CHECK(connection.query_prepared(select, {std::int64_t{5}}) ==
          std::vector<odbc::SqlRow>{{"50"}});
    CHECK(connection.query_prepared(select, {std::int64_t{42}}).empty());
    for (std::size_t i = 0; i < odbc::PreparedStatements::kCapacity + 4; ++i) {
        const auto rows = connection.query_prepared(
            "SELECT COUNT(*) + " + std::to_string(i) + " FROM items WHERE value >= ?",
            {std::int64_t{40}});
        REQUIRE(rows.size() == 1);
        CHECK(rows[0][0] == std::to_string(4 + i));  // ids 4 to 7
    }
    try {
        connection.execute_prepared(insert, {std::int64_t{3}, std::int64_t{1}});
        FAIL("a duplicate key was inserted");
    } catch (const odbc::DatabaseError& error) {
        CHECK(error.category() == ErrorCategory::ConstraintViolation);
    }
    CHECK(connection.execute_prepared(insert, {std::int64_t{8}, std::int64_t{80}}) == 1);
    try {
        connection.query_prepared("SELEC value FROM items", {});
        FAIL("a statement with a syntax error was prepared");
    } catch (const odbc::DatabaseError& error) {
        CHECK(error.category() == ErrorCategory::SyntaxError);
    }
    connection.reconnect();
    CHECK(connection.query_prepared(select, {std::int64_t{8}}) ==
          std::vector<odbc::SqlRow>{{"80"}});
    Connection other = open_connection(database.connection_string());
    CHECK(other.query_prepared(select, {std::int64_t{3}}) == std::vector<odbc::SqlRow>{{"30"}});
    other = std::move(connection);
    CHECK(other.query_prepared(select, {std::int64_t{4}}) == std::vector<odbc::SqlRow>{{"40"}});
    CHECK(other.execute_prepared("UPDATE items SET value = ? WHERE id = ?",
                                 {std::int64_t{1}, std::int64_t{99}}) == 0);
}

TEST_CASE("sqlite: database is locked is retried", "[sqlite]") {
    TemporarySqliteDatabase database;
    Connection admin = open_connection(database.connection_string());
    create_table(admin);
    // A second connection holds the write lock in an open transaction.
    Connection holder = open_connection(database.connection_string());
    holder.set_autocommit(false);
    holder.execute("UPDATE items SET value = value + 100 WHERE id = 2");

    Connection connection = open_connection(database.connection_string());
    const TransactionReport report = odbc::TransactionalRunner().run(
        connection, *fast_policy(), {.handler = "locked"},
        [&](Connection& c, const TransactionAttempt& attempt) {
            if (attempt.number == 2) {
                holder.rollback();
            }
            c.execute("UPDATE items SET value = value + 1 WHERE id = 1");
        });
    INFO((report.failures.empty() ? std::string() : report.failures[0].failure.summary()));
    CHECK(report.succeeded());
    CHECK(report.attempts == 2);
    REQUIRE(report.failures.size() == 1);
    const odbc::DatabaseFailure& failure = report.failures[0].failure;
    REQUIRE(failure.primary() != nullptr);
    CHECK(failure.primary()->native_code == 5);  // SQLITE_BUSY
    CHECK(failure.category == ErrorCategory::LockTimeout);
    CHECK(report.failures[0].rolled_back);
    CHECK(admin.query_value("SELECT value FROM items WHERE id = 1") == "1");
    CHECK(admin.query_value("SELECT value FROM items WHERE id = 2") == "0");
}

TEST_CASE("sqlite: a constraint violation is not retried", "[sqlite]") {
    TemporarySqliteDatabase database;
    Connection connection = open_connection(database.connection_string());
    create_table(connection);
    int calls = 0;
    const TransactionReport report = odbc::TransactionalRunner().run(
        connection, *fast_policy(), {.handler = "constraint"},
        [&](Connection& c, const TransactionAttempt&) {
            ++calls;
            c.execute("INSERT INTO items (id, value) VALUES (1, 5)");
        });
    CHECK(report.outcome == TransactionOutcome::NonRetryable);
    CHECK(calls == 1);
    REQUIRE(report.failures.size() == 1);
    INFO(report.failures[0].failure.summary());
    CHECK(report.failures[0].failure.category == ErrorCategory::ConstraintViolation);
}

TEST_CASE("sqlite: a syntax error is not retried", "[sqlite]") {
    TemporarySqliteDatabase database;
    Connection connection = open_connection(database.connection_string());
    for (const char* sql : {"SELEC 1", "SELECT * FROM no_such_table"}) {
        int calls = 0;
        const TransactionReport report =
            odbc::TransactionalRunner().run(connection, *fast_policy(), {.handler = "syntax"},
                                            [&](Connection& c, const TransactionAttempt&) {
                                                ++calls;
                                                c.query(sql);
                                            });
        CHECK(report.outcome == TransactionOutcome::NonRetryable);
        CHECK(calls == 1);
        REQUIRE(report.failures.size() == 1);
        INFO(sql << ": " << report.failures[0].failure.summary());
        CHECK(report.failures[0].failure.category == ErrorCategory::SyntaxError);
    }
}

TEST_CASE("sqlite: the dedup table returns the first result", "[sqlite]") {
    TemporarySqliteDatabase database;
    Connection connection = open_connection(database.connection_string());
    create_table(connection);
    const odbc::CommandDeduplication commands;
    commands.create_table(connection);
    int work_done = 0;
    const auto place = [&](const std::string& command_id) {
        return odbc::TransactionalRunner().run(
            connection, *fast_policy(), {.handler = "orders.place", .idempotent = true},
            [&](Connection& c, const TransactionAttempt&) {
                return commands.run_once(c, command_id, [&] {
                    ++work_done;
                    c.execute("UPDATE items SET value = value + 1 WHERE id = 1");
                    return "order-" + c.query_value("SELECT value FROM items WHERE id = 1").value();
                });
            });
    };
    const auto first = place("command-1");
    const auto repeated = place("command-1");
    REQUIRE(first.succeeded());
    REQUIRE(repeated.succeeded());
    CHECK(*first.value == "order-1");
    CHECK(*repeated.value == "order-1");
    CHECK(work_done == 1);
    CHECK(connection.query_value("SELECT value FROM items WHERE id = 1") == "1");
}

TEST_CASE("sqlite: a failed attempt is rolled back before the retry", "[sqlite]") {
    TemporarySqliteDatabase database;
    Connection connection = open_connection(database.connection_string());
    create_table(connection);
    const TransactionReport report = odbc::TransactionalRunner().run(
        connection, *fast_policy(), {.handler = "partial"},
        [&](Connection& c, const TransactionAttempt&) {
            c.execute("UPDATE items SET value = value + 1 WHERE id = 1");
            c.execute("INSERT INTO items (id, value) VALUES (2, 0)");  // fails: duplicate key
        });
    CHECK(report.outcome == TransactionOutcome::NonRetryable);
    REQUIRE(report.failures.size() == 1);
    CHECK(report.failures[0].rolled_back);
    CHECK(connection.query_value("SELECT value FROM items WHERE id = 1") == "0");
}

TEST_CASE("sqlite: long text is read whole in linear time", "[sqlite]") {
    TemporarySqliteDatabase database;
    Connection connection = open_connection(database.connection_string());
    long_text_is_read_whole_in_few_calls(connection, "TEXT");
}

}  // namespace
}  // namespace rebound::testing
