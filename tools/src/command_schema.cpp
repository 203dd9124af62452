// rebound schema: the draft-07 JSON Schema of the YAML/JSON policy format.
#include <iostream>

#include "cli_support.hpp"
#include "policy_schema.hpp"

namespace rebound::cli {

void register_schema(CLI::App& app, CommandOutcome& outcome) {
    CLI::App* command = app.add_subcommand(
        "schema", "Print the JSON Schema (draft-07) of the YAML/JSON policy format");
    command->callback([&outcome] {
        std::cout << policy_schema();
        outcome.exit_code = kExitOk;
    });
}

}  // namespace rebound::cli
