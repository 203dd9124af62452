// CommandDeduplication: the command-id table pattern, which makes a non-idempotent command safe
// to repeat.
//
// The result of every command is stored, in the same transaction as the command's own writes,
// under the command id the caller chose (a request id, a message id). A repeated command (a retry
// after `commit_outcome_unknown`, a redelivered message, a client that resent its request) first
// looks its id up and, when the first run committed, returns the stored result instead of doing
// the work a second time. Because the write and the record commit together, either both happened
// or neither did. This is what lets a handler be declared idempotent (docs/odbc.md).
//
//   rebound::odbc::CommandDeduplication commands;  // table rebound_command_results
//   commands.create_table(connection);
//   auto result = runner.run(connection, *policy, {.handler = "orders.place", .idempotent = true},
//       [&](rebound::odbc::Connection& c, const rebound::odbc::TransactionAttempt&) {
//           return commands.run_once(c, command_id, [&] { return place_order(c); });
//       });
//
// Two concurrent first runs of one id: the second INSERT waits on the primary key and then fails
// with `constraint_violation` (not retried); the caller can then read the first result with
// find(). Thread safety: immutable; any number of threads, each with its own Connection.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "rebound/odbc/connection.hpp"
#include "rebound/vendor.hpp"

namespace rebound::odbc {

class CommandDeduplication {
  public:
    static constexpr std::string_view kDefaultTable = "rebound_command_results";

    // Throws std::invalid_argument unless `table` is a plain identifier ([A-Za-z_][A-Za-z0-9_]*,
    // at most 63 characters): it is spliced into SQL text.
    explicit CommandDeduplication(std::string table = std::string(kDefaultTable));

    const std::string& table() const noexcept { return table_; }

    // CREATE TABLE IF NOT EXISTS for the vendor's SQL dialect (PostgreSQL, MySQL/MariaDB, SQLite;
    // anything else gets portable SQL without IF NOT EXISTS).
    std::string create_table_sql(std::optional<Vendor> vendor) const;
    void create_table(Connection& connection) const;

    // The stored result of `command_id`, or nullopt when no committed run recorded one.
    std::optional<std::string> find(Connection& connection, std::string_view command_id) const;
    // Records the result; call inside the command's transaction. A second record of the same id
    // fails with constraint_violation.
    void record(Connection& connection, std::string_view command_id, std::string_view result) const;

    // The stored result when `command_id` already ran; else runs `work()` (returning something
    // convertible to std::string), records its result and returns it. Call it inside the
    // transaction of a TransactionalRunner attempt so both commit together.
    template <class Work>
    std::string run_once(Connection& connection, std::string_view command_id, Work&& work) const {
        if (std::optional<std::string> stored = find(connection, command_id)) {
            return *std::move(stored);
        }
        std::string result = work();
        record(connection, command_id, result);
        return result;
    }

  private:
    std::string table_;
};

}  // namespace rebound::odbc
