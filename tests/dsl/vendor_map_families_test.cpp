// The families the shipped vendor maps cover with native ranges (docs/vendor-maps.md, Families):
// every code of tests/data/vendor-codes/families.tsv classifies as the category it names, with the
// native code alone deciding (SQLSTATE HY000) unless the row gives another SQLSTATE.
// scripts/vendor-map-accuracy.py reports the same rows' agreement for any maps directory.
#include <catch2/catch.hpp>

#include <charconv>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "rebound/dsl/vendor_map_loader.hpp"

namespace {

struct Row {
    std::string vendor, sqlstate, native, phase, category, meaning;
    int line = 0;
};

std::vector<Row> rows() {
    std::ifstream in(REBOUND_VENDOR_CODES_FILE);
    REQUIRE(in);
    std::vector<Row> result;
    std::string text;
    for (int line = 1; std::getline(in, text); ++line) {
        if (text.empty() || text.starts_with('#')) {
            continue;
        }
        Row row;
        row.line = line;
        std::istringstream fields(text);
        std::getline(fields, row.vendor, '\t');
        std::getline(fields, row.sqlstate, '\t');
        std::getline(fields, row.native, '\t');
        std::getline(fields, row.phase, '\t');
        std::getline(fields, row.category, '\t');
        std::getline(fields, row.meaning, '\t');
        result.push_back(row);
    }
    return result;
}

}  // namespace

TEST_CASE("every code of the Oracle and SQL Server families gets its category",
          "[vendor_maps][native_range]") {
    const auto classifier = rebound::dsl::load_vendor_maps_or_throw(REBOUND_VENDOR_MAP_DIR);
    const std::vector<Row> all = rows();
    CHECK(all.size() >= 80);
    for (const Row& row : all) {
        INFO("families.tsv:" << row.line << ": " << row.meaning);
        rebound::SqlErrorRecord record;
        record.vendor = rebound::parse_vendor(row.vendor);
        REQUIRE(record.vendor);
        record.sqlstate = row.sqlstate;
        std::int64_t native = 0;
        REQUIRE(
            std::from_chars(row.native.data(), row.native.data() + row.native.size(), native).ec ==
            std::errc{});
        record.native_code = native;
        const auto phase = rebound::parse_database_phase(row.phase);
        REQUIRE(phase);
        record.phase = *phase;
        const rebound::SqlClassification result = classifier->classify(record);
        INFO("matched " << result.matched);
        CHECK(rebound::category_info(result.category).wire_name == row.category);
    }
}
