#include "rebound/odbc/command_deduplication.hpp"

#include <stdexcept>
#include <utility>

namespace rebound::odbc {

namespace {

bool is_identifier(std::string_view name) noexcept {
    if (name.empty() || name.size() > 63) {
        return false;
    }
    const auto letter = [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    };
    const auto digit = [](char c) { return c >= '0' && c <= '9'; };
    if (!letter(name.front())) {
        return false;
    }
    for (char c : name) {
        if (!letter(c) && !digit(c)) {
            return false;
        }
    }
    return true;
}

}  // namespace

CommandDeduplication::CommandDeduplication(std::string table) : table_(std::move(table)) {
    if (!is_identifier(table_)) {
        throw std::invalid_argument("CommandDeduplication: the table name '" + table_ +
                                    "' is not a plain SQL identifier");
    }
}

std::string CommandDeduplication::create_table_sql(std::optional<Vendor> vendor) const {
    switch (vendor.value_or(Vendor::Generic)) {
        case Vendor::PostgreSql:
        case Vendor::CockroachDb:
            return "CREATE TABLE IF NOT EXISTS " + table_ +
                   " (command_id VARCHAR(200) PRIMARY KEY, result TEXT NOT NULL,"
                   " created_at TIMESTAMPTZ NOT NULL DEFAULT now())";
        case Vendor::MySql:
            // 191 characters keep the key within InnoDB's 767-byte limit in utf8mb4.
            return "CREATE TABLE IF NOT EXISTS " + table_ +
                   " (command_id VARCHAR(191) NOT NULL PRIMARY KEY, result TEXT NOT NULL,"
                   " created_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)) ENGINE=InnoDB";
        case Vendor::Sqlite:
            return "CREATE TABLE IF NOT EXISTS " + table_ +
                   " (command_id TEXT NOT NULL PRIMARY KEY, result TEXT NOT NULL,"
                   " created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP)";
        case Vendor::SqlServer:
        case Vendor::Oracle:
        case Vendor::Db2:
        case Vendor::Generic:
            break;
    }
    return "CREATE TABLE " + table_ +
           " (command_id VARCHAR(200) NOT NULL PRIMARY KEY, result VARCHAR(4000) NOT NULL)";
}

void CommandDeduplication::create_table(Connection& connection) const {
    connection.execute(create_table_sql(connection.vendor()));
}

std::optional<std::string> CommandDeduplication::find(Connection& connection,
                                                      std::string_view command_id) const {
    return connection.query_value("SELECT result FROM " + table_ + " WHERE command_id = ?",
                                  {std::string(command_id)});
}

void CommandDeduplication::record(Connection& connection, std::string_view command_id,
                                  std::string_view result) const {
    connection.execute("INSERT INTO " + table_ + " (command_id, result) VALUES (?, ?)",
                       {std::string(command_id), std::string(result)});
}

}  // namespace rebound::odbc
