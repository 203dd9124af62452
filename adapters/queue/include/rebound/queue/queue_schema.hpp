// The queue's tables, created and migrated by versioned, idempotent SQL per database
// (docs/queue.md, "Tables").
//
// Version N is a list of statements per vendor, each safe to run twice (IF NOT EXISTS). migrate()
// takes a database-wide lock (PostgreSQL advisory lock, MariaDB GET_LOCK; SQLite's single writer),
// reads the highest applied version from rebound_queue_schema, applies every later version in
// order and records it. Running it again changes nothing; two processes running it at once apply
// each version once.
#pragma once

#include <string>
#include <vector>

#include "rebound/odbc/connection.hpp"
#include "rebound/vendor.hpp"

namespace rebound::queue {

// The schema version this library writes and reads.
inline constexpr int kSchemaVersion = 1;

inline constexpr std::string_view kMessagesTable = "rebound_queue_messages";
inline constexpr std::string_view kPausedTable = "rebound_queue_paused";
inline constexpr std::string_view kSchemaTable = "rebound_queue_schema";

// Thrown when the database cannot be used by this library: a vendor the queue does not support,
// a schema newer than kSchemaVersion, or no schema at all where one is required.
class SchemaError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// The statements of `version` (1..kSchemaVersion) for `vendor` (PostgreSQL or CockroachDB,
// MySQL/MariaDB, SQLite). Throws SchemaError for another vendor.
std::vector<std::string> migration_statements(Vendor vendor, int version);

struct MigrationResult {
    int from_version = 0;  // 0: no queue tables before
    int to_version = 0;
};

// Creates or migrates the tables to kSchemaVersion; commits. Leaves the connection's autocommit
// as it found it. Throws SchemaError (unsupported vendor, newer schema) or odbc::DatabaseError.
MigrationResult migrate(odbc::Connection& connection);

// The applied version, 0 when the queue tables were never created. Throws odbc::DatabaseError.
int schema_version(odbc::Connection& connection);

// Throws SchemaError unless the schema is exactly kSchemaVersion, saying what to run
// (`rebound queue init`).
void require_current_schema(odbc::Connection& connection);

}  // namespace rebound::queue
