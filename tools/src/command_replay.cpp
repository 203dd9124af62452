// rebound replay PATH --breaker NAME [EVENTS] [--format text|json]: a trace of calls run through
// one breaker of a policy file in virtual time (docs/cli.md, docs/resilience.md).
#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>
#include <variant>

#include "cli_support.hpp"
#include "rebound/dsl/compile.hpp"
#include "rebound/simulation/breaker_replay.hpp"

namespace rebound::cli {
namespace {

struct ReplayOptions {
    std::string path;
    std::string breaker;
    std::string events = "-";
    std::string format = "text";
};

// The trace's text from a file, or standard input for "-"; nullopt when it cannot be read.
std::optional<std::string> read_events(const std::string& source) {
    if (source == "-") {
        return std::string(std::istreambuf_iterator<char>(std::cin), {});
    }
    std::ifstream in(source, std::ios::binary);
    if (!in) {
        return std::nullopt;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
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
        std::cerr << "rebound replay: " << options.path << " declares no breaker '"
                  << options.breaker << "': "
                  << (names.empty() ? std::string("it declares no breakers")
                                    : dsl::suggestion_for(options.breaker, names))
                  << '\n';
        return kExitUsage;
    }
    const auto text = read_events(options.events);
    if (!text) {
        std::cerr << "rebound replay: cannot read " << options.events << '\n';
        return kExitUsage;
    }
    const std::string events_name = options.events == "-" ? "<stdin>" : options.events;
    const auto report = [&](const simulation::ReplayInputError& error) {
        std::cerr << events_name << ':' << error.line << ':' << error.column << ": "
                  << error.message << '\n';
        return kExitUsage;
    };
    const auto events = simulation::read_replay_events(*text);
    if (const auto* error = std::get_if<simulation::ReplayInputError>(&events)) {
        return report(*error);
    }
    const auto steps =
        simulation::replay_breaker(*found, std::get<std::vector<simulation::ReplayEvent>>(events));
    if (const auto* error = std::get_if<simulation::ReplayInputError>(&steps)) {
        return report(*error);
    }
    const bool json = options.format == "json";
    for (const simulation::ReplayStep& step :
         std::get<std::vector<simulation::ReplayStep>>(steps)) {
        print_line(json ? simulation::replay_step_json(step) : simulation::replay_step_text(step));
    }
    return kExitOk;
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
