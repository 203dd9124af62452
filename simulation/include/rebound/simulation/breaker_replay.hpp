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

// One JSON object (docs/cli.md, `rebound replay`), without a line end.
std::string replay_step_json(const ReplayStep& step);
// One line of text: "2450.000 ms  acquire h  admitted  -> half_open".
std::string replay_step_text(const ReplayStep& step);

}  // namespace rebound::simulation
