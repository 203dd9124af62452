#include "rebound/queue/queue_store.hpp"

#include <algorithm>
#include <map>
#include <random>
#include <stdexcept>

#include "rebound/queue/queue_schema.hpp"
#include "store_common.hpp"
#include "vendor_sql.hpp"

namespace rebound::queue {

namespace {

using odbc::Connection;
using odbc::SqlNull;
using odbc::SqlRow;
using odbc::SqlValue;
using namespace store;  // the shared rows and transaction (store_common.hpp)

SqlValue text_or_null(std::string_view text) {
    return text.empty() ? SqlValue(SqlNull{}) : SqlValue(std::string(text));
}

std::string placeholders(std::size_t count) {
    std::string list;
    for (std::size_t i = 0; i < count; ++i) {
        list += i == 0 ? "?" : ", ?";
    }
    return list;
}

// {first, second, rest...}
std::vector<SqlValue> prepend(SqlValue first, SqlValue second, const std::vector<SqlValue>& rest) {
    std::vector<SqlValue> all{std::move(first), std::move(second)};
    all.insert(all.end(), rest.begin(), rest.end());
    return all;
}

std::string random_hex() {
    thread_local std::mt19937_64 generator{std::random_device{}()};
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string text;
    for (int part = 0; part < 2; ++part) {
        std::uint64_t bits = generator();
        for (int i = 0; i < 16; ++i, bits >>= 4) {
            text += kDigits[bits & 0xF];
        }
    }
    return text;
}

// The messages `lease_owner` holds, oldest due first.
std::vector<Message> leased_by(Connection& connection, std::string_view lease_owner) {
    std::vector<Message> messages;
    for (const SqlRow& row : connection.query_prepared(
             "SELECT " + std::string(kColumns) + " FROM " + messages_table +
                 " WHERE state = 'leased' AND lease_owner = ? ORDER BY due_at, id",
             {std::string(lease_owner)})) {
        messages.push_back(parse_message(row));
    }
    return messages;
}

// The condition of the statements that settle one claimed message. The state is a parameter, not
// the literal 'leased': with the literal, PostgreSQL may answer `id = ?` through the partial index
// of leased rows (its predicate is then implied), reading every entry of it, dead ones included,
// whenever its statistics make that look as cheap as the primary key (a table analyzed while
// empty). With a parameter only the primary key serves `id = ?`.
constexpr std::string_view kHeldById = " WHERE id = ? AND lease_owner = ? AND state = ?";

std::vector<SqlValue> held_by_id(std::int64_t id, std::string_view lease_owner) {
    return {id, std::string(lease_owner), std::string("leased")};
}

}  // namespace

QueueStore::QueueStore(Vendor vendor, StoreOptions options)
    : vendor_(vendor),
      options_(options),
      skip_locked_(vendor == Vendor::PostgreSql || vendor == Vendor::MySql) {
    migration_statements(vendor, 1);  // throws SchemaError for a vendor without a dialect
    if (options_.max_payload_bytes < 1 || options_.max_payload_bytes > kMaxPayloadLimit) {
        throw std::invalid_argument("queue store: max_payload_bytes must be 1 to " +
                                    std::to_string(kMaxPayloadLimit) + ", got " +
                                    std::to_string(options_.max_payload_bytes));
    }
}

std::string QueueStore::now_sql() const {
    return detail::now_microseconds_sql(vendor_);
}

std::int64_t QueueStore::now(Connection& connection) const {
    return to_int64(connection.query_value("SELECT " + now_sql()));
}

std::int64_t QueueStore::enqueue(Connection& connection, const NewMessage& message) const {
    validate(message, options_.max_payload_bytes);
    const std::string command_id =
        message.command_id.empty() ? message.handler + ":" + random_hex() : message.command_id;
    const std::string insert =
        "INSERT INTO " + messages_table +
        " (handler, msg_key, payload, command_id, attempt, state, due_at, created_at,"
        " last_delay_us) VALUES (?, ?, ?, ?, 0, 'ready', " +
        now_sql() + " + ?, " + now_sql() + ", 0)";
    const std::vector<SqlValue> parameters{
        message.handler, message.key ? SqlValue(*message.key) : SqlValue(SqlNull{}),
        message.payload, command_id,
        std::chrono::duration_cast<std::chrono::microseconds>(message.delay).count()};
    if (vendor_ == Vendor::PostgreSql || vendor_ == Vendor::CockroachDb) {
        const auto rows = connection.query_prepared(insert + " RETURNING id", parameters);
        return rows.empty() || rows[0].empty() ? 0 : to_int64(rows[0][0]);
    }
    connection.execute_prepared(insert, parameters);
    return to_int64(connection.query_value(
        vendor_ == Vendor::MySql ? "SELECT LAST_INSERT_ID()" : "SELECT last_insert_rowid()"));
}

std::vector<Message> QueueStore::claim(Connection& connection,
                                       std::span<const std::string> handlers, int batch,
                                       Duration lease, std::string_view lease_owner) const {
    if (handlers.empty() || batch < 1) {
        return {};
    }
    std::vector<SqlValue> parameters(handlers.begin(), handlers.end());
    // A keyed message waits while an earlier one of its key is not done (strict order per key).
    // The plan must be an ordered scan of the ready index that stops after `batch` rows, whatever
    // the table's statistics say (a queue table is often analyzed while nearly empty): the time
    // bound is stable (statement_time_microseconds_sql), and paused handlers are a hashed
    // `NOT IN` filter; as a `NOT EXISTS` anti-join PostgreSQL read and sorted every due row.
    const std::string candidates =
        "SELECT m.id FROM " + messages_table + " m WHERE m.state = 'ready' AND m.due_at <= " +
        detail::statement_time_microseconds_sql(vendor_) + " AND m.handler IN (" +
        placeholders(handlers.size()) + ") AND m.handler NOT IN (SELECT p.handler FROM " +
        paused_table + " p) AND (m.msg_key IS NULL OR NOT EXISTS (SELECT 1 FROM " + messages_table +
        " e WHERE e.msg_key = m.msg_key AND e.id < m.id AND e.state <> 'done')) ORDER BY "
        "m.due_at, m.id LIMIT " +
        std::to_string(batch);
    const std::string lease_sql =
        "UPDATE " + messages_table +
        " SET state = 'leased', lease_owner = ?, lease_until = " + now_sql() +
        " + ?, claimed_at = " + now_sql() + ", first_attempt_at = COALESCE(" +
        "first_attempt_at, " + now_sql() + "), attempt = attempt + 1 WHERE ";
    const std::int64_t lease_us =
        std::chrono::duration_cast<std::chrono::microseconds>(lease).count();
    std::vector<Message> claimed;
    if (vendor_ == Vendor::PostgreSql || vendor_ == Vendor::CockroachDb) {
        // One round trip: lease the locked candidates and return them. `id = ANY(ARRAY(...))`
        // runs the candidate query once and leases by primary key; with `id IN (SELECT ...)`
        // the planner may join the candidates to a sequential scan of the whole table.
        std::vector<SqlValue> all{std::string(lease_owner), lease_us};
        all.insert(all.end(), parameters.begin(), parameters.end());
        for (const SqlRow& row : connection.query_prepared(
                 lease_sql + "id = ANY(ARRAY(" + candidates +
                     " FOR UPDATE SKIP LOCKED)) RETURNING " + std::string(kColumns),
                 all)) {
            claimed.push_back(parse_message(row));
        }
        std::sort(claimed.begin(), claimed.end(), [](const Message& a, const Message& b) {
            return std::pair(a.due_at, a.id) < std::pair(b.due_at, b.id);
        });
    } else if (skip_locked_) {
        // MariaDB cannot UPDATE a table it reads in a subquery, nor UPDATE ... RETURNING.
        std::vector<std::int64_t> ids;
        for (const SqlRow& row :
             connection.query_prepared(candidates + " FOR UPDATE SKIP LOCKED", parameters)) {
            ids.push_back(to_int64(row.at(0)));
        }
        if (ids.empty()) {
            connection.commit();
            return {};
        }
        std::vector<SqlValue> lease_parameters{std::string(lease_owner), lease_us};
        lease_parameters.insert(lease_parameters.end(), ids.begin(), ids.end());
        connection.execute_prepared(lease_sql + "id IN (" + placeholders(ids.size()) + ")",
                                    lease_parameters);
        claimed = leased_by(connection, lease_owner);
    } else {
        // SQLite: the UPDATE takes the write lock before it reads, so no other writer can slip
        // in between choosing the rows and leasing them.
        if (connection.execute_prepared(lease_sql + "id IN (" + candidates + ")",
                                        prepend(std::string(lease_owner), lease_us, parameters)) !=
            0) {
            claimed = leased_by(connection, lease_owner);
        }
    }
    connection.commit();
    return claimed;
}

std::optional<Duration> QueueStore::next_due_in(Connection& connection,
                                                std::span<const std::string> handlers) const {
    if (handlers.empty()) {
        return std::nullopt;
    }
    // The ready index is ordered by due_at: the scan stops at the first row of a listed handler.
    // A message due already but not claimable (its key is held back, another worker holds it)
    // is not what a sleeping worker waits for, hence `due_at > now`.
    const std::vector<SqlValue> parameters(handlers.begin(), handlers.end());
    const std::string now = detail::statement_time_microseconds_sql(vendor_);
    const auto rows = connection.query_prepared(
        "SELECT MIN(m.due_at) - " + now + " FROM " + messages_table +
            " m WHERE m.state = 'ready' AND m.due_at > " + now + " AND m.handler IN (" +
            placeholders(handlers.size()) + ") AND m.handler NOT IN (SELECT p.handler FROM " +
            paused_table + " p)",
        parameters);
    if (!connection.autocommit()) {
        connection.commit();
    }
    if (rows.empty() || rows[0].empty() || !rows[0][0]) {
        return std::nullopt;
    }
    return std::chrono::microseconds(std::max<std::int64_t>(to_int64(rows[0][0]), 0));
}

bool QueueStore::complete(Connection& connection, std::int64_t id, std::string_view lease_owner,
                          bool delete_done) const {
    const std::string where(kHeldById);
    if (delete_done) {
        return connection.execute_prepared("DELETE FROM " + messages_table + where,
                                           held_by_id(id, lease_owner)) == 1;
    }
    return connection.execute_prepared("UPDATE " + messages_table +
                                           " SET state = 'done', finished_at = " + now_sql() +
                                           ", lease_owner = NULL, lease_until = NULL" + where,
                                       held_by_id(id, lease_owner)) == 1;
}

std::size_t QueueStore::complete_many(Connection& connection, std::span<const std::int64_t> ids,
                                      std::string_view lease_owner, bool delete_done) const {
    if (ids.empty()) {
        return 0;
    }
    // Placeholders rather than the ids in the text: a claim's full batches share one prepared
    // statement.
    // The state as a parameter, as in kHeldById.
    const std::string where =
        " WHERE lease_owner = ? AND state = ? AND id IN (" + placeholders(ids.size()) + ")";
    std::vector<SqlValue> parameters{std::string(lease_owner), std::string("leased")};
    parameters.insert(parameters.end(), ids.begin(), ids.end());
    const std::int64_t changed =
        delete_done
            ? connection.execute_prepared("DELETE FROM " + messages_table + where, parameters)
            : connection.execute_prepared("UPDATE " + messages_table +
                                              " SET state = 'done', finished_at = " + now_sql() +
                                              ", lease_owner = NULL, lease_until = NULL" + where,
                                          parameters);
    return static_cast<std::size_t>(std::max<std::int64_t>(changed, 0));
}

bool QueueStore::record_failure(Connection& connection, std::int64_t id,
                                std::string_view lease_owner, const AttemptFailure& failure) const {
    const LastError& e = failure.error;
    std::vector<SqlValue> parameters{
        text_or_null(e.category),
        text_or_null(e.sqlstate),
        e.native_code ? SqlValue(*e.native_code) : SqlValue(SqlNull{}),
        e.http_status != 0 ? SqlValue(std::int64_t{e.http_status}) : SqlValue(SqlNull{}),
        text_or_null(e.message),
        text_or_null(failure.route)};
    std::string sql = "UPDATE " + messages_table +
                      " SET last_error_category = ?, last_error_sqlstate = ?,"
                      " last_error_native = ?, last_error_http = ?, last_error_message = ?,"
                      " route = COALESCE(?, route), lease_owner = NULL, lease_until = NULL, ";
    if (failure.retry) {
        const std::int64_t delay_us =
            std::chrono::duration_cast<std::chrono::microseconds>(failure.delay).count();
        sql += "state = 'ready', due_at = " + now_sql() + " + ?, last_delay_us = ?";
        parameters.emplace_back(delay_us);
        parameters.emplace_back(delay_us);
    } else {
        sql += "state = 'dead', dead_reason = ?, finished_at = " + now_sql();
        parameters.emplace_back(failure.dead_reason);
    }
    sql += kHeldById;
    for (SqlValue& value : held_by_id(id, lease_owner)) {
        parameters.push_back(std::move(value));
    }
    return connection.execute_prepared(sql, parameters) == 1;
}

namespace {

// Ready again with the claim's attempt not counted (release, postpone); `then` sets more columns.
// MariaDB assigns left to right with the new values: first_attempt_at reads the old attempt.
std::string unclaim_sql(std::string_view then) {
    return "UPDATE " + messages_table +
           " SET first_attempt_at = CASE WHEN attempt <= 1 THEN NULL ELSE first_attempt_at END,"
           " attempt = attempt - 1, state = 'ready', lease_owner = NULL, lease_until = NULL" +
           std::string(then) + std::string(kHeldById);
}

}  // namespace

bool QueueStore::release(Connection& connection, std::int64_t id,
                         std::string_view lease_owner) const {
    return connection.execute_prepared(unclaim_sql(""), held_by_id(id, lease_owner)) == 1;
}

bool QueueStore::postpone(Connection& connection, std::int64_t id, std::string_view lease_owner,
                          Duration delay) const {
    std::vector<SqlValue> parameters{
        std::chrono::duration_cast<std::chrono::microseconds>(std::max(delay, Duration{0}))
            .count()};
    for (SqlValue& value : held_by_id(id, lease_owner)) {
        parameters.push_back(std::move(value));
    }
    return connection.execute_prepared(unclaim_sql(", due_at = " + now_sql() + " + ?"),
                                       parameters) == 1;
}

std::size_t QueueStore::renew_leases(Connection& connection,
                                     std::span<const std::string> lease_owners,
                                     Duration lease) const {
    if (lease_owners.empty()) {
        return 0;
    }
    const std::int64_t lease_us =
        std::chrono::duration_cast<std::chrono::microseconds>(lease).count();
    const std::vector<SqlValue> owners(lease_owners.begin(), lease_owners.end());
    const std::string held =
        "state = 'leased' AND lease_owner IN (" + placeholders(lease_owners.size()) + ")";
    const std::string renew =
        "UPDATE " + messages_table + " SET lease_until = " + now_sql() + " + ? WHERE ";
    OwnTransaction transaction(connection, vendor_);
    std::int64_t renewed = 0;
    if (vendor_ == Vendor::PostgreSql || vendor_ == Vendor::CockroachDb) {
        std::vector<SqlValue> all{lease_us};
        all.insert(all.end(), owners.begin(), owners.end());
        renewed =
            connection.execute_prepared(renew + "id = ANY(ARRAY(SELECT id FROM " + messages_table +
                                            " WHERE " + held + " FOR UPDATE SKIP LOCKED))",
                                        all);
    } else if (skip_locked_) {
        // MariaDB cannot UPDATE a table it reads in a subquery.
        std::vector<std::int64_t> ids;
        for (const SqlRow& row : connection.query(
                 "SELECT id FROM " + messages_table + " WHERE " + held + " FOR UPDATE SKIP LOCKED",
                 owners)) {
            ids.push_back(to_int64(row.at(0)));
        }
        if (!ids.empty()) {
            renewed = connection.execute(renew + "id IN (" + id_list(ids) + ")", {lease_us});
        }
    } else {
        std::vector<SqlValue> all{lease_us};
        all.insert(all.end(), owners.begin(), owners.end());
        renewed = connection.execute(renew + held, all);
    }
    transaction.commit();
    return static_cast<std::size_t>(std::max<std::int64_t>(renewed, 0));
}

std::vector<ExpiredLease> QueueStore::expired_leases(Connection& connection, int limit) const {
    std::string sql = "SELECT id, handler, lease_owner, attempt, " + now_sql() +
                      " - COALESCE(first_attempt_at, created_at), last_delay_us, command_id FROM " +
                      messages_table + " WHERE state = 'leased' AND lease_until < " + now_sql() +
                      " ORDER BY lease_until LIMIT " + std::to_string(std::max(limit, 1));
    if (skip_locked_) {
        sql += " FOR UPDATE SKIP LOCKED";
    } else {
        connection.execute(kSqliteBeginWrite);
    }
    std::vector<ExpiredLease> expired;
    for (const SqlRow& row : connection.query_prepared(sql, {})) {
        expired.push_back(ExpiredLease{.id = to_int64(row.at(0)),
                                       .handler = row.at(1).value_or(""),
                                       .lease_owner = row.at(2).value_or(""),
                                       .command_id = row.at(6).value_or(""),
                                       .attempt = static_cast<int>(to_int64(row.at(3))),
                                       .elapsed_us = to_int64(row.at(4)),
                                       .last_delay_us = to_int64(row.at(5))});
    }
    return expired;
}

}  // namespace rebound::queue
