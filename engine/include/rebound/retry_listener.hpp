// RetryListener: what an executor reports while it runs work (docs/semantics.md, The executor).
//
// Events, in order for one run: attempt started (every attempt), then after a failed attempt
// either retry scheduled (before the wait) or a stop; after a successful attempt, succeeded.
// Every run ends with exactly one of `on_succeeded` and `on_stopped`.
//
// Listeners are called on the thread running the work, synchronously, possibly from many threads
// at once: implementations must be thread-safe, must not throw (the executor is noexcept towards
// them) and should be quick. Event text views live only for the duration of the call.
#pragma once

#include <string_view>

#include "rebound/duration.hpp"
#include "rebound/error.hpp"
#include "rebound/retry_outcome.hpp"

namespace rebound {

enum class RetryEventKind : std::uint8_t { AttemptStarted, RetryScheduled, Succeeded, Stopped };

constexpr std::string_view to_string(RetryEventKind kind) noexcept {
    switch (kind) {
        case RetryEventKind::AttemptStarted:
            return "attempt_started";
        case RetryEventKind::RetryScheduled:
            return "retry_scheduled";
        case RetryEventKind::Succeeded:
            return "succeeded";
        case RetryEventKind::Stopped:
            break;
    }
    return "stopped";
}

struct RetryEvent {
    RetryEventKind kind = RetryEventKind::AttemptStarted;
    std::string_view handler;
    std::string_view policy;      // name of the policy the run uses
    std::string_view command_id;  // empty when the caller gave none
    // AttemptStarted: the attempt starting. RetryScheduled: the attempt that failed.
    // Succeeded and Stopped: the number of attempts made.
    int attempt = 0;
    // RetryScheduled: the failed attempt's error category. Succeeded / Stopped: the outcome.
    ErrorCategory category = ErrorCategory::Unknown;
    RetryOutcome outcome = RetryOutcome::Succeeded;
    Duration delay{0};                        // RetryScheduled: the wait before the next attempt
    const ErrorDescription* error = nullptr;  // RetryScheduled and Stopped: the last error, if any

    // The `reason` of logs and metrics: the category wire name for a scheduled retry, the
    // outcome wire name for succeeded and stopped, empty for an attempt start.
    std::string_view reason() const noexcept {
        switch (kind) {
            case RetryEventKind::RetryScheduled:
                return to_string(category);
            case RetryEventKind::Succeeded:
            case RetryEventKind::Stopped:
                return to_string(outcome);
            case RetryEventKind::AttemptStarted:
                break;
        }
        return {};
    }
};

class RetryListener {
  public:
    virtual ~RetryListener() = default;
    virtual void on_attempt_started(const RetryEvent& /*event*/) noexcept {}
    virtual void on_retry_scheduled(const RetryEvent& /*event*/) noexcept {}
    virtual void on_succeeded(const RetryEvent& /*event*/) noexcept {}
    virtual void on_stopped(const RetryEvent& /*event*/) noexcept {}
};

}  // namespace rebound
