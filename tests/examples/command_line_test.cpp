// The examples' whole-number options take decimal digits only: a number CLI11 alone would read
// another way (octal, hexadecimal, wrapped or cut to the type's largest value) is a usage error
// (exit 2) that says what was expected, before the example does anything.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "run_command.hpp"

using rebound::testing::CommandResult;
using rebound::testing::run_command;

TEST_CASE("a seed that is not a decimal 64-bit whole number is a usage error",
          "[examples][usage]") {
    for (const std::string seed : {"010", "0x10", "-1", "+7", "", "18446744073709551616"}) {
        const CommandResult result = run_command({REBOUND_FLAKY_OPERATION_PATH, "--seed", seed});
        INFO("--seed '" << seed << "': " << result.err);
        CHECK(result.exit_code == 2);
        CHECK(result.err.find("--seed: expected a whole number from 0 to 18446744073709551615 in "
                              "decimal digits (no sign, no leading zero), got '" +
                              seed + "'") != std::string::npos);
        CHECK(result.out.find("attempt") == std::string::npos);
    }
}

TEST_CASE("the largest seed and 0 are taken as written", "[examples][usage]") {
    for (const std::string seed : {"18446744073709551615", "0"}) {
        const CommandResult result = run_command({REBOUND_FLAKY_OPERATION_PATH, "--seed", seed});
        INFO("--seed " << seed << ": " << result.err);
        CHECK(result.exit_code == 0);
        CHECK(result.out.find("(seed " + seed + ")") != std::string::npos);
    }
}

TEST_CASE("a count written in octal or past int is a usage error of the database examples",
          "[examples][usage]") {
    const CommandResult bank = run_command({REBOUND_BANK_PATH, "--threads", "010"});
    INFO(bank.err);
    CHECK(bank.exit_code == 2);
    CHECK(bank.err.find("--threads: expected a whole number from 0 to 2147483647 in decimal "
                        "digits (no sign, no leading zero), got '010'") != std::string::npos);
    const CommandResult outbox =
        run_command({REBOUND_OUTBOX_WORKER_PATH, "--workers", "4294967298"});
    INFO(outbox.err);
    CHECK(outbox.exit_code == 2);
    CHECK(outbox.err.find("got '4294967298'") != std::string::npos);
    // The range check still follows: 0 is decimal but not a thread count.
    CHECK(run_command({REBOUND_BANK_PATH, "--threads", "0"}).exit_code == 2);
}
