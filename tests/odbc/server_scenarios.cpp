#include "server_scenarios.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "database_test_support.hpp"
#include "rebound/odbc/command_deduplication.hpp"
#include "rebound/odbc/diagnostic_record.hpp"
#include "rebound/odbc/transactional_runner.hpp"

namespace rebound::testing {

using odbc::Connection;
using odbc::TransactionAttempt;
using odbc::TransactionOutcome;
using odbc::TransactionReport;

ServerDialect postgresql_dialect() {
    return {"postgresql",
            "SELECT pg_backend_pid()",
            "SELECT pg_terminate_backend(",
            "SELECT pg_sleep(3)",
            "SET LOCAL lock_timeout = '200ms'",
            "SELECT count(*) FROM pg_stat_activity WHERE pid = ?",
            "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> "
            "pg_backend_pid()"};
}

ServerDialect mariadb_dialect() {
    return {"mariadb", "SELECT CONNECTION_ID()", "KILL ", "SELECT SLEEP(3)",
            // InnoDB's smallest lock wait timeout is one second.
            "SET SESSION innodb_lock_wait_timeout = 1",
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?",
            // The tests' own user: not the server's internal threads.
            "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = 'rebound' AND ID <> "
            "CONNECTION_ID()"};
}

namespace {

Connection connect(const ServerDialect& dialect) {
    return open_connection(server_connection_string(dialect.database));
}

// A table `name` (id, value) holding rows (1, 0) and (2, 0), created afresh.
void reset_table(Connection& admin, const std::string& name) {
    admin.execute("DROP TABLE IF EXISTS " + name);
    admin.execute("CREATE TABLE " + name + " (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)");
    admin.execute("INSERT INTO " + name + " (id, value) VALUES (1, 0), (2, 0)");
}

std::int64_t scalar(Connection& connection, const std::string& sql) {
    const std::optional<std::string> value = connection.query_value(sql);
    REQUIRE(value.has_value());
    return std::stoll(*value);
}

std::string describe(const TransactionReport& report) {
    std::string text = std::string(rebound::to_string(report.outcome)) + " after " +
                       std::to_string(report.attempts) + " attempt(s)";
    for (const odbc::AttemptFailure& failure : report.failures) {
        text += "\n  attempt " + std::to_string(failure.attempt) + ": " +
                failure.failure.summary() + " [" + failure.failure.matched + "]";
    }
    return text;
}

bool is_connection_scope(ErrorCategory category) {
    return restart_scope(category) == RestartScope::Connection;
}

}  // namespace

bool kill_session(Connection& killer, const ServerDialect& dialect, const std::string& id) {
    killer.execute(dialect.kill_session_prefix + id +
                   (dialect.database == "postgresql" ? ")" : ""));
    for (int i = 0; i < 200; ++i) {
        const std::optional<std::string> count =
            killer.query_value(dialect.session_exists_query, {std::stoll(id)});
        if (count == "0") {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

void deadlock_victim_is_retried_and_both_commit_once(const ServerDialect& dialect) {
    Connection admin = connect(dialect);
    reset_table(admin, "rb_deadlock");
    admin.execute("DROP TABLE IF EXISTS rb_deadlock_log");
    admin.execute("CREATE TABLE rb_deadlock_log (name VARCHAR(20) PRIMARY KEY)");

    const auto policy = fast_policy();
    const odbc::TransactionalRunner runner;
    Rendezvous both_hold_their_first_lock(2);
    // Each thread locks its first row, waits until the other holds its own, then asks for the
    // other's row: a lock cycle the server must break by choosing a victim.
    const auto transfer = [&](const std::string& name, int first, int second) {
        Connection connection = connect(dialect);
        return runner.run(connection, *policy, {.handler = "deadlock." + name},
                          [&](Connection& c, const TransactionAttempt& attempt) {
                              c.execute("UPDATE rb_deadlock SET value = value + 1 WHERE id = ?",
                                        {std::int64_t{first}});
                              if (attempt.number == 1) {
                                  both_hold_their_first_lock.arrive_and_wait();
                              }
                              c.execute("UPDATE rb_deadlock SET value = value + 1 WHERE id = ?",
                                        {std::int64_t{second}});
                              c.execute("INSERT INTO rb_deadlock_log (name) VALUES (?)", {name});
                          });
    };
    TransactionReport left;
    TransactionReport right;
    std::thread left_thread([&] { left = transfer("left", 1, 2); });
    std::thread right_thread([&] { right = transfer("right", 2, 1); });
    left_thread.join();
    right_thread.join();
    INFO("left: " << describe(left));
    INFO("right: " << describe(right));

    CHECK(left.succeeded());
    CHECK(right.succeeded());
    // Exactly one victim, retried once; the other committed on its first attempt.
    CHECK(left.failures.size() + right.failures.size() == 1);
    const TransactionReport& victim = left.failures.empty() ? right : left;
    REQUIRE(victim.failures.size() == 1);
    CHECK(victim.failures[0].failure.category == ErrorCategory::Deadlock);
    CHECK(victim.failures[0].rolled_back);
    CHECK(victim.failures[0].decision.retry);
    CHECK(victim.attempts == 2);
    // Both transactions committed exactly once.
    CHECK(scalar(admin, "SELECT value FROM rb_deadlock WHERE id = 1") == 2);
    CHECK(scalar(admin, "SELECT value FROM rb_deadlock WHERE id = 2") == 2);
    CHECK(scalar(admin, "SELECT COUNT(*) FROM rb_deadlock_log") == 2);
}

namespace {

// Another session holds row 1 of `table`; attempt 1 runs `locking_statement` and fails on the
// lock, attempt 2 runs after the holder rolled back.
void check_lock_failure_is_retried(const ServerDialect& dialect, const std::string& table,
                                   const std::string& locking_statement) {
    Connection admin = connect(dialect);
    reset_table(admin, table);
    Connection holder = connect(dialect);
    holder.set_autocommit(false);
    holder.execute("UPDATE " + table + " SET value = value WHERE id = 1");

    Connection connection = connect(dialect);
    const odbc::TransactionalRunner runner;
    const TransactionReport report =
        runner.run(connection, *fast_policy(), {.handler = "lock"},
                   [&](Connection& c, const TransactionAttempt& attempt) {
                       if (attempt.number == 1) {
                           c.execute(dialect.short_lock_wait);
                       } else {
                           holder.rollback();
                       }
                       c.query(locking_statement);
                       c.execute("UPDATE " + table + " SET value = value + 1 WHERE id = 1");
                   });
    INFO(describe(report));
    CHECK(report.succeeded());
    CHECK(report.attempts == 2);
    REQUIRE(report.failures.size() == 1);
    CHECK(report.failures[0].failure.category == ErrorCategory::LockTimeout);
    CHECK(report.failures[0].failure.phase == DatabasePhase::Execute);
    CHECK(scalar(admin, "SELECT value FROM " + table + " WHERE id = 1") == 1);
}

}  // namespace

void lock_timeout_is_retried(const ServerDialect& dialect) {
    check_lock_failure_is_retried(dialect, "rb_lock_timeout",
                                  "SELECT value FROM rb_lock_timeout WHERE id = 1 FOR UPDATE");
}

void nowait_is_retried(const ServerDialect& dialect) {
    check_lock_failure_is_retried(dialect, "rb_nowait",
                                  "SELECT value FROM rb_nowait WHERE id = 1 FOR UPDATE NOWAIT");
}

void statement_timeout_is_not_retried(const ServerDialect& dialect) {
    // The runner turns the policy's attempt_timeout into the ODBC query timeout.
    const auto policy = PolicyBuilder("timeout-test")
                            .max_attempts(3)
                            .backoff(Backoff::fixed(std::chrono::milliseconds(10)))
                            .jitter(Jitter::none())
                            .attempt_timeout(std::chrono::seconds(1))
                            .retry_on(Matcher::transient())
                            .build();
    Connection connection = connect(dialect);
    const odbc::TransactionalRunner runner;
    const TransactionReport report = runner.run(
        connection, *policy, {.handler = "slow"},
        [&](Connection& c, const TransactionAttempt&) { c.query(dialect.sleep_3_seconds); });
    INFO(describe(report));
    CHECK(report.outcome == TransactionOutcome::NonRetryable);
    CHECK(report.attempts == 1);
    REQUIRE(report.failures.size() == 1);
    CHECK(report.failures[0].failure.category == ErrorCategory::StatementTimeout);
}

void killed_connection_is_retried_on_a_fresh_session(const ServerDialect& dialect) {
    Connection admin = connect(dialect);
    reset_table(admin, "rb_killed");
    Connection killer = connect(dialect);
    Connection connection = connect(dialect);
    std::vector<std::string> sessions;
    const odbc::TransactionalRunner runner;
    const TransactionReport report =
        runner.run(connection, *fast_policy(), {.handler = "killed"},
                   [&](Connection& c, const TransactionAttempt& attempt) {
                       sessions.push_back(c.query_value(dialect.session_id_query).value_or(""));
                       if (attempt.number == 1) {
                           REQUIRE(kill_session(killer, dialect, sessions.back()));
                       }
                       c.execute("UPDATE rb_killed SET value = value + 1 WHERE id = 1");
                   });
    INFO(describe(report));
    CHECK(report.succeeded());
    CHECK(report.attempts == 2);
    REQUIRE(report.failures.size() == 1);
    const ErrorCategory category = report.failures[0].failure.category;
    CHECK((category == ErrorCategory::AdminShutdown || category == ErrorCategory::ConnectionLost));
    CHECK(is_connection_scope(category));
    CHECK(report.failures[0].reconnect_next);
    REQUIRE(sessions.size() == 2);
    CHECK(sessions[0] != sessions[1]);
    CHECK(scalar(admin, "SELECT value FROM rb_killed WHERE id = 1") == 1);
}

// A driver may report a session killed under it with a code no vendor map knows (MariaDB
// Connector/C said 5014, "Write error: Broken pipe", before mysql.yaml listed it). Whatever the
// code, a failure on a session the driver reports dead is connection_lost: the runner reconnects
// and retries instead of giving up on `unknown`. A classifier without rules stands for the map
// that does not know the code.
void unrecognised_error_on_a_killed_session_is_connection_lost(const ServerDialect& dialect) {
    Connection admin = connect(dialect);
    reset_table(admin, "rb_unrecognised");
    Connection killer = connect(dialect);
    const auto no_rules =
        std::make_shared<const SqlErrorClassifier>(std::span<const SqlErrorRule>{});
    Connection connection(odbc_environment(), no_rules, server_connection_string(dialect.database));
    const TransactionReport report = odbc::TransactionalRunner().run(
        connection, *fast_policy(), {.handler = "unrecognised"},
        [&](Connection& c, const TransactionAttempt& attempt) {
            if (attempt.number == 1) {
                REQUIRE(kill_session(killer, dialect,
                                     c.query_value(dialect.session_id_query).value_or("")));
            }
            c.execute("UPDATE rb_unrecognised SET value = value + 1 WHERE id = 1");
        });
    INFO(describe(report));
    CHECK(report.succeeded());
    REQUIRE(report.failures.size() == 1);
    CHECK(report.failures[0].failure.category == ErrorCategory::ConnectionLost);
    CHECK(report.failures[0].failure.matched == "connection_dead");
    CHECK(report.failures[0].reconnect_next);
    CHECK(scalar(admin, "SELECT value FROM rb_unrecognised WHERE id = 1") == 1);
}

void constraint_violation_is_not_retried(const ServerDialect& dialect) {
    Connection admin = connect(dialect);
    reset_table(admin, "rb_constraint");
    Connection connection = connect(dialect);
    int calls = 0;
    const TransactionReport report = odbc::TransactionalRunner().run(
        connection, *fast_policy(), {.handler = "constraint"},
        [&](Connection& c, const TransactionAttempt&) {
            ++calls;
            c.execute("INSERT INTO rb_constraint (id, value) VALUES (1, 5)");
        });
    INFO(describe(report));
    CHECK(report.outcome == TransactionOutcome::NonRetryable);
    CHECK(calls == 1);
    REQUIRE(report.failures.size() == 1);
    CHECK(report.failures[0].failure.category == ErrorCategory::ConstraintViolation);
}

void syntax_error_is_not_retried(const ServerDialect& dialect) {
    Connection connection = connect(dialect);
    for (const char* sql : {"SELEC 1", "SELECT * FROM rb_no_such_table"}) {
        int calls = 0;
        const TransactionReport report =
            odbc::TransactionalRunner().run(connection, *fast_policy(), {.handler = "syntax"},
                                            [&](Connection& c, const TransactionAttempt&) {
                                                ++calls;
                                                c.query(sql);
                                            });
        INFO(sql << ": " << describe(report));
        CHECK(report.outcome == TransactionOutcome::NonRetryable);
        CHECK(calls == 1);
        REQUIRE(report.failures.size() == 1);
        CHECK(report.failures[0].failure.category == ErrorCategory::SyntaxError);
    }
}

void commit_outcome_unknown_is_not_retried_without_idempotency(const ServerDialect& dialect) {
    Connection admin = connect(dialect);
    reset_table(admin, "rb_commit_unknown");
    Connection killer = connect(dialect);
    Connection connection = connect(dialect);
    int calls = 0;
    // The session dies after the work and before the commit: the client cannot tell whether the
    // commit happened.
    const TransactionReport report = odbc::TransactionalRunner().run(
        connection, *fast_policy(), {.handler = "payments.charge", .idempotent = false},
        [&](Connection& c, const TransactionAttempt&) {
            ++calls;
            c.execute("UPDATE rb_commit_unknown SET value = value + 1 WHERE id = 1");
            REQUIRE(kill_session(killer, dialect,
                                 c.query_value(dialect.session_id_query).value_or("")));
        });
    INFO(describe(report));
    CHECK(report.outcome == TransactionOutcome::OutcomeUnknown);
    CHECK(calls == 1);
    REQUIRE(report.failures.size() == 1);
    CHECK(report.failures[0].failure.phase == DatabasePhase::Commit);
    CHECK(report.failures[0].failure.category == ErrorCategory::CommitOutcomeUnknown);
    CHECK(report.failures[0].decision.reason == DecisionReason::OutcomeUnknown);
    // Here the server had in fact rolled back; the client could not know.
    CHECK(scalar(admin, "SELECT value FROM rb_commit_unknown WHERE id = 1") == 0);
}

namespace {

// Places an order and returns its id as the command's result.
std::string place_order(Connection& c, int& work_done) {
    ++work_done;
    c.execute("UPDATE rb_orders SET value = value + 1 WHERE id = 1");
    return "order-" + c.query_value("SELECT value FROM rb_orders WHERE id = 1").value_or("?");
}

void reset_orders(Connection& admin, const odbc::CommandDeduplication& commands) {
    reset_table(admin, "rb_orders");
    admin.execute("DROP TABLE IF EXISTS " + commands.table());
    commands.create_table(admin);
}

}  // namespace

void dedup_table_returns_the_first_result(const ServerDialect& dialect) {
    Connection admin = connect(dialect);
    const odbc::CommandDeduplication commands("rb_command_results");
    reset_orders(admin, commands);
    Connection connection = connect(dialect);
    const odbc::TransactionalRunner runner;
    int work_done = 0;
    const auto place = [&](const std::string& command_id) {
        return runner.run(
            connection, *fast_policy(), {.handler = "orders.place", .idempotent = true},
            [&](Connection& c, const TransactionAttempt&) {
                return commands.run_once(c, command_id, [&] { return place_order(c, work_done); });
            });
    };
    const auto first = place("command-1");
    const auto repeated = place("command-1");
    const auto other = place("command-2");
    REQUIRE(first.succeeded());
    REQUIRE(repeated.succeeded());
    REQUIRE(other.succeeded());
    CHECK(*first.value == "order-1");
    CHECK(*repeated.value == "order-1");
    CHECK(*other.value == "order-2");
    CHECK(work_done == 2);
    CHECK(scalar(admin, "SELECT value FROM rb_orders WHERE id = 1") == 2);
    CHECK(commands.find(admin, "command-1") == "order-1");
}

void idempotent_commit_outcome_unknown_is_retried_with_dedup(const ServerDialect& dialect) {
    Connection admin = connect(dialect);
    const odbc::CommandDeduplication commands("rb_command_results_retry");
    reset_orders(admin, commands);
    Connection killer = connect(dialect);
    Connection connection = connect(dialect);
    int work_done = 0;
    // An idempotent handler's policy names commit_outcome_unknown, which is not transient.
    const auto policy = PolicyBuilder("idempotent-test")
                            .max_attempts(3)
                            .backoff(Backoff::fixed(std::chrono::milliseconds(10)))
                            .jitter(Jitter::none())
                            .retry_on(Matcher::transient())
                            .retry_on(Matcher::of_category(ErrorCategory::CommitOutcomeUnknown))
                            .build();
    const auto result = odbc::TransactionalRunner().run(
        connection, *policy, {.handler = "orders.place", .idempotent = true},
        [&](Connection& c, const TransactionAttempt& attempt) {
            std::string order =
                commands.run_once(c, "command-9", [&] { return place_order(c, work_done); });
            if (attempt.number == 1) {
                REQUIRE(kill_session(killer, dialect,
                                     c.query_value(dialect.session_id_query).value_or("")));
            }
            return order;
        });
    INFO(describe(result));
    REQUIRE(result.succeeded());
    CHECK(result.attempts == 2);
    REQUIRE(result.failures.size() == 1);
    CHECK(result.failures[0].failure.category == ErrorCategory::CommitOutcomeUnknown);
    CHECK(result.failures[0].reconnect_next);
    CHECK(*result.value == "order-1");
    // The first commit did not happen, so the retry did the work; once, all told.
    CHECK(scalar(admin, "SELECT value FROM rb_orders WHERE id = 1") == 1);
    CHECK(commands.find(admin, "command-9") == "order-1");
}

void every_diagnostic_record_is_read_and_capped(const ServerDialect& dialect) {
    Connection connection = connect(dialect);
    SQLHSTMT statement = nullptr;
    REQUIRE(SQL_SUCCEEDED(SQLAllocHandle(SQL_HANDLE_STMT, connection.handle(), &statement)));
    std::string sql = "SELECT * FROM rb_no_such_table";
    REQUIRE_FALSE(
        SQL_SUCCEEDED(SQLExecDirect(statement, reinterpret_cast<SQLCHAR*>(sql.data()), SQL_NTS)));
    const auto all = odbc::read_diagnostic_records(SQL_HANDLE_STMT, statement);
    const auto capped = odbc::read_diagnostic_records(SQL_HANDLE_STMT, statement, 1);
    const auto none = odbc::read_diagnostic_records(SQL_HANDLE_STMT, statement, 0);
    SQLFreeHandle(SQL_HANDLE_STMT, statement);
    REQUIRE_FALSE(all.empty());
    CHECK(capped.size() == 1);
    CHECK(none.empty());
    CHECK(all[0].sqlstate.size() == 5);
    CHECK(all[0].message.find("rb_no_such_table") != std::string::npos);
    CHECK(capped[0].sqlstate == all[0].sqlstate);
}

}  // namespace rebound::testing
