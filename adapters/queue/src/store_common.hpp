// What the queue store's worker side (queue_store.cpp) and operator commands
// (queue_store_operator.cpp) share: the messages table's rows and an operator command's own
// transaction.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "rebound/odbc/connection.hpp"
#include "rebound/queue/message.hpp"
#include "rebound/vendor.hpp"

namespace rebound::queue::store {

extern const std::string messages_table;
extern const std::string paused_table;

// The columns parse_message reads, in order.
inline constexpr std::string_view kColumns =
    "id, handler, msg_key, payload, command_id, attempt, state, due_at, created_at,"
    " first_attempt_at, claimed_at, lease_until, last_delay_us, last_error_category,"
    " last_error_sqlstate, last_error_native, last_error_http, last_error_message, route,"
    " dead_reason";

std::int64_t to_int64(const std::optional<std::string>& text);
Message parse_message(const odbc::SqlRow& row);
// "1, 2, 3"
std::string id_list(std::span<const std::int64_t> ids);

// SQLite: a statement that takes the write lock at once. A transaction that reads first and
// writes later can deadlock with another writer (both hold SHARED, both want more), which SQLite
// reports as "database is locked" without waiting; taking the write lock first waits instead.
inline constexpr std::string_view kSqliteBeginWrite =
    "UPDATE rebound_queue_schema SET version = version WHERE 1 = 0";

// A transaction of its own for an operator command: commits at the end, rolls back on an
// exception, and leaves autocommit as it was.
class OwnTransaction {
  public:
    OwnTransaction(odbc::Connection& connection, Vendor vendor);
    OwnTransaction(const OwnTransaction&) = delete;
    OwnTransaction& operator=(const OwnTransaction&) = delete;
    OwnTransaction(OwnTransaction&&) = delete;
    OwnTransaction& operator=(OwnTransaction&&) = delete;
    ~OwnTransaction();
    void commit();

  private:
    odbc::Connection& connection_;
    bool autocommit_;
    bool committed_ = false;
};

}  // namespace rebound::queue::store
