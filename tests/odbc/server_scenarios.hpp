// Scenarios run for real against a database server (PostgreSQL, MariaDB): each provokes one kind
// of failure and checks its category and what the TransactionalRunner did about it.
#pragma once

#include <string>

#include "rebound/error_category.hpp"
#include "rebound/odbc/connection.hpp"

namespace rebound::testing {

// What differs between the servers.
struct ServerDialect {
    std::string database;              // `postgresql`, `mariadb`: selects the server
    std::string session_id_query;      // returns this session's id
    std::string kill_session_prefix;   // followed by the id: ends another session
    std::string sleep_3_seconds;       // a statement that runs for 3 seconds
    std::string short_lock_wait;       // run first in a transaction: lock waits give up quickly
    std::string session_exists_query;  // one `?` (the id): returns a count of 0 once it is gone
    std::string other_sessions_query;  // the ids of every client session but this one
};

ServerDialect postgresql_dialect();
ServerDialect mariadb_dialect();

// Ends session `id` from `killer` and waits until the server has let it go, so that the victim's
// next statement meets a dead session rather than racing the termination. False when the session
// was still there 2 seconds later. Asserts nothing, so any thread may call it.
bool kill_session(odbc::Connection& killer, const ServerDialect& dialect, const std::string& id);

void deadlock_victim_is_retried_and_both_commit_once(const ServerDialect& dialect);
void lock_timeout_is_retried(const ServerDialect& dialect);
void nowait_is_retried(const ServerDialect& dialect);
void statement_timeout_is_not_retried(const ServerDialect& dialect);
void killed_connection_is_retried_on_a_fresh_session(const ServerDialect& dialect);
void unrecognised_error_on_a_killed_session_is_connection_lost(const ServerDialect& dialect);
void constraint_violation_is_not_retried(const ServerDialect& dialect);
void syntax_error_is_not_retried(const ServerDialect& dialect);
void commit_outcome_unknown_is_not_retried_without_idempotency(const ServerDialect& dialect);
void dedup_table_returns_the_first_result(const ServerDialect& dialect);
void idempotent_commit_outcome_unknown_is_retried_with_dedup(const ServerDialect& dialect);
void every_diagnostic_record_is_read_and_capped(const ServerDialect& dialect);

}  // namespace rebound::testing
