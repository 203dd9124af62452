// PostgreSQL 15 through psqlODBC: every failure provoked for real against the server started by
// database-server.sh (ctest fixture postgresql:start_server).
#include <catch2/catch.hpp>

#include "database_test_support.hpp"
#include "long_values.hpp"
#include "rebound/odbc/transactional_runner.hpp"
#include "server_scenarios.hpp"

namespace rebound::testing {
namespace {

const ServerDialect kPostgreSql = postgresql_dialect();

TEST_CASE("postgresql: the driver reports PostgreSQL", "[postgresql]") {
    odbc::Connection connection = open_connection(server_connection_string("postgresql"));
    CHECK(connection.dbms_name() == "PostgreSQL");
    CHECK(connection.vendor() == Vendor::PostgreSql);
}

TEST_CASE("postgresql: every diagnostic record is read, up to the cap", "[postgresql]") {
    every_diagnostic_record_is_read_and_capped(kPostgreSql);
}

TEST_CASE("postgresql: a deadlock victim is retried and both transactions commit once",
          "[postgresql]") {
    deadlock_victim_is_retried_and_both_commit_once(kPostgreSql);
}

TEST_CASE("postgresql: a serialization failure is retried", "[postgresql]") {
    odbc::Connection admin = open_connection(server_connection_string("postgresql"));
    admin.execute("DROP TABLE IF EXISTS rb_serializable");
    admin.execute("CREATE TABLE rb_serializable (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)");
    admin.execute("INSERT INTO rb_serializable VALUES (1, 0)");
    odbc::Connection connection = open_connection(server_connection_string("postgresql"));
    odbc::TransactionOptions options;
    options.handler = "serializable";
    options.isolation = odbc::IsolationLevel::Serializable;
    const odbc::TransactionReport report = odbc::TransactionalRunner().run(
        connection, *fast_policy(), options,
        [&](odbc::Connection& c, const odbc::TransactionAttempt& attempt) {
            // The snapshot is taken here; a concurrent committed update to the same row then
            // makes this transaction's update a serialization failure.
            c.query("SELECT value FROM rb_serializable WHERE id = 1");
            if (attempt.number == 1) {
                admin.execute("UPDATE rb_serializable SET value = value + 10 WHERE id = 1");
            }
            c.execute("UPDATE rb_serializable SET value = value + 1 WHERE id = 1");
        });
    CAPTURE(report.attempts);
    CHECK(report.succeeded());
    CHECK(report.attempts == 2);
    REQUIRE(report.failures.size() == 1);
    INFO(report.failures[0].failure.summary());
    CHECK(report.failures[0].failure.category == ErrorCategory::SerializationFailure);
    CHECK(report.failures[0].failure.sqlstate == "40001");
    CHECK(admin.query_value("SELECT value FROM rb_serializable WHERE id = 1") == "11");
}

// psqlODBC answers SQL_NO_DATA to an UPDATE ... RETURNING that matches no row; the statement must
// still be closed so that the commit after it finds no open cursor (it failed with SQLSTATE 24000).
TEST_CASE("postgresql: an UPDATE RETURNING that matches no row leaves the transaction usable",
          "[postgresql]") {
    odbc::Connection connection = open_connection(server_connection_string("postgresql"));
    connection.execute("DROP TABLE IF EXISTS rb_returning");
    connection.execute("CREATE TABLE rb_returning (id INTEGER PRIMARY KEY, value INTEGER)");
    connection.execute("INSERT INTO rb_returning VALUES (1, 0)");
    connection.set_autocommit(false);
    CHECK(connection.query("UPDATE rb_returning SET value = 5 WHERE id = 2 RETURNING id").empty());
    CHECK_NOTHROW(connection.commit());
    const auto rows =
        connection.query("UPDATE rb_returning SET value = 7 WHERE id = 1 RETURNING value");
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].at(0) == "7");
    CHECK(connection.query("DELETE FROM rb_returning WHERE id = 3 RETURNING id").empty());
    CHECK_NOTHROW(connection.commit());
    // The same through a prepared statement, twice.
    for (int run = 0; run < 2; ++run) {
        CHECK(connection
                  .query_prepared("UPDATE rb_returning SET value = ? WHERE id = ? RETURNING id",
                                  {std::int64_t{9}, std::int64_t{4}})
                  .empty());
        CHECK_NOTHROW(connection.commit());
    }
    connection.set_autocommit(true);
    CHECK(connection.query_value("SELECT value FROM rb_returning WHERE id = 1") == "7");
}

TEST_CASE("postgresql: a lock timeout is retried", "[postgresql]") {
    lock_timeout_is_retried(kPostgreSql);
}

TEST_CASE("postgresql: a NOWAIT lock failure is retried", "[postgresql]") {
    nowait_is_retried(kPostgreSql);
}

TEST_CASE("postgresql: a statement timeout is not retried by default", "[postgresql]") {
    statement_timeout_is_not_retried(kPostgreSql);
}

TEST_CASE("postgresql: a terminated backend is retried on a fresh connection", "[postgresql]") {
    killed_connection_is_retried_on_a_fresh_session(kPostgreSql);
}

TEST_CASE("postgresql: an unrecognised error on a killed session is connection_lost",
          "[postgresql]") {
    unrecognised_error_on_a_killed_session_is_connection_lost(kPostgreSql);
}

TEST_CASE("postgresql: a constraint violation is not retried", "[postgresql]") {
    constraint_violation_is_not_retried(kPostgreSql);
}

TEST_CASE("postgresql: a syntax error is not retried", "[postgresql]") {
    syntax_error_is_not_retried(kPostgreSql);
}

TEST_CASE("postgresql: commit_outcome_unknown is not retried for a non-idempotent handler",
          "[postgresql]") {
    commit_outcome_unknown_is_not_retried_without_idempotency(kPostgreSql);
}

TEST_CASE("postgresql: the dedup table returns the first result", "[postgresql]") {
    dedup_table_returns_the_first_result(kPostgreSql);
}

TEST_CASE("postgresql: an idempotent handler retries commit_outcome_unknown, dedup keeps it once",
          "[postgresql]") {
    idempotent_commit_outcome_unknown_is_retried_with_dedup(kPostgreSql);
}

TEST_CASE("postgresql: long text is read whole in linear time", "[postgresql]") {
    odbc::Connection connection = open_connection(server_connection_string("postgresql"));
    long_text_is_read_whole_in_few_calls(connection, "TEXT");
}

}  // namespace
}  // namespace rebound::testing
