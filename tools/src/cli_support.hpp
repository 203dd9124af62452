// Shared pieces of the subcommands: exit codes, loading a policy file with diagnostics printed,
// and the registration signature every subcommand file implements.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "rebound/dsl/load.hpp"

namespace rebound::cli {

// Exit codes of docs/cli.md.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInputErrors = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitInternal = 3;

// Where a subcommand's callback leaves its exit code.
struct CommandOutcome {
    int exit_code = kExitOk;
};

void register_classify(CLI::App& app, CommandOutcome& outcome);
void register_convert(CLI::App& app, CommandOutcome& outcome);
void register_decide(CLI::App& app, CommandOutcome& outcome);
void register_explain(CLI::App& app, CommandOutcome& outcome);
void register_lint(CLI::App& app, CommandOutcome& outcome);
void register_queue(CLI::App& app, CommandOutcome& outcome);
void register_replay(CLI::App& app, CommandOutcome& outcome);
void register_schema(CLI::App& app, CommandOutcome& outcome);
void register_simulate(CLI::App& app, CommandOutcome& outcome);

// Whole-number options read strictly: the whole text must be a decimal number that fits the
// target, so `--native 99999999999999999999` and `--seed -1` are usage errors (exit 2) instead of
// values wrapped or cut to something else.
CLI::Option* add_native_code_option(CLI::App& command, std::optional<std::int64_t>& target,
                                    const std::string& description);
CLI::Option* add_seed_option(CLI::App& command, std::uint64_t& target);
// Option `name` read strictly into `target`: a whole number from `min` to `max`, else a usage
// error that gives the range.
CLI::Option* add_bounded_option(CLI::App& command, const std::string& name, int& target, int min,
                                int max, const std::string& description);

// Loads `path`; on failure prints every diagnostic (with source line and caret) to stderr and
// sets `exit_code` to 2 for an unreadable file, 1 for errors in it. Warnings are printed too.
std::optional<dsl::LoadResult> load_or_report(const std::string& path, int& exit_code);

// `document` as JSON text that is valid for any bytes: text that is not UTF-8 has each bad byte
// replaced by U+FFFD (docs/cli.md, Output safe to print) instead of failing the command.
template <typename Json>
std::string json_output(const Json& document, int indent = -1) {
    return document.dump(indent, ' ', false, Json::error_handler_t::replace);
}

// Prints `text` to stdout, ending it with a newline.
void print_line(std::string_view text);

}  // namespace rebound::cli
