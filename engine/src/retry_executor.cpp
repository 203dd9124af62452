#include "rebound/retry_executor.hpp"

#include <algorithm>

#include "rebound/retry_run.hpp"

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
    observes_first_attempt_ = listening() || measure_elapsed_;
}

HandlerResolution RetryExecutor::resolve(std::string_view handler) const {
    if (resolver_) {
        return resolver_(handler);
    }
    HandlerResolution resolution;  // via Builtin
    resolution.policy = PolicySet::builtin();
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
    const Error* carrier = nullptr;  // stays null for a description the classifier made
    if (!description) {
        description = exceptions_->describe_current(&carrier);
    }
    if (classifier_ != nullptr) {
        description = classifier_->refine(*description);
    }
    return Failure::thrown(std::move(exception), *description, carrier);
}

Failure RetryExecutor::classify_returned(Error error) const noexcept {
    if (classifier_ == nullptr) {
        return Failure::returned(std::move(error));
    }
    const ErrorDescription description = classifier_->refine(error.description());
    return Failure::returned(std::move(error), description);
}

RunResult RetryExecutor::run_attempts(HandlerResolution resolution, std::string_view handler,
                                      FunctionRef<std::optional<Error>(const AttemptInfo&)> attempt,
                                      const RunOptions& options) const {
    RetryRun run = begin(std::move(resolution), handler, options);
    RunStep step = run.start_attempt();
    while (step != RunStep::Done) {
        if (step == RunStep::Attempt) {
            Failure failure;
            try {
                std::optional<Error> returned = attempt(run.attempt());
                if (!returned) {
                    step = run.succeeded();
                    continue;
                }
                failure = run.classify_returned(std::move(*returned));
            } catch (...) {
                failure = run.classify_current();
            }
            step = run.failed(std::move(failure));
        } else {
            step = sleeper_->sleep_for(run.delay(), options.stop) ? run.waited() : run.cancel();
        }
    }
    return run.take_result();
}

}  // namespace rebound
