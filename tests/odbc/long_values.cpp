#include "long_values.hpp"

#include <dlfcn.h>
#include <sql.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdint>

namespace {

std::atomic<std::int64_t> get_data_calls{0};

}  // namespace

// The driver manager's SQLGetData, counted: this program's definition comes first in the symbol
// search order, so the adapter's calls arrive here and go on to the next definition (unixODBC's).
// The drivers do not call SQLGetData themselves (no relocation for it in psqlodbcw.so,
// libmaodbc.so or libsqlite3odbc.so), so only the adapter's calls are counted.
extern "C" SQLRETURN SQL_API SQLGetData(SQLHSTMT statement, SQLUSMALLINT column,
                                        SQLSMALLINT target_type, SQLPOINTER target,
                                        SQLLEN buffer_length, SQLLEN* indicator) {
    using Function =
        SQLRETURN (*)(SQLHSTMT, SQLUSMALLINT, SQLSMALLINT, SQLPOINTER, SQLLEN, SQLLEN*);
    static const auto next = reinterpret_cast<Function>(dlsym(RTLD_NEXT, "SQLGetData"));
    if (next == nullptr) {
        return SQL_ERROR;
    }
    get_data_calls.fetch_add(1, std::memory_order_relaxed);
    return next(statement, column, target_type, target, buffer_length, indicator);
}

namespace rebound::testing {

namespace {

// `length` bytes of printable ASCII that repeat every 89 bytes, a length no piece is a multiple
// of, so a piece written at the wrong offset changes the text.
std::string pattern(std::size_t length) {
    std::string text(length, ' ');
    for (std::size_t index = 0; index < length; ++index) {
        text[index] = static_cast<char>('!' + index % 89);
    }
    return text;
}

}  // namespace

void long_text_is_read_whole_in_few_calls(odbc::Connection& connection,
                                          const std::string& text_type) {
    connection.execute("DROP TABLE IF EXISTS rb_long_values");
    connection.execute("CREATE TABLE rb_long_values (id INTEGER PRIMARY KEY, value " + text_type +
                       ")");
    const std::string insert = "INSERT INTO rb_long_values (id, value) VALUES (?, ?)";
    const std::size_t lengths[] = {0, 511, 512, 513, 100'000, 10'000'000};
    std::int64_t id = 0;
    for (const std::size_t length : lengths) {
        connection.execute(insert, {++id, pattern(length)});
    }
    connection.execute(insert, {++id, odbc::SqlNull{}});

    id = 0;
    for (const std::size_t length : lengths) {
        INFO("a value of " << length << " bytes");
        get_data_calls = 0;
        const std::vector<odbc::SqlRow> rows =
            connection.query("SELECT value FROM rb_long_values WHERE id = ?", {++id});
        REQUIRE(rows.size() == 1);
        REQUIRE(rows[0][0].has_value());
        CHECK(rows[0][0]->size() == length);
        CHECK(*rows[0][0] == pattern(length));
        // One call for what fits the first 511 bytes, two with the length the driver reports
        // (a third if it answers SQL_NO_DATA at the end); doubling without one would take 15
        // for 10 MB.
        CHECK(get_data_calls <= (length < 512 ? 2 : 3));
    }
    const std::vector<odbc::SqlRow> rows =
        connection.query("SELECT value FROM rb_long_values WHERE id = ?", {++id});
    REQUIRE(rows.size() == 1);
    CHECK_FALSE(rows[0][0].has_value());
    connection.execute("DROP TABLE rb_long_values");
}

}  // namespace rebound::testing
