// TransactionScope: a transaction of several statements on a worker's connection (worker_pool.cpp).
#pragma once

#include "rebound/odbc/connection.hpp"
#include "rebound/vendor.hpp"

namespace rebound::queue::detail {

// Whether a worker's connection stays in autocommit mode between transactions. On PostgreSQL the
// steps of one statement (the claim, recording a failure, grouped completions, the next-due read)
// then cost one round trip instead of three: under manual commit psqlODBC sends `BEGIN` as a round
// trip of its own before the statement, and `COMMIT` is another. Steps of several statements (an
// attempt with its completion, settling expired leases) open a transaction with
// TransactionScope. MariaDB's driver sends `SET autocommit` to the server at every switch, and the
// SQLite claim is several statements, so there the connection stays in manual commit.
inline bool autocommit_between_transactions(Vendor vendor) {
    return vendor == Vendor::PostgreSql;
}

// Rolls back what the connection has open, if it is open; a session that cannot roll back is
// dropped by the caller (is_dead) or by the server.
inline void roll_back_quietly(odbc::Connection& connection) noexcept {
    if (!connection.is_open()) {
        return;
    }
    try {
        connection.rollback();
    } catch (...) {
        // Dropped by the caller (is_dead) or by the server.
    }
}

// With `switch_mode` (the connection is in autocommit between transactions) it turns autocommit
// off for its lifetime; on the way out it rolls back what was not committed (nothing, after a
// commit) and turns autocommit back on. Errors on the way out are left for the next statement to
// report.
class TransactionScope {
  public:
    TransactionScope(odbc::Connection& connection, bool switch_mode)
        : connection_(connection), switch_mode_(switch_mode) {
        if (switch_mode_) {
            connection_.set_autocommit(false);
        }
    }
    TransactionScope(const TransactionScope&) = delete;
    TransactionScope& operator=(const TransactionScope&) = delete;
    ~TransactionScope() {
        if (!switch_mode_ || !connection_.is_open()) {
            return;
        }
        try {
            connection_.rollback();
            connection_.set_autocommit(true);
        } catch (...) {
            // A dead session: the worker replaces the connection (is_dead).
        }
    }

  private:
    odbc::Connection& connection_;
    bool switch_mode_;
};

}  // namespace rebound::queue::detail
