#include "rebound/retry_executor.hpp"

#include <algorithm>
#include <array>
#include <atomic>

#include "rebound/retry_run.hpp"

namespace rebound {

struct RetryExecutor::UnclassifiedTypes {
    static constexpr std::size_t kCapacity = 64;
    std::array<std::atomic<const std::type_info*>, kCapacity> seen{};
};

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
      resolver_(std::move(options.resolver)),
      hedge_latencies_(options.hedge_latencies) {
    std::erase(listeners_, nullptr);
    observes_first_attempt_ = listening() || measure_elapsed_;
    times_events_ = std::ranges::any_of(
        listeners_, [](const RetryListener* listener) { return listener->wants_durations(); });
    if (listening()) {
        unclassified_ = std::make_shared<UnclassifiedTypes>();
    }
}

bool RetryExecutor::first_unclassified(const std::type_info& type) const noexcept {
    if (unclassified_ == nullptr) {
        return false;
    }
    // Lock-free: a slot, once set, keeps its type; two threads reporting one type at once
    // race for the same empty slot, and the loser finds the winner's type there.
    for (std::atomic<const std::type_info*>& slot : unclassified_->seen) {
        const std::type_info* seen = slot.load(std::memory_order_acquire);
        while (seen == nullptr) {
            if (slot.compare_exchange_weak(seen, &type, std::memory_order_acq_rel,
                                           std::memory_order_acquire)) {
                return true;
            }
        }
        if (*seen == type) {
            return false;
        }
    }
    return true;  // more types than slots: reported every time rather than never
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

Failure RetryExecutor::classify_current(const std::type_info** unmatched) const noexcept {
    *unmatched = nullptr;
    std::exception_ptr exception = std::current_exception();
    std::optional<ErrorDescription> description;
    if (classifier_ != nullptr) {
        description = classifier_->classify_exception(exception);
    }
    const Error* carrier = nullptr;  // stays null for a description the classifier made
    if (!description) {
        description = exceptions_->describe_current(&carrier, unmatched);
    }
    if (classifier_ != nullptr) {
        description = classifier_->refine(*description);
    }
    if (description->category) {
        *unmatched = nullptr;  // the refinement knew it after all
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
