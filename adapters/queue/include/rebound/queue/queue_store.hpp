// QueueStore: every SQL statement of the retry queue, for one vendor (docs/queue.md).
//
// The store holds no connection and no state besides its statements: each call runs on the
// connection it is given, inside whatever transaction that connection has open. Operations that
// must be atomic on their own (claim, the operator commands) say so and commit themselves; they
// need autocommit off. Times are on the database clock (message.hpp).
//
// Claim (docs/queue.md, "Claim"): up to `batch` ready messages of the listed handlers with
// due_at <= now, oldest due first, skipping paused handlers, skipping rows other transactions
// hold (FOR UPDATE SKIP LOCKED on PostgreSQL and MariaDB; SQLite has one writer), and skipping a
// keyed message while an earlier message of its key is not done. Each is marked leased by a token
// unique to the claim until now + lease, with attempt + 1.
//
// Thread safety: immutable after construction; share it, give each thread its own Connection.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/duration.hpp"
#include "rebound/odbc/connection.hpp"
#include "rebound/queue/message.hpp"
#include "rebound/queue/queue_status.hpp"
#include "rebound/vendor.hpp"

namespace rebound::queue {

// What a worker writes after a failed attempt (a decision to retry, or to stop).
struct AttemptFailure {
    LastError error;
    bool retry = false;
    Duration delay{0};        // before the next attempt, when retrying
    std::string route;        // the route the decision named
    std::string dead_reason;  // when not retrying: the decision's reason
};

// A message whose lease ran out while it was leased: its worker vanished.
struct ExpiredLease {
    std::int64_t id = 0;
    std::string handler;
    std::string lease_owner;
    std::string command_id;
    int attempt = 0;
    std::int64_t elapsed_us = 0;  // since its first attempt
    std::int64_t last_delay_us = 0;
};

// Why an operator command could not apply to an id.
struct RejectedId {
    std::int64_t id = 0;
    std::string reason;  // "no such message", "it is ready, not dead"
};

struct OperatorResult {
    std::vector<std::int64_t> applied;
    std::vector<RejectedId> rejected;
};

struct StoreOptions {
    // The longest payload enqueue accepts, in bytes: 1..kMaxPayloadLimit (message.hpp).
    std::size_t max_payload_bytes = kDefaultMaxPayloadBytes;
};

class QueueStore {
  public:
    // Throws SchemaError for a vendor without a queue dialect, std::invalid_argument for options
    // out of range.
    explicit QueueStore(Vendor vendor, StoreOptions options = {});
    Vendor vendor() const noexcept { return vendor_; }
    const StoreOptions& options() const noexcept { return options_; }

    // The database clock, microseconds since the epoch.
    std::int64_t now(odbc::Connection& connection) const;

    // Inserts a message in the connection's current transaction (the outbox: it exists if and
    // only if that transaction commits) or, under autocommit, on its own. Returns its id. Throws
    // std::invalid_argument (validate(), with the options' payload limit) before writing anything,
    // or odbc::DatabaseError.
    std::int64_t enqueue(odbc::Connection& connection, const NewMessage& message) const;

    // Claims and commits (see above). `lease_owner` must be unique to this claim.
    std::vector<Message> claim(odbc::Connection& connection, std::span<const std::string> handlers,
                               int batch, Duration lease, std::string_view lease_owner) const;

    // How long until the earliest ready message of `handlers` that is not due yet falls due (a
    // retry, a delayed enqueue), on the database clock; nullopt when there is none. Paused
    // handlers are left out. A worker with nothing to claim sleeps at most this long
    // (docs/queue.md, "Waking for due retries"). Commits (a read).
    std::optional<Duration> next_due_in(odbc::Connection& connection,
                                        std::span<const std::string> handlers) const;

    // Marks a claimed message done (or deletes it) in the connection's open transaction, which
    // also locks its row until that transaction ends; false when `lease_owner` no longer holds it
    // (its lease ran out and another worker reclaimed it). A worker writes it before running the
    // handler, so that a failed attempt rolls it back with the handler's writes.
    bool complete(odbc::Connection& connection, std::int64_t id, std::string_view lease_owner,
                  bool delete_done) const;
    // complete() for several messages of one claim in one statement (grouped completion,
    // queue_handlers.hpp); returns how many it marked (those whose lease `lease_owner` still
    // held). Does not commit.
    std::size_t complete_many(odbc::Connection& connection, std::span<const std::int64_t> ids,
                              std::string_view lease_owner, bool delete_done) const;
    // Records a failed attempt: ready again at now + delay, or dead. Does not commit. False when
    // the lease was lost.
    bool record_failure(odbc::Connection& connection, std::int64_t id, std::string_view lease_owner,
                        const AttemptFailure& failure) const;
    // Makes a claimed message ready again at once without counting its attempt (a worker that
    // stops before running it). Does not commit.
    bool release(odbc::Connection& connection, std::int64_t id, std::string_view lease_owner) const;
    // Makes a claimed message ready again at now + delay without counting its attempt: its
    // delivery did not run because the policy's circuit breaker refused it (docs/queue.md,
    // "Circuit breakers"). Does not commit. False when the lease was lost.
    bool postpone(odbc::Connection& connection, std::int64_t id, std::string_view lease_owner,
                  Duration delay) const;

    // Lease renewal (docs/queue.md, "Lease renewal"): the leased messages of the listed claims
    // are leased until now + lease again. Rows another transaction holds are skipped (SKIP LOCKED
    // on the servers): that is a worker's attempt in progress, whose row lock keeps it from being
    // settled or claimed anyway. Commits; returns how many leases it renewed.
    std::size_t renew_leases(odbc::Connection& connection,
                             std::span<const std::string> lease_owners, Duration lease) const;

    // Leased messages whose lease ran out, locked for this transaction (SKIP LOCKED), at most
    // `limit`. Settle each with record_failure(lease_owner from the row) and commit.
    std::vector<ExpiredLease> expired_leases(odbc::Connection& connection, int limit) const;

    // Operator commands (docs/queue.md, "Operations"); each commits.
    OperatorResult requeue(odbc::Connection& connection, std::span<const std::int64_t> ids,
                           bool reset_attempts) const;
    // Every dead message of `handler`; returns the ids requeued.
    std::vector<std::int64_t> requeue_handler(odbc::Connection& connection,
                                              std::string_view handler, bool reset_attempts) const;
    OperatorResult discard(odbc::Connection& connection, std::span<const std::int64_t> ids) const;
    // False when it already was paused (pause) or was not paused (resume).
    bool pause(odbc::Connection& connection, std::string_view handler) const;
    bool resume(odbc::Connection& connection, std::string_view handler) const;
    std::vector<std::string> paused_handlers(odbc::Connection& connection) const;

    QueueStatus status(odbc::Connection& connection) const;
    // Dead messages, oldest first; an empty handler lists every handler's.
    std::vector<Message> dead(odbc::Connection& connection, std::string_view handler,
                              int limit) const;
    std::optional<Message> find(odbc::Connection& connection, std::int64_t id) const;

  private:
    std::string now_sql() const;

    Vendor vendor_;
    StoreOptions options_;
    bool skip_locked_;  // PostgreSQL and MariaDB: FOR UPDATE SKIP LOCKED; SQLite: no row locks
};

}  // namespace rebound::queue
