// Vendor detection: which vendor map applies to a connection, from the DBMS name its driver
// reports (SQLGetInfo SQL_DBMS_NAME).
#pragma once

#include <sql.h>

#include <optional>
#include <string>
#include <string_view>

#include "rebound/vendor.hpp"

namespace rebound::odbc {

// The vendor of a DBMS name as drivers report it: `PostgreSQL`, `MariaDB`/`MySQL`,
// `Microsoft SQL Server`, `Oracle`, `DB2/LINUXX8664` (any `DB2...`), `SQLite`, `CockroachDB`.
// Case-insensitive. Anything else is nullopt (only the generic SQLSTATE map will apply).
std::optional<Vendor> vendor_from_dbms_name(std::string_view dbms_name) noexcept;

// SQL_DBMS_NAME of a connected handle; empty when the driver does not answer.
std::string read_dbms_name(SQLHDBC connection);

}  // namespace rebound::odbc
