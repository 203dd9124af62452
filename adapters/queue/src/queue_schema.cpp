#include "rebound/queue/queue_schema.hpp"

#include <algorithm>
#include <charconv>

#include "vendor_sql.hpp"

namespace rebound::queue {

namespace {

// The columns of version 1; `id` and the text types differ by vendor.
std::string messages_columns(std::string_view id, std::string_view text, std::string_view name) {
    const std::string n(name);
    return "(" + std::string(id) + ", handler " + n + " NOT NULL, msg_key " + n + ", payload " +
           std::string(text) + " NOT NULL, command_id " + n +
           " NOT NULL, attempt INTEGER NOT NULL DEFAULT 0, state VARCHAR(8) NOT NULL DEFAULT "
           "'ready' CHECK (state IN ('ready', 'leased', 'done', 'dead')), due_at BIGINT NOT NULL,"
           " created_at BIGINT NOT NULL, first_attempt_at BIGINT, claimed_at BIGINT, lease_until"
           " BIGINT, lease_owner VARCHAR(120), last_delay_us BIGINT NOT NULL DEFAULT 0,"
           " finished_at BIGINT, last_error_category VARCHAR(40), last_error_sqlstate VARCHAR(5),"
           " last_error_native BIGINT, last_error_http INTEGER, last_error_message " +
           std::string(text) + ", route " + n + ", dead_reason VARCHAR(40))";
}

// The table, its indexes (given by their column lists and conditions) and the paused table.
std::vector<std::string> tables_and_indexes(const std::string& messages_sql,
                                            const std::string& index_columns_ready,
                                            const std::string& index_columns_leased,
                                            const std::string& index_columns_key,
                                            const std::string& index_columns_dead,
                                            const std::string& paused_sql) {
    const std::string on = " ON " + std::string(kMessagesTable) + " ";
    return {messages_sql,
            "CREATE INDEX IF NOT EXISTS rebound_queue_ready" + on + index_columns_ready,
            "CREATE INDEX IF NOT EXISTS rebound_queue_leased" + on + index_columns_leased,
            "CREATE INDEX IF NOT EXISTS rebound_queue_key" + on + index_columns_key,
            "CREATE INDEX IF NOT EXISTS rebound_queue_dead" + on + index_columns_dead,
            paused_sql};
}

// PostgreSQL and SQLite: partial indexes. The claim, reclaim, key-order and dead-list scans only
// ever read rows that are not done, so the indexes stay small however many done rows are kept.
std::vector<std::string> with_partial_indexes(const std::string& messages_sql,
                                              const std::string& paused_sql) {
    return tables_and_indexes(messages_sql, "(due_at, id) WHERE state = 'ready'",
                              "(lease_until) WHERE state = 'leased'",
                              "(msg_key, id) WHERE msg_key IS NOT NULL AND state <> 'done'",
                              "(handler, id) WHERE state = 'dead'", paused_sql);
}

std::vector<std::string> version_1(Vendor vendor) {
    const std::string create = "CREATE TABLE IF NOT EXISTS ";
    const std::string messages = create + std::string(kMessagesTable);
    const std::string paused = create + std::string(kPausedTable);
    switch (vendor) {
        case Vendor::PostgreSql:
        case Vendor::CockroachDb:
            return with_partial_indexes(
                messages + messages_columns("id BIGSERIAL PRIMARY KEY", "TEXT", "VARCHAR(200)"),
                paused + " (handler VARCHAR(200) PRIMARY KEY, paused_at BIGINT NOT NULL)");
        case Vendor::MySql:
            // No partial indexes: the state leads, so done rows sit apart from the scanned ones.
            // 191 characters keep keys within InnoDB's 767-byte limit in utf8mb4.
            return tables_and_indexes(
                messages +
                    messages_columns("id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY", "LONGTEXT",
                                     "VARCHAR(191)") +
                    " ENGINE=InnoDB",
                "(state, due_at, id)", "(state, lease_until)", "(msg_key, state, id)",
                "(state, handler, id)",
                paused +
                    " (handler VARCHAR(191) NOT NULL PRIMARY KEY, paused_at BIGINT NOT NULL)"
                    " ENGINE=InnoDB");
        case Vendor::Sqlite:
            return with_partial_indexes(
                messages + messages_columns("id INTEGER PRIMARY KEY AUTOINCREMENT", "TEXT", "TEXT"),
                paused + " (handler TEXT NOT NULL PRIMARY KEY, paused_at BIGINT NOT NULL)");
        case Vendor::SqlServer:
        case Vendor::Oracle:
        case Vendor::Db2:
        case Vendor::Generic:
            break;
    }
    throw SchemaError("the retry queue supports PostgreSQL, MariaDB/MySQL and SQLite, not " +
                      std::string(to_string(vendor)));
}

std::string schema_table_sql(Vendor vendor) {
    return "CREATE TABLE IF NOT EXISTS " + std::string(kSchemaTable) +
           " (version INTEGER NOT NULL PRIMARY KEY, applied_at BIGINT NOT NULL)" +
           (vendor == Vendor::MySql ? " ENGINE=InnoDB" : "");
}

Vendor queue_vendor(const odbc::Connection& connection) {
    if (!connection.vendor()) {
        throw SchemaError("the retry queue cannot tell which database '" + connection.dbms_name() +
                          "' is");
    }
    return *connection.vendor();
}

int read_version(odbc::Connection& connection) {
    const std::optional<std::string> text =
        connection.query_value("SELECT MAX(version) FROM " + std::string(kSchemaTable));
    int version = 0;
    if (text) {
        std::from_chars(text->data(), text->data() + text->size(), version);
    }
    return version;
}

// Serialises concurrent migrations for the rest of the transaction (PostgreSQL) or until
// released (MariaDB). SQLite: the first write takes the database lock.
void lock_migrations(odbc::Connection& connection, Vendor vendor) {
    if (vendor == Vendor::PostgreSql) {
        connection.query("SELECT pg_advisory_xact_lock(72700118)");
    } else if (vendor == Vendor::MySql) {
        if (connection.query_value("SELECT GET_LOCK('rebound_queue_migrate', 60)") != "1") {
            throw SchemaError("another process held the queue migration lock for 60 s");
        }
    }
}

void unlock_migrations(odbc::Connection& connection, Vendor vendor) noexcept {
    if (vendor == Vendor::MySql) {
        try {
            connection.query("SELECT RELEASE_LOCK('rebound_queue_migrate')");
        } catch (...) {
            // The lock goes with the session anyway.
        }
    }
}

}  // namespace

std::vector<std::string> migration_statements(Vendor vendor, int version) {
    if (version != 1) {
        throw SchemaError("no queue schema version " + std::to_string(version));
    }
    return version_1(vendor);
}

int schema_version(odbc::Connection& connection) {
    queue_vendor(connection);
    // The schema table's own presence: create-if-missing would write, so probe by reading.
    try {
        return read_version(connection);
    } catch (const odbc::DatabaseError& error) {
        if (!connection.autocommit()) {
            connection.rollback();
        }
        if (error.category() == ErrorCategory::SyntaxError) {
            return 0;  // no such table (42P01, 42S02, SQLite's "no such table")
        }
        throw;
    }
}

MigrationResult migrate(odbc::Connection& connection) {
    const Vendor vendor = queue_vendor(connection);
    const bool autocommit = connection.autocommit();
    if (vendor == Vendor::Sqlite && autocommit) {
        // Write-ahead logging: readers (status, other threads' reads) never block the writer and
        // the writer never blocks them. Persistent for the file; not allowed inside a transaction.
        connection.query("PRAGMA journal_mode=WAL");
    }
    connection.set_autocommit(false);
    MigrationResult result;
    try {
        lock_migrations(connection, vendor);
        connection.execute(schema_table_sql(vendor));
        result.from_version = read_version(connection);
        if (result.from_version > kSchemaVersion) {
            throw SchemaError("the queue schema in this database is version " +
                              std::to_string(result.from_version) + ", newer than this library's " +
                              std::to_string(kSchemaVersion) + ": upgrade Rebound");
        }
        for (int version = result.from_version + 1; version <= kSchemaVersion; ++version) {
            for (const std::string& statement : migration_statements(vendor, version)) {
                connection.execute(statement);
            }
            connection.execute("INSERT INTO " + std::string(kSchemaTable) +
                                   " (version, applied_at) VALUES (?, " +
                                   detail::now_microseconds_sql(vendor) + ")",
                               {std::int64_t{version}});
        }
        connection.commit();
        result.to_version = std::max(result.from_version, kSchemaVersion);
    } catch (...) {
        try {
            connection.rollback();
        } catch (...) {
            // The session may be gone; the server rolls back with it.
        }
        unlock_migrations(connection, vendor);
        connection.set_autocommit(autocommit);
        throw;
    }
    unlock_migrations(connection, vendor);
    connection.set_autocommit(autocommit);
    return result;
}

void require_current_schema(odbc::Connection& connection) {
    const int version = schema_version(connection);
    if (version == kSchemaVersion) {
        return;
    }
    if (version == 0) {
        throw SchemaError("this database has no retry queue tables: run `rebound queue init`");
    }
    if (version < kSchemaVersion) {
        throw SchemaError("the queue schema is version " + std::to_string(version) +
                          ", this library needs " + std::to_string(kSchemaVersion) +
                          ": run `rebound queue init` to migrate");
    }
    throw SchemaError("the queue schema is version " + std::to_string(version) +
                      ", newer than this library's " + std::to_string(kSchemaVersion) +
                      ": upgrade Rebound");
}

}  // namespace rebound::queue
