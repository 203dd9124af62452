#include "rebound/odbc/diagnostic_record.hpp"

#include <algorithm>
#include <array>

namespace rebound::odbc {

bool DiagnosticRecord::is_warning() const noexcept {
    return sqlstate.size() >= 2 && sqlstate[0] == '0' && sqlstate[1] == '1';
}

namespace {

constexpr SQLSMALLINT kInitialMessageBuffer = 512;

}  // namespace

std::vector<DiagnosticRecord> read_diagnostic_records(SQLSMALLINT handle_type, SQLHANDLE handle,
                                                      std::size_t max_records) {
    std::vector<DiagnosticRecord> records;
    if (handle == nullptr) {
        return records;
    }
    for (std::size_t index = 1; index <= max_records; ++index) {
        const auto record_number = static_cast<SQLSMALLINT>(index);
        std::array<SQLCHAR, 6> sqlstate{};
        SQLINTEGER native = 0;
        std::string message(static_cast<std::size_t>(kInitialMessageBuffer), '\0');
        SQLSMALLINT message_length = 0;
        SQLRETURN rc = SQLGetDiagRec(handle_type, handle, record_number, sqlstate.data(), &native,
                                     reinterpret_cast<SQLCHAR*>(message.data()),
                                     kInitialMessageBuffer, &message_length);
        if (rc == SQL_NO_DATA || !SQL_SUCCEEDED(rc)) {
            break;
        }
        if (message_length >= kInitialMessageBuffer) {
            // Truncated: ask again with room for the whole text and its terminator.
            const auto needed = static_cast<SQLSMALLINT>(message_length + 1);
            message.assign(static_cast<std::size_t>(needed), '\0');
            rc = SQLGetDiagRec(handle_type, handle, record_number, sqlstate.data(), &native,
                               reinterpret_cast<SQLCHAR*>(message.data()), needed, &message_length);
            if (!SQL_SUCCEEDED(rc)) {
                break;
            }
        }
        const auto length = static_cast<std::size_t>(message_length < 0 ? 0 : message_length);
        message.resize(std::min(length, message.size()));
        DiagnosticRecord record;
        record.sqlstate.assign(reinterpret_cast<const char*>(sqlstate.data()));
        record.native_code = native;
        record.message = std::move(message);
        records.push_back(std::move(record));
    }
    return records;
}

}  // namespace rebound::odbc
