// Test cases for the check of catch_main.cpp's settings (tests/support/check-catch-main.sh), not
// part of the suite: one that asserts, one that asserts nothing, one whose section asserts nothing.
#include <catch2/catch.hpp>

TEST_CASE("asserts once", "[catch-main-fixture]") {
    CHECK(1 + 1 == 2);
}

TEST_CASE("asserts nothing", "[catch-main-fixture]") {
    [[maybe_unused]] const int unused = 0;
}

TEST_CASE("a section asserts nothing", "[catch-main-fixture]") {
    SECTION("asserts") {
        CHECK(true);
    }
    SECTION("asserts nothing") {
        [[maybe_unused]] const int unused = 0;
    }
}
