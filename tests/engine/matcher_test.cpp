#include <catch2/catch.hpp>

#include <vector>

#include "rebound/matcher_set.hpp"

using rebound::ErrorCategory;
using rebound::ErrorDescription;
using rebound::Matcher;
using rebound::MatcherSet;
using rebound::Vendor;

namespace {

std::optional<std::size_t> find(const std::vector<Matcher>& matchers, const ErrorDescription& e,
                                const rebound::ErrorTypeRegistry* registry = nullptr) {
    return MatcherSet::compile(matchers, registry).find(e);
}

ErrorDescription with_sqlstate(std::string_view s) {
    ErrorDescription e;
    e.sqlstate = s;
    return e;
}

ErrorDescription with_type(std::string_view t) {
    ErrorDescription e;
    e.error_type = t;
    return e;
}

ErrorDescription with_http(int status) {
    ErrorDescription e;
    e.http_status = status;
    return e;
}

}  // namespace

TEST_CASE("category matchers and the transient group", "[matcher]") {
    const std::vector<Matcher> list{Matcher::of_category(ErrorCategory::Deadlock)};
    CHECK(find(list, ErrorDescription::of(ErrorCategory::Deadlock)) == 0u);
    CHECK_FALSE(find(list, ErrorDescription::of(ErrorCategory::LockTimeout)));

    const std::vector<Matcher> transient{Matcher::transient()};
    for (const auto& info : rebound::kCategoryTable) {
        CHECK(find(transient, ErrorDescription::of(info.category)).has_value() ==
              info.retryable_by_default);
    }
    // An error without a category counts as unknown, which is not transient.
    CHECK_FALSE(find(transient, ErrorDescription{}));
    CHECK(find({Matcher::of_category(ErrorCategory::Unknown)}, ErrorDescription{}) == 0u);
}

TEST_CASE("sqlstate and sqlstate class matchers are case-insensitive", "[matcher]") {
    const std::vector<Matcher> list{Matcher::sqlstate("40p01"), Matcher::sqlstate_class("08")};
    CHECK(find(list, with_sqlstate("40P01")) == 0u);
    CHECK(find(list, with_sqlstate("40p01")) == 0u);
    CHECK(find(list, with_sqlstate("08S01")) == 1u);
    CHECK(find(list, with_sqlstate("08006")) == 1u);
    CHECK_FALSE(find(list, with_sqlstate("40001")));
    CHECK_FALSE(find(list, with_sqlstate("08")));  // not a SQLSTATE
    CHECK_FALSE(find(list, with_sqlstate("")));
    CHECK(list[0].to_string() == "sqlstate:40P01");
    CHECK(list[1].to_string() == "sqlstate_class:08");
}

TEST_CASE("vendor native matchers need both vendor and code to be equal", "[matcher]") {
    const std::vector<Matcher> list{Matcher::native(Vendor::MySql, 1213)};
    ErrorDescription e;
    e.vendor = Vendor::MySql;
    e.native_code = 1213;
    CHECK(find(list, e) == 0u);
    e.vendor = Vendor::SqlServer;
    CHECK_FALSE(find(list, e));
    e.vendor = Vendor::MySql;
    e.native_code = 1205;
    CHECK_FALSE(find(list, e));
    e.native_code.reset();
    CHECK_FALSE(find(list, e));
    CHECK(list[0].to_string() == "native:mysql:1213");
}

TEST_CASE("error type matchers match dotted subtypes and registered subtypes", "[matcher]") {
    const std::vector<Matcher> list{Matcher::error_type("io.timeout")};
    CHECK(find(list, with_type("io.timeout")) == 0u);
    CHECK(find(list, with_type("io.timeout.read")) == 0u);
    CHECK(find(list, with_type("io.timeout.read.tls")) == 0u);
    CHECK_FALSE(find(list, with_type("io")));
    CHECK_FALSE(find(list, with_type("io.timeouts")));
    CHECK_FALSE(find(list, with_type("db.query_timeout")));

    rebound::ErrorTypeRegistry registry;
    registry.add("db.query_timeout", "io.timeout");
    registry.add("vendor.special", "db.query_timeout.slow");
    CHECK(find(list, with_type("db.query_timeout"), &registry) == 0u);
    CHECK(find(list, with_type("db.query_timeout.long"), &registry) == 0u);
    CHECK(find(list, with_type("vendor.special"), &registry) == 0u);
    CHECK_FALSE(find(list, with_type("db"), &registry));
    CHECK(list[0].to_string() == "error:io.timeout");
}

TEST_CASE("the error type registry refuses cycles, conflicts and bad names", "[matcher]") {
    rebound::ErrorTypeRegistry registry;
    registry.add("b", "a");
    registry.add("b", "a");  // same registration again is harmless
    CHECK_THROWS_AS(registry.add("b", "c"), std::invalid_argument);
    CHECK_THROWS_AS(registry.add("a", "b"), std::invalid_argument);
    CHECK_THROWS_AS(registry.add("a", "b.x"), std::invalid_argument);
    CHECK_THROWS_AS(registry.add("9bad", "a"), std::invalid_argument);
    CHECK(registry.is_subtype("b.x", "a"));
}

TEST_CASE("http matchers match a status or a whole class", "[matcher]") {
    const std::vector<Matcher> list{Matcher::http_status(503), Matcher::http_class(5),
                                    Matcher::http_status(429)};
    CHECK(find(list, with_http(503)) == 0u);
    CHECK(find(list, with_http(502)) == 1u);
    CHECK(find(list, with_http(599)) == 1u);
    CHECK(find(list, with_http(429)) == 2u);
    CHECK_FALSE(find(list, with_http(404)));
    CHECK_FALSE(find(list, with_http(0)));
    CHECK_FALSE(find(list, with_http(600)));
    CHECK_FALSE(find(list, with_http(-5)));
    CHECK(list[1].to_string() == "http:5xx");
}

TEST_CASE("message matchers look for a case-sensitive substring", "[matcher]") {
    const std::vector<Matcher> list{Matcher::message("database is locked")};
    ErrorDescription e;
    e.message = "[SQLite]database is locked (5)";
    CHECK(find(list, e) == 0u);
    e.message = "Database Is Locked";
    CHECK_FALSE(find(list, e));
    CHECK(list[0].to_string() == "message:database is locked");
}

TEST_CASE("the first matching rule in list order is reported", "[matcher]") {
    const std::vector<Matcher> list{
        Matcher::message("deadlock"), Matcher::sqlstate_class("40"), Matcher::sqlstate("40P01"),
        Matcher::of_category(ErrorCategory::Deadlock), Matcher::transient()};
    ErrorDescription e = ErrorDescription::of(ErrorCategory::Deadlock);
    e.sqlstate = "40P01";
    CHECK(find(list, e) == 1u);
    e.message = "deadlock detected";
    CHECK(find(list, e) == 0u);
    CHECK(find(list, ErrorDescription::of(ErrorCategory::Deadlock)) == 3u);
    CHECK(find(list, ErrorDescription::of(ErrorCategory::LockTimeout)) == 4u);
    CHECK(MatcherSet{}.empty());
    CHECK_FALSE(MatcherSet{}.find(e));
}
