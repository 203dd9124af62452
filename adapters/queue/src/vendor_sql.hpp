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

}  // namespace rebound::queue::detail
