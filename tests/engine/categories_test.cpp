#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "rebound/error_category.hpp"
#include "rebound/vendor.hpp"

using rebound::ErrorCategory;

TEST_CASE("the category table has the 23 categories of the spec with their defaults",
          "[categories]") {
    CHECK(rebound::kCategoryCount == 23);
    std::set<std::string> retryable;
    std::set<std::string> names;
    for (const auto& info : rebound::kCategoryTable) {
        names.insert(std::string(info.wire_name));
        if (info.retryable_by_default) {
            retryable.insert(std::string(info.wire_name));
        }
    }
    CHECK(names.size() == 23);
    CHECK(retryable == std::set<std::string>{"deadlock", "serialization_failure", "lock_timeout",
                                             "connection_failure", "connection_lost",
                                             "resource_exhausted", "service_unavailable",
                                             "admin_shutdown", "circuit_open"});
    CHECK(rebound::restart_scope(ErrorCategory::ConnectionLost) ==
          rebound::RestartScope::Connection);
    CHECK(rebound::restart_scope(ErrorCategory::Deadlock) == rebound::RestartScope::Transaction);
    CHECK(rebound::restart_scope(ErrorCategory::CommitOutcomeUnknown) ==
          rebound::RestartScope::None);
    CHECK(rebound::restart_scope(ErrorCategory::ReadOnlyFailover) ==
          rebound::RestartScope::Connection);
    CHECK_FALSE(rebound::is_retryable_by_default(ErrorCategory::StatementTimeout));
}

TEST_CASE("category and vendor wire names round-trip and unknown names are refused",
          "[categories]") {
    for (const auto& info : rebound::kCategoryTable) {
        CHECK(rebound::parse_category(info.wire_name) == info.category);
        CHECK(rebound::to_string(info.category) == info.wire_name);
    }
    CHECK_FALSE(rebound::parse_category("transient").has_value());
    CHECK_FALSE(rebound::parse_category("Deadlock").has_value());
    CHECK_FALSE(rebound::parse_category("").has_value());
    for (const auto& info : rebound::kVendorTable) {
        CHECK(rebound::parse_vendor(info.wire_name) == info.vendor);
    }
    CHECK_FALSE(rebound::parse_vendor("mariadb").has_value());
    static_assert(rebound::parse_category("deadlock") == ErrorCategory::Deadlock);
}
