// libFuzzer target for `rebound replay`'s event reader (docs/cli.md, `rebound replay`): reads
// arbitrary bytes as a trace and checks what the reader promises. An error names a line and a
// column inside the input; the events it returns lie on increasing lines of the input, in time
// order. A trace that reads is then replayed through two breakers (one ratio, one consecutive),
// and every step prints as one line of text and one valid JSON object. Any crash, hang, leak,
// sanitizer report or use of more than the fuzzer's memory limit (scripts/fuzz.sh: 512 MB) is a
// bug too.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rebound/simulation/breaker_replay.hpp"

namespace {

using rebound::simulation::ReplayEvent;
using rebound::simulation::ReplayInputError;
using rebound::simulation::ReplayStep;

[[noreturn]] void violated(const std::string& what) {
    std::fprintf(stderr, "invariant violated: %s\n", what.c_str());
    std::abort();
}

// The input's lines as the reader counts them (split at '\n').
std::vector<std::string_view> lines_of(std::string_view text) {
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        lines.push_back(text.substr(0, end));
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    }
    return lines;
}

void check_error(const ReplayInputError& error, const std::vector<std::string_view>& lines) {
    if (error.line < 1 || static_cast<std::size_t>(error.line) > lines.size()) {
        violated("an error on line " + std::to_string(error.line) + " of " +
                 std::to_string(lines.size()));
    }
    const std::size_t length = lines[static_cast<std::size_t>(error.line) - 1].size();
    if (error.column < 1 || static_cast<std::size_t>(error.column) > length + 1) {
        violated("an error at column " + std::to_string(error.column) + " of a line of " +
                 std::to_string(length) + " bytes");
    }
    if (error.message.empty()) {
        violated("an error without a message");
    }
}

void check_events(const std::vector<ReplayEvent>& events,
                  const std::vector<std::string_view>& lines) {
    int previous_line = 0;
    rebound::Duration previous_time{0};
    for (const ReplayEvent& event : events) {
        if (event.line <= previous_line || static_cast<std::size_t>(event.line) > lines.size()) {
            violated("an event on line " + std::to_string(event.line) + " after line " +
                     std::to_string(previous_line));
        }
        if (event.at < previous_time || event.took.count() < 0) {
            violated("an event on line " + std::to_string(event.line) + " goes back in time");
        }
        if (event.id.empty() ||
            lines[static_cast<std::size_t>(event.line) - 1].find(event.id) == std::string::npos) {
            violated("the id of the event on line " + std::to_string(event.line) +
                     " is not on that line");
        }
        previous_line = event.line;
        previous_time = event.at;
    }
}

void replay(const rebound::BreakerSettings& settings, const std::vector<ReplayEvent>& events,
            const std::vector<std::string_view>& lines) {
    const auto steps = rebound::simulation::replay_breaker(settings, events);
    if (const auto* error = std::get_if<ReplayInputError>(&steps)) {
        check_error(*error, lines);
        return;
    }
    const auto& replayed = std::get<std::vector<ReplayStep>>(steps);
    if (replayed.size() != events.size()) {
        violated("a replay of " + std::to_string(events.size()) + " events made " +
                 std::to_string(replayed.size()) + " steps");
    }
    for (const ReplayStep& step : replayed) {
        const std::string text = rebound::simulation::replay_step_text(step);
        if (text.empty() || text.find('\n') != std::string::npos) {
            violated("a step's text is not one line: '" + text + "'");
        }
        if (!nlohmann::json::accept(rebound::simulation::replay_step_json(step))) {
            violated("a step's JSON does not parse");
        }
    }
}

rebound::BreakerSettings consecutive_breaker() {
    rebound::BreakerSettings settings;
    settings.name = "consecutive";
    settings.trip = rebound::BreakerTrip::Consecutive;
    settings.consecutive_failures = 2;
    settings.open_for = std::chrono::milliseconds(100);
    settings.half_open_calls = 2;
    settings.slow_call = std::chrono::milliseconds(50);
    return settings;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::vector<std::string_view> lines = lines_of(text);
    const auto events = rebound::simulation::read_replay_events(text);
    if (const auto* error = std::get_if<ReplayInputError>(&events)) {
        check_error(*error, lines);
        return 0;
    }
    const auto& read = std::get<std::vector<ReplayEvent>>(events);
    check_events(read, lines);
    rebound::BreakerSettings ratio;
    ratio.name = "ratio";
    ratio.minimum_calls = 2;
    ratio.window = std::chrono::milliseconds(1000);
    replay(ratio, read, lines);
    replay(consecutive_breaker(), read, lines);
    return 0;
}
