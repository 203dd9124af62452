// Numbers the commands cannot take are usage errors (exit 2) that say what was expected, never
// values wrapped or cut to something else.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "run_command.hpp"

using rebound::testing::CommandResult;

namespace {

CommandResult run_cli(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), REBOUND_CLI_PATH);
    return rebound::testing::run_command(arguments);
}

}  // namespace

TEST_CASE("a native code beyond the range of a 64-bit integer is a usage error", "[cli][usage]") {
    const std::string too_large = "99999999999999999999999";
    for (const std::vector<std::string>& arguments :
         {std::vector<std::string>{"classify", "--vendor", "mysql", "--native", too_large},
          std::vector<std::string>{"decide", "--handler", "H", "--attempt", "1", "--vendor",
                                   "mysql", "--native", too_large}}) {
        const CommandResult result = run_cli(arguments);
        INFO(arguments.front() << ": " << result.err);
        CHECK(result.exit_code == 2);
        CHECK(result.err.find("--native: expected a whole number from -9223372036854775808 to "
                              "9223372036854775807, got '" +
                              too_large + "'") != std::string::npos);
    }
    const CommandResult ok = run_cli({"classify", "--vendor", "mysql", "--native", "1213"});
    CHECK(ok.exit_code == 0);
    CHECK(ok.out.find("deadlock") != std::string::npos);
}

TEST_CASE("a negative seed is a usage error", "[cli][usage]") {
    const CommandResult simulate = run_cli({"simulate", "--seed", "-1"});
    CHECK(simulate.exit_code == 2);
    CHECK(simulate.err.find("--seed: expected a whole number from 0 to 18446744073709551615, got "
                            "'-1'") != std::string::npos);
    CHECK(run_cli({"decide", "--handler", "H", "--attempt", "1", "--category", "deadlock", "--seed",
                   "-1"})
              .exit_code == 2);
    CHECK(run_cli({"simulate", "--seed", "7", "--runs", "1", "--clients", "10"}).exit_code == 0);
}

TEST_CASE("an unknown command is named, with the commands there are", "[cli][usage]") {
    const CommandResult unknown = run_cli({"frobnicate"});
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.err ==
          "rebound: unknown command 'frobnicate'; commands are classify, convert, decide, "
          "explain, lint, queue, replay, schema, simulate\n");
    const CommandResult close = run_cli({"lintt", "x.yaml"});
    CHECK(close.exit_code == 2);
    CHECK(close.err.find("(did you mean 'lint'?)") != std::string::npos);
    CHECK(run_cli({"\x1b[2Jlint"}).err.find("'\\e[2Jlint'") != std::string::npos);
}

TEST_CASE("JSON output stays valid when a name given is not UTF-8", "[cli][output]") {
    const CommandResult explain =
        run_cli({"explain", std::string(REBOUND_SPEC_DIR) + "/conformance/04-tiers.yaml",
                 "--handler", "Approve\xff", "--format", "json"});
    CHECK(explain.exit_code == 0);
    CHECK(explain.err.empty());
    CHECK(explain.out.find("Approve\xef\xbf\xbd") != std::string::npos);  // U+FFFD
}
