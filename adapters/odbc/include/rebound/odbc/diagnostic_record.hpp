// DiagnosticRecord: one ODBC diagnostic record (SQLGetDiagRec) of a failed call, owned.
//
// A failing ODBC call may leave several records on its handle; the useful one is not always the
// first (a driver may put its own generic record before the server's). read_diagnostic_records
// reads them all, up to a cap, so the classifier can pick the most specific (docs/categories.md).
#pragma once

#include <sql.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rebound::odbc {

struct DiagnosticRecord {
    std::string sqlstate;  // as the driver reported it (ODBC 2 or 3); five characters
    std::int64_t native_code = 0;
    std::string message;

    // SQLSTATE class `01`: a warning that accompanies success, never a reason to retry.
    bool is_warning() const noexcept;
};

// The most records read from one handle: a driver that reports hundreds (a batch) must not
// make error handling slow.
inline constexpr std::size_t kMaxDiagnosticRecords = 16;

// Every diagnostic record of `handle` (of ODBC type `handle_type`), in order, at most
// `max_records`. Warnings are included (filter with is_warning). Messages of any length are read
// whole. Returns an empty vector when the handle has none or is null. Never throws except
// std::bad_alloc. Must not run concurrently with other calls on the same handle.
std::vector<DiagnosticRecord> read_diagnostic_records(
    SQLSMALLINT handle_type, SQLHANDLE handle, std::size_t max_records = kMaxDiagnosticRecords);

}  // namespace rebound::odbc
