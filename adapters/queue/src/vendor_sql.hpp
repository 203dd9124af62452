// SQL fragments that differ by database, shared by the schema and the store.
#pragma once

#include <string>

#include "rebound/vendor.hpp"

namespace rebound::queue::detail {

// An expression for the database clock in microseconds since the Unix epoch (BIGINT).
inline std::string now_microseconds_sql(Vendor vendor) {
    switch (vendor) {
        case Vendor::PostgreSql:
        case Vendor::CockroachDb:
            return "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)";
        case Vendor::MySql:
            return "CAST(UNIX_TIMESTAMP(NOW(6)) * 1000000 AS SIGNED)";
        default:
            // julianday('now') has millisecond resolution, fixed within one statement.
            return "CAST((julianday('now') - 2440587.5) * 86400000000.0 AS INTEGER)";
    }
}

// The database clock at the start of the statement, for comparisons with indexed columns
// (`due_at <= ...`). On PostgreSQL clock_timestamp() is volatile, so it cannot bound an index
// scan: the claim then reads every due row and sorts them, and its cost grows with the backlog;
// statement_timestamp() is stable and can. The others are fixed within a statement already.
inline std::string statement_time_microseconds_sql(Vendor vendor) {
    switch (vendor) {
        case Vendor::PostgreSql:
        case Vendor::CockroachDb:
            return "CAST(EXTRACT(EPOCH FROM statement_timestamp()) * 1000000 AS BIGINT)";
        default:
            return now_microseconds_sql(vendor);
    }
}

}  // namespace rebound::queue::detail
