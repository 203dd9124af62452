#include "store_common.hpp"

#include <charconv>

#include "rebound/queue/queue_schema.hpp"

namespace rebound::queue::store {

using odbc::Connection;
using odbc::SqlRow;

const std::string messages_table(kMessagesTable);
const std::string paused_table(kPausedTable);

namespace {

std::optional<std::int64_t> to_optional_int64(const std::optional<std::string>& text) {
    if (!text) {
        return std::nullopt;
    }
    return to_int64(text);
}

}  // namespace

std::int64_t to_int64(const std::optional<std::string>& text) {
    std::int64_t value = 0;
    if (text) {
        std::from_chars(text->data(), text->data() + text->size(), value);
    }
    return value;
}

Message parse_message(const SqlRow& row) {
    Message m;
    m.id = to_int64(row.at(0));
    m.handler = row.at(1).value_or("");
    m.key = row.at(2);
    m.payload = row.at(3).value_or("");
    m.command_id = row.at(4).value_or("");
    m.attempt = static_cast<int>(to_int64(row.at(5)));
    m.state = parse_message_state(row.at(6).value_or("")).value_or(MessageState::Ready);
    m.due_at = to_int64(row.at(7));
    m.created_at = to_int64(row.at(8));
    m.first_attempt_at = to_optional_int64(row.at(9));
    m.claimed_at = to_optional_int64(row.at(10));
    m.lease_until = to_optional_int64(row.at(11));
    m.last_delay_us = to_int64(row.at(12));
    m.last_error.category = row.at(13).value_or("");
    m.last_error.sqlstate = row.at(14).value_or("");
    m.last_error.native_code = to_optional_int64(row.at(15));
    m.last_error.http_status = static_cast<int>(to_int64(row.at(16)));
    m.last_error.message = row.at(17).value_or("");
    m.route = row.at(18).value_or("");
    m.dead_reason = row.at(19).value_or("");
    return m;
}

std::string id_list(std::span<const std::int64_t> ids) {
    std::string list;
    for (std::int64_t id : ids) {
        list += (list.empty() ? "" : ", ") + std::to_string(id);
    }
    return list;
}

OwnTransaction::OwnTransaction(Connection& connection, Vendor vendor)
    : connection_(connection), autocommit_(connection.autocommit()) {
    connection_.set_autocommit(false);
    if (vendor == Vendor::Sqlite) {
        connection_.execute(kSqliteBeginWrite);
    }
}

OwnTransaction::~OwnTransaction() {
    if (!committed_) {
        try {
            connection_.rollback();
        } catch (...) {
            // The session may be gone; the server rolls back with it.
        }
    }
    try {
        connection_.set_autocommit(autocommit_);
    } catch (...) {
        // Reported by the next statement on this connection.
    }
}

void OwnTransaction::commit() {
    connection_.commit();
    committed_ = true;
}

}  // namespace rebound::queue::store
