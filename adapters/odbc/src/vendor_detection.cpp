#include "rebound/odbc/vendor_detection.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace rebound::odbc {

namespace {

bool contains_ignoring_case(std::string_view text, std::string_view part) noexcept {
    const auto lower = [](char c) noexcept {
        return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    };
    return std::search(text.begin(), text.end(), part.begin(), part.end(),
                       [&](char a, char b) { return lower(a) == lower(b); }) != text.end();
}

struct DbmsNamePattern {
    std::string_view part;
    Vendor vendor;
};

// Checked in order: CockroachDB before PostgreSQL (it may call itself PostgreSQL-compatible),
// MariaDB and MySQL share the MySQL map (vendor.hpp).
constexpr std::array<DbmsNamePattern, 8> kPatterns{{
    {"cockroach", Vendor::CockroachDb},
    {"postgres", Vendor::PostgreSql},
    {"mariadb", Vendor::MySql},
    {"mysql", Vendor::MySql},
    {"sql server", Vendor::SqlServer},
    {"oracle", Vendor::Oracle},
    {"db2", Vendor::Db2},
    {"sqlite", Vendor::Sqlite},
}};

}  // namespace

std::optional<Vendor> vendor_from_dbms_name(std::string_view dbms_name) noexcept {
    for (const DbmsNamePattern& pattern : kPatterns) {
        if (contains_ignoring_case(dbms_name, pattern.part)) {
            return pattern.vendor;
        }
    }
    return std::nullopt;
}

std::string read_dbms_name(SQLHDBC connection) {
    std::array<SQLCHAR, 256> buffer{};
    SQLSMALLINT length = 0;
    const SQLRETURN rc = SQLGetInfo(connection, SQL_DBMS_NAME, buffer.data(),
                                    static_cast<SQLSMALLINT>(buffer.size()), &length);
    if (!SQL_SUCCEEDED(rc)) {
        return {};
    }
    return std::string(reinterpret_cast<const char*>(buffer.data()));
}

}  // namespace rebound::odbc
