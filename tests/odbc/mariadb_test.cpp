// MariaDB 10.11 through MariaDB Connector/ODBC: every failure provoked for real against the
// server started by database-server.sh (ctest fixture mariadb:start_server).
#include <catch2/catch.hpp>

#include "database_test_support.hpp"
#include "long_values.hpp"
#include "server_scenarios.hpp"

namespace rebound::testing {
namespace {

const ServerDialect kMariaDb = mariadb_dialect();

TEST_CASE("mariadb: the driver reports MariaDB", "[mariadb]") {
    odbc::Connection connection = open_connection(server_connection_string("mariadb"));
    CHECK(connection.vendor() == Vendor::MySql);
    INFO(connection.dbms_name());
    CHECK((connection.dbms_name() == "MariaDB" || connection.dbms_name() == "MySQL"));
}

TEST_CASE("mariadb: every diagnostic record is read, up to the cap", "[mariadb]") {
    every_diagnostic_record_is_read_and_capped(kMariaDb);
}

TEST_CASE("mariadb: a deadlock victim is retried and both transactions commit once", "[mariadb]") {
    deadlock_victim_is_retried_and_both_commit_once(kMariaDb);
}

// No serialization-failure case: InnoDB's SERIALIZABLE is lock-based in MariaDB 10.11 (no
// snapshot-conflict error; innodb_snapshot_isolation arrived in 11.6), so its conflicts surface as
// the deadlock and lock-wait cases above and below.

TEST_CASE("mariadb: a lock wait timeout is retried", "[mariadb]") {
    lock_timeout_is_retried(kMariaDb);
}

TEST_CASE("mariadb: a NOWAIT lock failure is retried", "[mariadb]") {
    nowait_is_retried(kMariaDb);
}

TEST_CASE("mariadb: a statement timeout is not retried by default", "[mariadb]") {
    statement_timeout_is_not_retried(kMariaDb);
}

TEST_CASE("mariadb: a killed connection is retried on a fresh connection", "[mariadb]") {
    killed_connection_is_retried_on_a_fresh_session(kMariaDb);
}

TEST_CASE("mariadb: an unrecognised error on a killed session is connection_lost", "[mariadb]") {
    unrecognised_error_on_a_killed_session_is_connection_lost(kMariaDb);
}

TEST_CASE("mariadb: a constraint violation is not retried", "[mariadb]") {
    constraint_violation_is_not_retried(kMariaDb);
}

TEST_CASE("mariadb: a syntax error is not retried", "[mariadb]") {
    syntax_error_is_not_retried(kMariaDb);
}

TEST_CASE("mariadb: commit_outcome_unknown is not retried for a non-idempotent handler",
          "[mariadb]") {
    commit_outcome_unknown_is_not_retried_without_idempotency(kMariaDb);
}

TEST_CASE("mariadb: the dedup table returns the first result", "[mariadb]") {
    dedup_table_returns_the_first_result(kMariaDb);
}

TEST_CASE("mariadb: an idempotent handler retries commit_outcome_unknown, dedup keeps it once",
          "[mariadb]") {
    idempotent_commit_outcome_unknown_is_retried_with_dedup(kMariaDb);
}

TEST_CASE("mariadb: long text is read whole in linear time", "[mariadb]") {
    odbc::Connection connection = open_connection(server_connection_string("mariadb"));
    long_text_is_read_whole_in_few_calls(connection, "LONGTEXT");
}

}  // namespace
}  // namespace rebound::testing
