// RetryListener: what an executor reports while it runs work (docs/semantics.md, The executor).
//
// Events, in order for one run: attempt started (every attempt), then after a failed attempt
// either retry scheduled (before the wait) or a stop; after a successful attempt, succeeded. In a
// hedged run (docs/hedging.md), a failed attempt that does not end the run is told as attempt
// failed instead: its run schedules no retry, it may hedge. Every run ends with exactly one of
// `on_succeeded` and `on_stopped`. Besides, once per type and executor, `on_unclassified_exception`
// reports an exception that nothing classified (before the decision on its attempt).
//
// Listeners are called on the thread running the work, synchronously, possibly from many threads
// at once: implementations must be thread-safe, must not throw (the executor is noexcept towards
// them) and should be quick. Event text views live only for the duration of the call.
//
// Durations: a run reads the executor's clock for its events only when a listener of the executor
// asks for them (wants_durations()); a run whose executor has none reads no clock for its events
// (see "Clock" in retry_executor.hpp).
#pragma once

#include <optional>
#include <string_view>
#include <typeinfo>

#include "rebound/duration.hpp"
#include "rebound/error.hpp"
#include "rebound/hedge_report.hpp"
#include "rebound/retry_outcome.hpp"

namespace rebound {

enum class RetryEventKind : std::uint8_t {
    AttemptStarted,
    RetryScheduled,
    Succeeded,
    Stopped,
    AttemptFailed,  // a hedged run's attempt failed and the run goes on
};

constexpr std::string_view to_string(RetryEventKind kind) noexcept {
    switch (kind) {
        case RetryEventKind::AttemptStarted:
            return "attempt_started";
        case RetryEventKind::RetryScheduled:
            return "retry_scheduled";
        case RetryEventKind::Succeeded:
            return "succeeded";
        case RetryEventKind::AttemptFailed:
            return "attempt_failed";
        case RetryEventKind::Stopped:
            break;
    }
    return "stopped";
}

// Which attempt an event is about: the first of a run (and every retry of a run that does not
// hedge), or a hedge, started while earlier attempts of the same run may still be in flight
// (docs/hedging.md).
enum class AttemptKind : std::uint8_t { First, Hedge };

constexpr std::string_view to_string(AttemptKind kind) noexcept {
    return kind == AttemptKind::Hedge ? "hedge" : "first";
}

struct RetryEvent {
    RetryEventKind kind = RetryEventKind::AttemptStarted;
    std::string_view handler;
    std::string_view policy;      // name of the policy the run uses
    std::string_view command_id;  // empty when the caller gave none
    // AttemptStarted: the attempt starting. RetryScheduled and AttemptFailed: the attempt that
    // failed. Succeeded and Stopped: the number of attempts made.
    int attempt = 0;
    // RetryScheduled and AttemptFailed: the failed attempt's error category. Succeeded and Stopped:
    // the category of the last failed attempt (Unknown when none failed), and the outcome.
    ErrorCategory category = ErrorCategory::Unknown;
    RetryOutcome outcome = RetryOutcome::Succeeded;
    Duration delay{0};  // RetryScheduled: the wait before the next attempt
    // RetryScheduled, AttemptFailed and Stopped: the last error, if any.
    const ErrorDescription* error = nullptr;
    // Present only when a listener of the executor wants durations (read from its clock):
    // RetryScheduled, AttemptFailed, Succeeded and Stopped: how long the attempt that just ended
    // ran, from its start to its success, failure or cancellation; absent when no attempt ran
    // since the last event (an attempt the breaker refused, a run stopped while it waited) and
    // for a hedged run's attempts abandoned in flight, whose end is never seen.
    std::optional<Duration> attempt_duration{};
    // Succeeded and Stopped: from the start of the first attempt to the end of the run (0 for a
    // run cancelled before its first attempt).
    std::optional<Duration> run_duration{};
    // AttemptStarted: the kind of the attempt starting. AttemptFailed: of the attempt that failed.
    // Succeeded: of the attempt that succeeded. First otherwise, and in every event of a run that
    // does not hedge.
    AttemptKind attempt_kind = AttemptKind::First;
    // Succeeded and Stopped of a hedged run: its hedges, winner, abandoned attempts and
    // suppressed hedges (hedge_report.hpp); null for a run that does not hedge.
    const HedgeReport* hedge = nullptr;

    // The `reason` of logs and metrics: the category wire name for a scheduled retry or a failed
    // attempt, the outcome wire name for succeeded and stopped, empty for an attempt start.
    std::string_view reason() const noexcept {
        switch (kind) {
            case RetryEventKind::RetryScheduled:
            case RetryEventKind::AttemptFailed:
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

// An exception thrown by work that neither the executor's FailureClassifier nor its
// ExceptionClassifier knows (no registered type is it or a base of it; not a rebound::Error, not a
// std::system_error): its failure has no category, which counts as `unknown`, and only a policy
// that names `unknown` retries it. Register the type (docs/embedding.md, "Your own exceptions").
// Reported once per type and executor (after 64 distinct types, each further one every time).
struct UnclassifiedExceptionEvent {
    std::string_view handler;
    std::string_view policy;
    std::string_view command_id;
    int attempt = 0;  // the attempt that threw
    // The exception's dynamic type when it derives from std::exception, else typeid(void): the
    // standard library tells no other type of an exception in flight.
    const std::type_info* type = &typeid(void);
    // type->name(): the implementation's name (mangled by GCC and Clang: `c++filt -t` reads it).
    std::string_view type_name;
    std::string_view message;  // what(), empty when it does not derive from std::exception
};

class RetryListener {
  public:
    virtual ~RetryListener() = default;
    // Whether this listener wants RetryEvent::attempt_duration and run_duration: asked once, when
    // the executor is made. A run reads the clock at each attempt's start and end only for
    // executors with such a listener.
    virtual bool wants_durations() const noexcept { return false; }
    virtual void on_attempt_started(const RetryEvent& /*event*/) noexcept {}
    virtual void on_retry_scheduled(const RetryEvent& /*event*/) noexcept {}
    virtual void on_succeeded(const RetryEvent& /*event*/) noexcept {}
    virtual void on_stopped(const RetryEvent& /*event*/) noexcept {}
    // Only from a hedged run (HedgedRun): an attempt failed (or timed out) and the run goes on.
    virtual void on_attempt_failed(const RetryEvent& /*event*/) noexcept {}
    virtual void on_unclassified_exception(const UnclassifiedExceptionEvent& /*event*/) noexcept {}
};

}  // namespace rebound
