// Shared pieces of the subcommands: exit codes, loading a policy file with diagnostics printed,
// and the registration signature every subcommand file implements.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/dsl/load.hpp"
#include "rebound/output_text.hpp"  // every output escapes text from outside with it

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

// Every other numeric option of the CLI, read as strictly: a whole number is decimal digits (with
// a '-' for a negative one) within [min, max], a number is a finite decimal number (such as 0.25
// or 1e3) within [min, max]; anything else (`nan`, `inf`, `0x10`, `1e400`, `5x`, out of range) is
// a usage error (exit 2) naming the option and the range. The list forms take comma-separated
// values, each checked so.
CLI::Option* add_whole_number_option(CLI::App& command, const std::string& name, int& target,
                                     int min, int max, const std::string& description);
CLI::Option* add_whole_numbers_option(CLI::App& command, const std::string& name,
                                      std::vector<int>& target, int min, int max,
                                      const std::string& description);
CLI::Option* add_number_option(CLI::App& command, const std::string& name, double& target,
                               double min, double max, const std::string& description);
CLI::Option* add_numbers_option(CLI::App& command, const std::string& name,
                                std::vector<double>& target, double min, double max,
                                const std::string& description);

// Loads `path`; on failure prints every diagnostic (with source line and caret) to stderr and
// sets `exit_code` to 2 for an unreadable file, 1 for errors in it. Warnings are printed too.
std::optional<dsl::LoadResult> load_or_report(const std::string& path, int& exit_code);

// Prints `text` to stdout, ending it with a newline.
void print_line(std::string_view text);

// Prints `text`, meant for people, as print_line does, with what a terminal would act on written
// visibly (printable_lines): every text output of the CLI goes through it, as the names, messages
// and rows it shows come from files, databases and payloads.
void print_text(std::string_view text);

}  // namespace rebound::cli
