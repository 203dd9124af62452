#include "rebound/retry_executor.hpp"

#include <algorithm>

namespace rebound {

RetryExecutor::RetryExecutor(ExecutorOptions options)
    : clock_(options.clock != nullptr ? options.clock : &default_clock()),
      sleeper_(options.sleeper != nullptr ? options.sleeper : &default_sleeper()),
      random_(options.random != nullptr ? options.random : &default_random_source()),
      exceptions_(options.exceptions != nullptr ? options.exceptions
                                                : &ExceptionClassifier::builtin()),
      classifier_(options.classifier),
      listeners_(std::move(options.listeners)),
      dead_letter_sink_(options.dead_letter_sink),
      measure_elapsed_(options.measure_elapsed),
      resolver_(std::move(options.resolver)) {
    std::erase(listeners_, nullptr);
}

HandlerResolution RetryExecutor::resolve(std::string_view handler) const {
    if (resolver_) {
        return resolver_(handler);
    }
    HandlerResolution resolution;
    resolution.policy = PolicySet::builtin();
    resolution.via = ResolvedVia::Builtin;
    return resolution;
}

void RetryExecutor::notify(void (RetryListener::*method)(const RetryEvent&) noexcept,
                           const RetryEvent& event) const noexcept {
    for (RetryListener* listener : listeners_) {
        (listener->*method)(event);
    }
}

Failure RetryExecutor::classify_current() const noexcept {
    std::exception_ptr exception = std::current_exception();
    std::optional<ErrorDescription> description;
    if (classifier_ != nullptr) {
        description = classifier_->classify_exception(exception);
    }
    if (!description) {
        description = exceptions_->describe_current();
    }
    if (classifier_ != nullptr) {
        description = classifier_->refine(*description);
    }
    return Failure::thrown(std::move(exception), *description);
}

Failure RetryExecutor::classify_returned(Error error) const noexcept {
    const ErrorDescription description =
        classifier_ != nullptr ? classifier_->refine(error.description()) : error.description();
    return Failure::returned(std::move(error), description);
}

RunResult RetryExecutor::run_attempts(HandlerResolution resolution, std::string_view handler,
                                      FunctionRef<std::optional<Error>(const AttemptInfo&)> attempt,
                                      const RunOptions& options) const {
    RunResult result;
    result.via = resolution.policy ? resolution.via : ResolvedVia::Builtin;
    result.policy = resolution.policy ? std::move(resolution.policy) : PolicySet::builtin();
    const Policy& policy = *result.policy;
    const PolicySpec& spec = policy.spec();

    RetryEvent event;
    event.handler = handler;
    event.policy = policy.name();
    event.command_id = options.command_id;

    AttemptInfo info;
    info.attempt_timeout = spec.attempt_timeout;
    info.stop = options.stop;
    info.command_id = options.command_id;
    info.handler = handler;

    AttemptContext context;
    context.idempotent = resolution.idempotent;
    CircuitBreaker* const breaker = policy.breaker();

    // Without a deadline nothing in the run depends on time; see "Clock" in the header.
    const bool timed = spec.deadline.has_value() || measure_elapsed_;
    const Clock::TimePoint start = timed ? clock_->now() : Clock::TimePoint{};
    const auto elapsed_since_start = [&] {
        return timed ? std::max(std::chrono::duration_cast<Duration>(clock_->now() - start),
                                Duration{0})
                     : Duration{0};
    };
    const auto finish = [&](RetryOutcome outcome) {
        result.outcome = outcome;
        if (timed) {
            result.elapsed = elapsed_since_start();
        }
        event.kind = outcome == RetryOutcome::Succeeded ? RetryEventKind::Succeeded
                                                        : RetryEventKind::Stopped;
        event.attempt = result.attempts;
        event.outcome = outcome;
        event.delay = Duration{0};
        event.error = result.last_error ? &result.last_error->description() : nullptr;
        notify(outcome == RetryOutcome::Succeeded ? &RetryListener::on_succeeded
                                                  : &RetryListener::on_stopped,
               event);
    };

    for (int number = 1;; ++number) {
        if (options.stop.stop_requested()) {
            finish(RetryOutcome::Cancelled);
            return result;
        }
        info.attempt = number;
        if (spec.deadline) {
            // The first attempt starts when the run does: its time left is the whole deadline.
            const Duration elapsed = number == 1 ? Duration{0} : elapsed_since_start();
            info.time_left = std::max(*spec.deadline - elapsed, Duration{0});
        }
        result.attempts = number;
        event.kind = RetryEventKind::AttemptStarted;
        event.attempt = number;
        event.delay = Duration{0};
        event.error = nullptr;
        notify(&RetryListener::on_attempt_started, event);

        // The breaker, if any, is asked before every attempt (docs/resilience.md): a refused
        // attempt does not run, counts as an attempt and fails with circuit_open.
        BreakerPermit permit;
        Clock::TimePoint attempt_start{};
        if (breaker != nullptr) {
            attempt_start = clock_->now();
            permit = breaker->acquire(attempt_start);
        }
        if (breaker != nullptr && !permit) {
            ErrorDescription refusal = ErrorDescription::of(ErrorCategory::CircuitOpen);
            refusal.server_delay = permit.retry_after;
            result.last_error = Failure::returned(Error(refusal), refusal);
        } else {
            try {
                std::optional<Error> returned = attempt(info);
                if (!returned) {
                    if (breaker != nullptr) {
                        const Clock::TimePoint now = clock_->now();
                        breaker->record_success(
                            permit, std::chrono::duration_cast<Duration>(now - attempt_start), now);
                    }
                    policy.record_success();
                    finish(RetryOutcome::Succeeded);
                    return result;
                }
                result.last_error = classify_returned(std::move(*returned));
            } catch (...) {
                result.last_error = classify_current();
            }
            if (breaker != nullptr) {
                breaker->record_error(permit, result.last_error->description(), clock_->now());
            }
        }

        context.attempt = number;
        context.elapsed = elapsed_since_start();
        const ErrorDescription& error = result.last_error->description();
        result.last_decision = decide(policy, error, context, *random_);
        const Decision& decision = result.last_decision;
        if (options.on_failure) {
            options.on_failure(FailureEvent{handler, number, *result.last_error, decision});
        }

        if (!decision.retry) {
            const bool refused = breaker != nullptr && !permit;
            RetryOutcome outcome =
                refused ? RetryOutcome::CircuitOpen : outcome_of(decision.reason);
            if (outcome == RetryOutcome::Exhausted &&
                spec.on_exhausted == ExhaustedAction::DeadLetter && dead_letter_sink_ != nullptr &&
                dead_letter_sink_->accept(DeadLetter{handler, options.command_id, policy.name(),
                                                     number, *result.last_error, options.item})) {
                outcome = RetryOutcome::DeadLettered;
            }
            finish(outcome);
            return result;
        }

        event.kind = RetryEventKind::RetryScheduled;
        event.attempt = number;
        event.category = decision.category;
        event.delay = decision.delay;
        event.error = &error;
        notify(&RetryListener::on_retry_scheduled, event);
        if (!sleeper_->sleep_for(decision.delay, options.stop)) {
            finish(RetryOutcome::Cancelled);
            return result;
        }
        context.previous_delay = decision.delay;
    }
}

}  // namespace rebound
