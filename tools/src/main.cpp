// rebound: lint, explain, convert and try out retry policy files.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli_support.hpp"
#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/text_toolkit/source_echo.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"
#include "rebound/version.hpp"

namespace {

// "rebound: unknown command 'frobnicate'; commands are classify, ..." (with a did-you-mean when
// one is close) when `word` names no subcommand of `app`, which `path` names ("rebound",
// "rebound queue"); CLI11 alone says only that a subcommand is required, or takes the word for
// an extra argument.
std::optional<std::string> unknown_command(const CLI::App& app, const std::string& path,
                                           std::string_view word) {
    std::vector<std::string> names;
    for (const CLI::App* command : app.get_subcommands({})) {
        if (command->get_name() == word) {
            return std::nullopt;
        }
        names.push_back(command->get_name());
    }
    std::sort(names.begin(), names.end());
    const std::vector<std::string_view> candidates(names.begin(), names.end());
    std::string message = path + ": unknown command '" + rebound::printable(word) +
                          "'; commands are " + rebound::dsl::join_words(candidates);
    if (const std::string close = rebound::dsl::closest_match(word, candidates); !close.empty()) {
        message += " (did you mean '" + close + "'?)";
    }
    return message;
}

// `exit_code`, unless what the command wrote to standard output could not all be written (a full
// disk, /dev/full, a closed file descriptor): then, after saying so on standard error, the exit
// code of an unwritable output (docs/cli.md), so that no command reports success with its output
// lost. Checked once, here, for every command.
int checked_output(int exit_code) {
    using namespace rebound::cli;
    errno = 0;
    const bool written = static_cast<bool>(std::cout.flush()) && std::fflush(stdout) == 0 &&
                         std::ferror(stdout) == 0;
    if (written) {
        return exit_code;
    }
    const int error = errno;
    std::cerr << "rebound: cannot write standard output"
              << (error != 0 ? std::string(": ") + std::strerror(error) : std::string()) << '\n';
    return exit_code == kExitInternal ? kExitInternal : kExitUsage;
}

int run(int argc, char** argv) {
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
    // The leading words name a command, then a command of that command (`queue status`), as
    // long as the command named so far has commands of its own.
    const CLI::App* parent = &app;
    std::string path = "rebound";
    for (int index = 1; index < argc && argv[index][0] != '-'; ++index) {
        if (parent->get_subcommands({}).empty()) {
            break;
        }
        if (const std::optional<std::string> unknown =
                unknown_command(*parent, path, argv[index])) {
            std::cerr << *unknown << '\n';
            return kExitUsage;
        }
        parent = parent->get_subcommand(argv[index]);
        path += ' ';
        path += argv[index];
    }
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

}  // namespace

int main(int argc, char** argv) {
    return checked_output(run(argc, argv));
}
