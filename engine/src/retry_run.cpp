#include "rebound/retry_run.hpp"

#include <algorithm>

namespace rebound {

RetryRun::RetryRun(const RetryExecutor& executor, HandlerResolution resolution,
                   std::string_view handler, const RunOptions& options) noexcept
    : executor_(&executor),
      options_(&options),
      info_(first_attempt(*resolution.policy_or_builtin(), handler, options)) {
    info_.attempt = 0;  // start_attempt() counts
    result_.via = resolution.via_or_builtin();
    idempotent_ = resolution.idempotent;
    result_.policy = std::move(resolution).policy_or_builtin();
    const Policy& policy = *result_.policy;
    // The clock starts with the first attempt, not here: a run may be begun well before it
    // starts (an asynchronous run behind asio::deferred).
    timed_ = timed(executor, policy.spec());
    times_events_ = executor.times_events_;
}

RetryRun::RetryRun(RetryRun&& other, const RunOptions& options) noexcept
    : RetryRun(std::move(other)) {
    options_ = &options;
}

AttemptInfo RetryRun::first_attempt(const Policy& policy, std::string_view handler,
                                    const RunOptions& options) noexcept {
    AttemptInfo info;
    info.attempt = 1;
    // time_left stays absent: a policy with a deadline is timed, and start_attempt() sets it.
    info.attempt_timeout = policy.spec().attempt_timeout;
    info.stop = options.stop;
    info.command_id = options.command_id;
    info.handler = handler;
    return info;
}

void RetryRun::first_success(HandlerResolution&& resolution, RunResult& result) noexcept {
    const ResolvedVia via = resolution.via_or_builtin();
    first_success(std::move(resolution).policy_or_builtin(), via, result);
}

template <typename Complete>
void RetryRun::notify(void (RetryListener::*method)(const RetryEvent&) noexcept,
                      RetryEventKind kind, int attempt, Complete complete) const noexcept {
    if (executor_->listening()) {  // else no event to build: the common case
        tell(method, kind, attempt, complete);
    }
}

template <typename Complete>
[[gnu::noinline]] void RetryRun::tell(void (RetryListener::*method)(const RetryEvent&) noexcept,
                                      RetryEventKind kind, int attempt,
                                      Complete complete) const noexcept {
    RetryEvent event;
    event.kind = kind;
    event.handler = info_.handler;
    event.policy = result_.policy->name();
    event.command_id = options_->command_id;
    event.attempt = attempt;
    complete(event);
    executor_->notify(method, event);
}

void RetryRun::add_durations(RetryEvent& event, const Clock::TimePoint* attempt_end,
                             bool ends_run) const noexcept {
    if (!times_events_) {
        return;
    }
    if (attempt_end != nullptr) {
        const auto attempt = std::chrono::duration_cast<Duration>(*attempt_end - attempt_start_);
        event.attempt_duration = attempt;
        if (ends_run) {
            // The end of the run is the end of its last attempt: for a run of one attempt, the
            // attempt's duration.
            event.run_duration = start_ == attempt_start_
                                     ? attempt
                                     : std::chrono::duration_cast<Duration>(*attempt_end - start_);
        }
    } else if (ends_run) {
        // Stopped otherwise: now, or cancelled before it started.
        event.run_duration =
            result_.attempts == 0
                ? Duration{0}
                : std::chrono::duration_cast<Duration>(executor_->clock_->now() - start_);
    }
}

Duration RetryRun::elapsed_since_start() const noexcept {
    return timed_
               ? std::max(std::chrono::duration_cast<Duration>(executor_->clock_->now() - start_),
                          Duration{0})
               : Duration{0};
}

void RetryRun::finish(RetryOutcome outcome, const Clock::TimePoint* attempt_end) noexcept {
    result_.outcome = outcome;
    if (timed_) {
        result_.elapsed = result_.attempts == 0 ? Duration{0} : elapsed_since_start();
    }
    if (executor_->listening()) {  // out of line: a run without listeners ends here
        tell_end(outcome, attempt_end);
    }
}

[[gnu::noinline]] void RetryRun::tell_end(RetryOutcome outcome,
                                          const Clock::TimePoint* attempt_end) const noexcept {
    const bool succeeded = outcome == RetryOutcome::Succeeded;
    notify(succeeded ? &RetryListener::on_succeeded : &RetryListener::on_stopped,
           succeeded ? RetryEventKind::Succeeded : RetryEventKind::Stopped, result_.attempts,
           [&](RetryEvent& event) {
               event.outcome = outcome;
               if (result_.last_error) {
                   event.error = &result_.last_error.description();
                   event.category = result_.last_decision.category;
               }
               add_durations(event, attempt_end, true);
           });
}

void RetryRun::resume(const RunProgress& progress) noexcept {
    const int made = std::max(progress.attempts, 0);
    info_.attempt = made;
    result_.attempts = made;
    result_.last_decision.delay = std::max(progress.previous_delay, Duration{0});
    if (made > 0 && (timed_ || times_events_)) {
        // start_attempt() sets start_ only for attempt 1: later ones count from here (the time
        // left before the deadline, and the run's duration told to listeners).
        start_ = executor_->clock_->now() - std::max(progress.elapsed, Duration{0});
    }
}

BreakerPermit RetryRun::reserve_permit() noexcept {
    BreakerPermit permit;
    permit.admitted = true;
    if (CircuitBreaker* const breaker = result_.policy->breaker(); breaker != nullptr) {
        attempt_start_ = executor_->clock_->now();
        permit = breaker->acquire(attempt_start_);
        keep_permit(permit);
        permit_reserved_ = permit.admitted;
    }
    return permit;
}

void RetryRun::release_permit() noexcept {
    CircuitBreaker* const breaker = result_.policy->breaker();
    if (breaker != nullptr && permit_admitted_) {
        breaker->release(permit(), executor_->clock_->now());
    }
    permit_admitted_ = false;
}

RunStep RetryRun::start_attempt() {
    // A hedging policy: no attempt ever starts, in a fresh or a resumed run; a permit
    // reserve_permit() took goes back first.
    if (result_.policy->spec().hedge) {
        abandon();
        throw HedgingUnsupported(result_.policy->name());
    }
    if (options_->stop.stop_requested()) {
        return cancel();  // a permit reserve_permit() took goes back
    }
    const int number = info_.attempt + 1;
    const PolicySpec& spec = result_.policy->spec();
    info_.attempt = number;
    if (times_events_) {
        // One read starts the attempt, the run (first attempt) and the breaker's permit below.
        attempt_start_ = executor_->clock_->now();
        if (number == 1) {
            start_ = attempt_start_;
        }
    } else if (number == 1 && timed_) {
        start_ = executor_->clock_->now();
    }
    if (spec.deadline) {
        // The first attempt starts when the run does: its time left is the whole deadline.
        const Duration elapsed = number == 1 ? Duration{0} : elapsed_since_start();
        info_.time_left = std::max(*spec.deadline - elapsed, Duration{0});
    }
    result_.attempts = number;
    notify(&RetryListener::on_attempt_started, RetryEventKind::AttemptStarted, number,
           [](RetryEvent&) {});

    // The breaker, if any, is asked before every attempt (docs/resilience.md), unless
    // reserve_permit() asked it already: a refused attempt does not run, counts as an attempt
    // and fails with circuit_open.
    const bool reserved = permit_reserved_;
    permit_reserved_ = false;
    CircuitBreaker* const breaker = reserved ? nullptr : result_.policy->breaker();
    permit_admitted_ = reserved;
    if (breaker != nullptr) {
        if (!times_events_) {
            attempt_start_ = executor_->clock_->now();
        }
        const BreakerPermit permit = breaker->acquire(attempt_start_);
        keep_permit(permit);
        if (!permit) {
            ErrorDescription refusal = ErrorDescription::of(ErrorCategory::CircuitOpen);
            refusal.server_delay = permit.retry_after;
            result_.last_error = Failure::returned(Error(refusal));
            return decide_after_failure(true, nullptr);
        }
    }
    in_attempt_ = true;
    return RunStep::Attempt;
}

RunStep RetryRun::succeeded() noexcept {
    in_attempt_ = false;
    CircuitBreaker* const breaker = result_.policy->breaker();
    if (breaker == nullptr && !times_events_) {
        result_.policy->record_success();
        finish(RetryOutcome::Succeeded);
        return RunStep::Done;
    }
    const Clock::TimePoint now = executor_->clock_->now();
    if (breaker != nullptr) {
        breaker->record_success(permit(),
                                std::chrono::duration_cast<Duration>(now - attempt_start_), now);
    }
    result_.policy->record_success();
    finish(RetryOutcome::Succeeded, times_events_ ? &now : nullptr);
    return RunStep::Done;
}

RunStep RetryRun::failed(Failure failure) {
    in_attempt_ = false;
    result_.last_error = std::move(failure);
    CircuitBreaker* const breaker = result_.policy->breaker();
    if (breaker == nullptr && !times_events_) {
        return decide_after_failure(false, nullptr);
    }
    const Clock::TimePoint now = executor_->clock_->now();
    if (breaker != nullptr) {
        breaker->record_error(permit(), result_.last_error.description(), now);
    }
    return decide_after_failure(false, times_events_ ? &now : nullptr);
}

RunStep RetryRun::decide_after_failure(bool refused, const Clock::TimePoint* attempt_end) {
    const Policy& policy = *result_.policy;
    const int number = info_.attempt;
    AttemptContext context;
    context.attempt = number;
    context.elapsed = elapsed_since_start();
    // The last decision's delay (decorrelated jitter): a decision that stopped ended the run, so
    // the last one retried, or there was none (a delay of 0).
    context.previous_delay = result_.last_decision.delay;
    context.idempotent = idempotent_;
    const ErrorDescription& error = result_.last_error.description();
    result_.last_decision = decide(policy, error, context, *executor_->random_);
    const Decision& decision = result_.last_decision;
    if (options_->on_failure) {
        options_->on_failure(FailureEvent{info_.handler, number, result_.last_error, decision});
    }

    if (!decision.retry) {
        RetryOutcome outcome = refused ? RetryOutcome::CircuitOpen : outcome_of(decision.reason);
        DeadLetterSink* const sink = executor_->dead_letter_sink_;
        if (outcome == RetryOutcome::Exhausted &&
            policy.spec().on_exhausted == ExhaustedAction::DeadLetter && sink != nullptr &&
            sink->accept(DeadLetter{info_.handler, options_->command_id, policy.name(), number,
                                    result_.last_error, options_->item})) {
            outcome = RetryOutcome::DeadLettered;
        }
        finish(outcome, attempt_end);
        return RunStep::Done;
    }

    notify(&RetryListener::on_retry_scheduled, RetryEventKind::RetryScheduled, number,
           [&](RetryEvent& event) {
               event.category = decision.category;
               event.delay = decision.delay;
               event.error = &error;
               add_durations(event, attempt_end, false);
           });
    return RunStep::Wait;
}

RunStep RetryRun::waited() {
    return start_attempt();
}

void RetryRun::abandon() noexcept {
    if (in_attempt_ || permit_reserved_) {
        in_attempt_ = false;
        permit_reserved_ = false;
        release_permit();
    }
}

RunStep RetryRun::cancel() noexcept {
    if (in_attempt_ && times_events_) {
        // The attempt in progress ends here: its duration goes to the listeners.
        const Clock::TimePoint now = executor_->clock_->now();
        abandon();
        finish(RetryOutcome::Cancelled, &now);
        return RunStep::Done;
    }
    abandon();
    finish(RetryOutcome::Cancelled);
    return RunStep::Done;
}

Failure RetryRun::classify_current() const noexcept {
    const std::type_info* unmatched = nullptr;
    Failure failure = executor_->classify_current(&unmatched);
    if (unmatched != nullptr && executor_->first_unclassified(*unmatched)) {
        UnclassifiedExceptionEvent event;
        event.handler = info_.handler;
        event.policy = result_.policy->name();
        event.command_id = options_->command_id;
        event.attempt = info_.attempt;
        event.type = unmatched;
        event.type_name = unmatched->name();
        event.message = failure.description().message;
        for (RetryListener* listener : executor_->listeners_) {
            listener->on_unclassified_exception(event);
        }
    }
    return failure;
}

Failure RetryRun::classify_returned(Error error) const noexcept {
    return executor_->classify_returned(std::move(error));
}

}  // namespace rebound
