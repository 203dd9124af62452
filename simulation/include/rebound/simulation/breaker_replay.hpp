// Breaker replay: a trace of calls run through one circuit breaker in virtual time, so that a
// user can see what a breaker configuration would have done during an incident (`rebound replay`,
// docs/cli.md).
//
// The trace is text, one event a line (`#` starts a comment, blank lines are skipped):
//   T_MS acquire ID
//   T_MS success ID [DURATION_MS]
//   T_MS error ID CATEGORY        (a failure when the breaker's `failures` match the category)
//   T_MS cancel ID
// T_MS and DURATION_MS are milliseconds (at most three decimals) since the breaker's creation;
// times never decrease. An outcome must name an ID that holds a permit (an admitted acquire
// without an outcome yet).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "rebound/circuit_breaker.hpp"
#include "rebound/duration.hpp"
#include "rebound/error_category.hpp"

namespace rebound::simulation {

enum class ReplayEventKind : std::uint8_t { Acquire, Success, Error, Cancel };

std::string_view to_string(ReplayEventKind kind) noexcept;

struct ReplayEvent {
    int line = 0;  // 1-based line of the trace
    Duration at{0};
    ReplayEventKind kind = ReplayEventKind::Acquire;
    std::string id;
    Duration took{0};                                 // Success only
    ErrorCategory category = ErrorCategory::Unknown;  // Error only
};

// A trace that cannot be replayed: its line and column (1-based) and what is wrong.
struct ReplayInputError {
    int line = 0;
    int column = 0;
    std::string message;
};

// The trace's events, or the first problem found. Never throws on bad input.
std::variant<std::vector<ReplayEvent>, ReplayInputError> read_replay_events(std::string_view text);

// The same reader a line at a time, for a trace that arrives as a stream (`rebound replay` answers
// each event as its line arrives): read_replay_events is this applied to each line of the text.
class ReplayEventReader {
  public:
    // The event of the trace's next line (`line` without its '\n'), nullopt for a blank or
    // comment line, or the line's problem. Lines are numbered from 1 in the order given.
    std::variant<std::optional<ReplayEvent>, ReplayInputError> read_line(std::string_view line);

  private:
    int line_number_ = 0;
    Duration previous_{0};
};

// What one event did.
struct ReplayStep {
    ReplayEvent event;
    std::optional<bool> admitted;               // Acquire only
    std::optional<Duration> retry_after;        // Acquire refused while open only
    BreakerState state = BreakerState::Closed;  // after the event
};

// Runs `events` through a breaker with `settings` created at time 0. An outcome for an ID that
// holds no permit is a ReplayInputError naming its line.
std::variant<std::vector<ReplayStep>, ReplayInputError> replay_breaker(
    const BreakerSettings& settings, const std::vector<ReplayEvent>& events);

// The same replay an event at a time (replay_breaker is this applied to each event): a breaker
// with `settings` created at time 0, and the permits its admitted acquires hold.
class BreakerReplay {
  public:
    explicit BreakerReplay(const BreakerSettings& settings);

    // What `event` (no earlier than the events before it) does, or the ReplayInputError of an
    // acquire for an ID that holds a permit or an outcome for one that holds none.
    std::variant<ReplayStep, ReplayInputError> step(const ReplayEvent& event);

  private:
    CircuitBreaker breaker_;
    std::map<std::string, BreakerPermit, std::less<>> permits_;
};

// One JSON object (docs/cli.md, `rebound replay`), without a line end.
std::string replay_step_json(const ReplayStep& step);
// One line of text: "2450.000 ms  acquire h  admitted  -> half_open".
std::string replay_step_text(const ReplayStep& step);

}  // namespace rebound::simulation
