// rebound replay PATH --breaker NAME [EVENTS] [--format text|json]: a trace of calls run through
// one breaker of a policy file in virtual time (docs/cli.md, docs/resilience.md).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <variant>

#include "cli_support.hpp"
#include "line_reader.hpp"
#include "rebound/dsl/compile.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"
#include "rebound/simulation/breaker_replay.hpp"

namespace rebound::cli {
namespace {

struct ReplayOptions {
    std::string path;
    std::string breaker;
    std::string events = "-";
    std::string format = "text";
};

// Replays the trace read from `input` (named `events_name` in messages) through a breaker with
// `settings`, a line at a time: each event's result is printed as soon as its line is read, and
// flushed whenever no more input is at hand, so a trace piped in live is answered line by line. A
// bad line stops the replay with its error, after the results of the lines before it.
int replay_stream(std::streambuf& input, const std::string& events_name,
                  const BreakerSettings& settings, bool json) {
    const auto report = [&](const simulation::ReplayInputError& error) {
        std::cerr << printable(events_name) << ':' << error.line << ':' << error.column << ": "
                  << printable(error.message) << '\n';
        return kExitUsage;
    };
    LineReader lines(input);
    simulation::ReplayEventReader reader;
    simulation::BreakerReplay replay(settings);
    std::string line;
    for (;;) {
        const LineReader::Result read = lines.next(line);
        if (read == LineReader::Result::End) {
            return kExitOk;
        }
        if (read == LineReader::Result::TooLong) {
            std::cerr << lines.too_long_message(events_name) << '\n';
            return kExitUsage;
        }
        auto event = reader.read_line(line);
        if (const auto* error = std::get_if<simulation::ReplayInputError>(&event)) {
            return report(*error);
        }
        const auto& read_event = std::get<std::optional<simulation::ReplayEvent>>(event);
        if (!read_event) {
            continue;
        }
        const auto step = replay.step(*read_event);
        if (const auto* error = std::get_if<simulation::ReplayInputError>(&step)) {
            return report(*error);
        }
        const auto& done = std::get<simulation::ReplayStep>(step);
        if (json) {
            print_line(simulation::replay_step_json(done));
        } else {
            print_text(simulation::replay_step_text(done));
        }
        // Flushed before the reader could wait for more input (a pipe), not after every line of a
        // file already read.
        if (input.in_avail() <= 0 && !std::cout.flush()) {
            return kExitOk;  // main reports the output that cannot be written
        }
    }
}

int run_replay(const ReplayOptions& options) {
    int exit_code = kExitOk;
    const auto loaded = load_or_report(options.path, exit_code);
    if (!loaded) {
        return exit_code;
    }
    const std::vector<BreakerSettings> breakers = dsl::resolve_breakers(loaded->document);
    const auto found =
        std::find_if(breakers.begin(), breakers.end(),
                     [&](const BreakerSettings& b) { return b.name == options.breaker; });
    if (found == breakers.end()) {
        std::vector<std::string_view> names;
        names.reserve(breakers.size());
        for (const BreakerSettings& b : breakers) {
            names.push_back(b.name);
        }
        std::cerr << "rebound replay: " << printable(options.path) << " declares no breaker '"
                  << printable(options.breaker) << "': "
                  << (names.empty() ? std::string("it declares no breakers")
                                    : printable(dsl::suggestion_for(options.breaker, names)))
                  << '\n';
        return kExitUsage;
    }
    std::ifstream file;
    std::streambuf* input = std::cin.rdbuf();
    if (options.events != "-") {
        file.open(options.events, std::ios::binary);
        if (!file) {
            std::cerr << "rebound replay: cannot read " << printable(options.events) << '\n';
            return kExitUsage;
        }
        input = file.rdbuf();
    }
    return replay_stream(*input, options.events == "-" ? "<stdin>" : options.events, *found,
                         options.format == "json");
}

}  // namespace

void register_replay(CLI::App& app, CommandOutcome& outcome) {
    auto options = std::make_shared<ReplayOptions>();
    CLI::App* command = app.add_subcommand(
        "replay", "Replay a trace of calls through one circuit breaker of a policy file");
    command->add_option("PATH", options->path, "Policy file (.yaml .yml .json .rebound)")
        ->required();
    command->add_option("--breaker", options->breaker, "The breaker to replay")->required();
    command->add_option("EVENTS", options->events,
                        "Event trace, one event a line (default: standard input)");
    command->add_option("--format", options->format, "Output format")
        ->check(CLI::IsMember({"text", "json"}));
    command->callback([options, &outcome] { outcome.exit_code = run_replay(*options); });
}

}  // namespace rebound::cli
