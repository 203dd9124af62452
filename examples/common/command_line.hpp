// How the examples end on their command line, as the `rebound` tool does (tools/src/main.cpp):
// `--help` prints the options and exits 0; a bad argument prints CLI11's message and exits 2.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>

namespace examples {

// Parses the command line into `app`'s options. Returns the status the program exits with when it
// must end here (--help: 0; a bad argument: 2), or nothing when it goes on.
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        return app.exit(error) == 0 ? 0 : 2;
    }
    return std::nullopt;
}

}  // namespace examples
