// Reading one column of the current row as text (SQLGetData), whatever its length.
#pragma once

#include <sql.h>

#include <optional>
#include <string>

namespace rebound::odbc::detail {

// Column `column` of the current row of `statement` as text; nullopt for NULL. Sets `ok` to
// false (and returns nullopt) when the driver failed; its diagnostics are then on `statement`.
//
// Linear in the value's length: values up to 511 bytes take one SQLGetData call into a buffer on
// the stack; a longer value is read on into a string sized from the length the driver reports
// with the first piece (SQL_NO_TOTAL, or a length that turns out short, doubles the string
// instead), so each byte is copied once and a value of n bytes takes O(log n) calls at most,
// two with drivers that report the length (sqliteodbc, psqlODBC, MariaDB Connector/ODBC).
// Throws std::bad_alloc or std::length_error when the value does not fit in memory.
std::optional<std::string> read_column_text(SQLHSTMT statement, SQLUSMALLINT column, bool& ok);

}  // namespace rebound::odbc::detail
