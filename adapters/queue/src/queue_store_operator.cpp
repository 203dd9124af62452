// The queue store's operator commands (docs/queue.md): requeue, discard, pause, resume, status
// and the views of dead and single messages.
#include <algorithm>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "rebound/queue/queue_store.hpp"
#include "store_common.hpp"
#include "vendor_sql.hpp"

namespace rebound::queue {

namespace {

using odbc::Connection;
using odbc::SqlRow;
using odbc::SqlValue;
using namespace store;  // the shared rows and transaction (store_common.hpp)

// The ids among `ids` that are dead, locked; the others rejected with why.
OperatorResult split_dead(Connection& connection, std::span<const std::int64_t> ids,
                          bool lock_rows) {
    OperatorResult result;
    std::map<std::int64_t, std::string> states;
    if (!ids.empty()) {
        for (const SqlRow& row :
             connection.query("SELECT id, state FROM " + messages_table + " WHERE id IN (" +
                              id_list(ids) + ")" + (lock_rows ? " FOR UPDATE" : ""))) {
            states[to_int64(row.at(0))] = row.at(1).value_or("");
        }
    }
    for (std::int64_t id : ids) {
        const auto found = states.find(id);
        if (found == states.end()) {
            result.rejected.push_back({id, "no such message"});
        } else if (found->second != "dead") {
            result.rejected.push_back({id, "it is " + found->second + ", not dead"});
        } else if (std::find(result.applied.begin(), result.applied.end(), id) ==
                   result.applied.end()) {
            result.applied.push_back(id);
        }
    }
    return result;
}

std::string requeue_sql(const std::string& now, bool reset_attempts) {
    return "UPDATE " + messages_table + " SET state = 'ready', due_at = " + now +
           ", dead_reason = NULL, finished_at = NULL" +
           (reset_attempts ? ", attempt = 0, first_attempt_at = NULL, last_delay_us = 0" : "") +
           " WHERE state = 'dead' AND id IN (";
}

}  // namespace

OperatorResult QueueStore::requeue(Connection& connection, std::span<const std::int64_t> ids,
                                   bool reset_attempts) const {
    OwnTransaction transaction(connection, vendor_);
    OperatorResult result = split_dead(connection, ids, skip_locked_);
    if (!result.applied.empty()) {
        connection.execute(requeue_sql(now_sql(), reset_attempts) + id_list(result.applied) + ")");
    }
    transaction.commit();
    return result;
}

std::vector<std::int64_t> QueueStore::requeue_handler(Connection& connection,
                                                      std::string_view handler,
                                                      bool reset_attempts) const {
    OwnTransaction transaction(connection, vendor_);
    std::vector<std::int64_t> ids;
    for (const SqlRow& row :
         connection.query("SELECT id FROM " + messages_table +
                              " WHERE state = 'dead' AND handler = ? ORDER BY id" +
                              (skip_locked_ ? " FOR UPDATE" : ""),
                          {std::string(handler)})) {
        ids.push_back(to_int64(row.at(0)));
    }
    if (!ids.empty()) {
        connection.execute(requeue_sql(now_sql(), reset_attempts) + id_list(ids) + ")");
    }
    transaction.commit();
    return ids;
}

OperatorResult QueueStore::discard(Connection& connection,
                                   std::span<const std::int64_t> ids) const {
    OwnTransaction transaction(connection, vendor_);
    OperatorResult result = split_dead(connection, ids, skip_locked_);
    if (!result.applied.empty()) {
        connection.execute("DELETE FROM " + messages_table + " WHERE state = 'dead' AND id IN (" +
                           id_list(result.applied) + ")");
    }
    transaction.commit();
    return result;
}

bool QueueStore::pause(Connection& connection, std::string_view handler) const {
    OwnTransaction transaction(connection, vendor_);
    if (connection.query_value("SELECT handler FROM " + paused_table + " WHERE handler = ?",
                               {std::string(handler)})) {
        return false;
    }
    try {
        connection.execute(
            "INSERT INTO " + paused_table + " (handler, paused_at) VALUES (?, " + now_sql() + ")",
            {std::string(handler)});
        transaction.commit();
    } catch (const odbc::DatabaseError& error) {
        if (error.category() == ErrorCategory::ConstraintViolation) {
            return false;  // paused by someone else meanwhile
        }
        throw;
    }
    return true;
}

bool QueueStore::resume(Connection& connection, std::string_view handler) const {
    OwnTransaction transaction(connection, vendor_);
    const bool removed = connection.execute("DELETE FROM " + paused_table + " WHERE handler = ?",
                                            {std::string(handler)}) > 0;
    transaction.commit();
    return removed;
}

std::vector<std::string> QueueStore::paused_handlers(Connection& connection) const {
    std::vector<std::string> names;
    for (const SqlRow& row :
         connection.query("SELECT handler FROM " + paused_table + " ORDER BY handler")) {
        names.push_back(row.at(0).value_or(""));
    }
    return names;
}

QueueStatus QueueStore::status(Connection& connection) const {
    QueueStatus status;
    status.now = now(connection);
    std::map<std::string, HandlerCounts> by_handler;
    for (const SqlRow& row : connection.query(
             "SELECT handler, state, COUNT(*), SUM(CASE WHEN state = 'ready' AND due_at <= ? THEN"
             " 1 ELSE 0 END), MIN(CASE WHEN state = 'ready' AND due_at <= ? THEN due_at END) "
             "FROM " +
                 messages_table + " GROUP BY handler, state",
             {status.now, status.now})) {
        const std::string handler = row.at(0).value_or("");
        HandlerCounts& counts = by_handler[handler];
        counts.handler = handler;
        const std::int64_t count = to_int64(row.at(2));
        switch (parse_message_state(row.at(1).value_or("")).value_or(MessageState::Ready)) {
            case MessageState::Ready:
                counts.ready = count;
                counts.due = to_int64(row.at(3));
                if (row.at(4)) {
                    counts.oldest_due_age_us = status.now - to_int64(row.at(4));
                }
                break;
            case MessageState::Leased:
                counts.leased = count;
                break;
            case MessageState::Done:
                counts.done = count;
                break;
            case MessageState::Dead:
                counts.dead = count;
                break;
        }
    }
    for (const std::string& handler : paused_handlers(connection)) {
        HandlerCounts& counts = by_handler[handler];
        counts.handler = handler;
        counts.paused = true;
    }
    for (auto& [name, counts] : by_handler) {
        status.handlers.push_back(std::move(counts));
    }
    for (const SqlRow& row :
         connection.query("SELECT handler, msg_key, MIN(id) FROM " + messages_table +
                          " WHERE state = 'dead' AND msg_key IS NOT NULL GROUP BY handler, msg_key"
                          " ORDER BY handler, msg_key")) {
        BlockedKey blocked{.handler = row.at(0).value_or(""),
                           .key = row.at(1).value_or(""),
                           .dead_id = to_int64(row.at(2))};
        blocked.waiting =
            to_int64(connection.query_value("SELECT COUNT(*) FROM " + messages_table +
                                                " WHERE msg_key = ? AND id > ? AND state <> 'done'",
                                            {blocked.key, blocked.dead_id}));
        status.blocked_keys.push_back(std::move(blocked));
    }
    if (!connection.autocommit()) {
        connection.commit();
    }
    return status;
}

std::vector<Message> QueueStore::dead(Connection& connection, std::string_view handler,
                                      int limit) const {
    std::vector<SqlValue> parameters;
    std::string sql =
        "SELECT " + std::string(kColumns) + " FROM " + messages_table + " WHERE state = 'dead'";
    if (!handler.empty()) {
        sql += " AND handler = ?";
        parameters.emplace_back(std::string(handler));
    }
    sql += " ORDER BY id LIMIT " + std::to_string(std::max(limit, 1));
    std::vector<Message> messages;
    for (const SqlRow& row : connection.query(sql, parameters)) {
        messages.push_back(parse_message(row));
    }
    return messages;
}

std::optional<Message> QueueStore::find(Connection& connection, std::int64_t id) const {
    const auto rows = connection.query(
        "SELECT " + std::string(kColumns) + " FROM " + messages_table + " WHERE id = ?", {id});
    if (rows.empty()) {
        return std::nullopt;
    }
    return parse_message(rows.front());
}

}  // namespace rebound::queue
