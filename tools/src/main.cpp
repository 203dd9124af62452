// rebound: lint, explain, convert and try out retry policy files.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <string>

#include "cli_support.hpp"
#include "rebound/version.hpp"

int main(int argc, char** argv) {
    using namespace rebound::cli;
    CLI::App app{"rebound: check, explain and convert retry policy files"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "rebound " + std::string(rebound::version()));
    CommandOutcome outcome;
    register_classify(app, outcome);
    register_convert(app, outcome);
    register_decide(app, outcome);
    register_explain(app, outcome);
    register_lint(app, outcome);
    register_queue(app, outcome);
    register_replay(app, outcome);
    register_schema(app, outcome);
    register_simulate(app, outcome);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        // --help and --version arrive here too, with exit code 0.
        return app.exit(error) == 0 ? kExitOk : kExitUsage;
    } catch (const std::exception& error) {
        std::cerr << "rebound: internal error: " << error.what() << '\n';
        return kExitInternal;
    }
    return outcome.exit_code;
}
