// Database vendors whose native error codes Rebound understands (docs/categories.md, docs/cli.md).
//
// MariaDB reports MySQL's native codes and is covered by `mysql`. `generic` stands for "no
// vendor-specific knowledge": only the ISO/ODBC SQLSTATE map applies.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace rebound {

enum class Vendor : std::uint8_t {
    PostgreSql,
    MySql,
    SqlServer,
    Oracle,
    Db2,
    Sqlite,
    CockroachDb,
    Generic,
};

struct VendorInfo {
    Vendor vendor;
    std::string_view wire_name;
};

inline constexpr std::array<VendorInfo, 8> kVendorTable{{
    {Vendor::PostgreSql, "postgresql"},
    {Vendor::MySql, "mysql"},
    {Vendor::SqlServer, "sqlserver"},
    {Vendor::Oracle, "oracle"},
    {Vendor::Db2, "db2"},
    {Vendor::Sqlite, "sqlite"},
    {Vendor::CockroachDb, "cockroachdb"},
    {Vendor::Generic, "generic"},
}};

constexpr std::string_view to_string(Vendor v) noexcept {
    return kVendorTable[static_cast<std::size_t>(v)].wire_name;
}

// The vendor with this wire name, or nullopt.
constexpr std::optional<Vendor> parse_vendor(std::string_view wire_name) noexcept {
    for (const VendorInfo& info : kVendorTable) {
        if (info.wire_name == wire_name) {
            return info.vendor;
        }
    }
    return std::nullopt;
}

static_assert([] {
    for (std::size_t i = 0; i < kVendorTable.size(); ++i) {
        if (static_cast<std::size_t>(kVendorTable[i].vendor) != i) {
            return false;
        }
    }
    return true;
}());

}  // namespace rebound
