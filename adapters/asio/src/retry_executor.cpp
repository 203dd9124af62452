#include "rebound/asio/retry_executor.hpp"

#include <asio/post.hpp>
#include <asio/steady_timer.hpp>

namespace rebound::asio {
namespace {

ExecutorOptions with_classifier(ExecutorOptions options, const FailureClassifier* classifier) {
    options.classifier = classifier;
    return options;
}

}  // namespace

std::optional<ErrorDescription> ErrorCodeClassifier::classify_exception(
    const std::exception_ptr& exception) const noexcept {
    if (next_ != nullptr) {
        if (std::optional<ErrorDescription> described = next_->classify_exception(exception)) {
            return described;
        }
    }
    // Called while the exception is being handled (FailureClassifier): `throw;` inspects it.
    try {
        throw;
    } catch (const std::system_error& error) {
        ErrorDescription description = describe(error.code());
        if (description.category == ErrorCategory::Unknown) {
            return std::nullopt;  // the exception classifier's std::errc table, as when blocking
        }
        description.message = error.what();  // lives as long as the exception the Failure keeps
        return description;
    } catch (...) {
        return std::nullopt;
    }
}

ErrorDescription ErrorCodeClassifier::refine(const ErrorDescription& description) const noexcept {
    return next_ != nullptr ? next_->refine(description) : description;
}

namespace detail {

const RunOptions& no_run_options() noexcept {
    static const RunOptions options;
    return options;
}

// The steps a run under a policy by reference that succeeds at once does not take
// (run_state.hpp).
template void RunState<PolicyOrigin>::defer_with_info() noexcept;
template RunStep RunState<PolicyOrigin>::begin_and_start(RunCanceller* canceller);
template void RunState<PolicyOrigin>::end_run() noexcept;
template void RunState<PolicyOrigin>::take_run_result(RunResult& result) noexcept;
template void RunState<PolicyOrigin>::begin() noexcept;

bool handling_cancellation() noexcept {
    try {
        throw;
    } catch (const std::system_error& error) {
        return rebound::asio::is_cancellation(error.code());
    } catch (...) {
        return false;
    }
}

void throw_run_failure(const RunResult& result) {
    if (result.outcome == RetryOutcome::Cancelled) {
        throw ::asio::system_error(::asio::error::operation_aborted);
    }
    result.last_error.rethrow();
}

bool is_cancellation(const std::exception_ptr& exception) noexcept {
    try {
        std::rethrow_exception(exception);
    } catch (...) {
        return handling_cancellation();
    }
}

Failure attempt_timeout_failure(const RetryRun& run) noexcept {
    return run.classify_returned(Error(ErrorCategory::StatementTimeout, "attempt_timeout passed"));
}

void RunTimer::destroy(::asio::steady_timer* timer) noexcept {
    delete timer;
}

::asio::awaitable<void> make_timer(RunTimer& timer) {
    // The executor first: `new steady_timer(co_await ...)` would keep the allocation across the
    // suspension, a larger frame (16 B per waiting run).
    const ::asio::any_io_executor executor = co_await ::asio::this_coro::executor;
    timer.timer_ = new ::asio::steady_timer(executor);
}

::asio::awaitable<bool> cancellation_requested() {
    const ::asio::cancellation_state state = co_await ::asio::this_coro::cancellation_state;
    co_return state.cancelled() != ::asio::cancellation_type::none;
}

::asio::awaitable<void> start_wait(Duration delay, VirtualTime* virtual_time,
                                   ::asio::steady_timer* timer) {
    if (virtual_time != nullptr) {
        virtual_time->pass(delay);
        return ::asio::post(::asio::use_awaitable);
    }
    timer->expires_after(delay);
    return timer->async_wait(::asio::use_awaitable);
}

RunStep after_interrupted(RetryRun& run, AttemptEnd end) {
    return end == AttemptEnd::Stopped ? run.cancel() : run.failed(attempt_timeout_failure(run));
}

RunStep after_thrown(RetryRun& run, AttemptEnd end) {
    if (end != AttemptEnd::Completed) {
        return after_interrupted(run, end);
    }
    if (handling_cancellation()) {
        return run.cancel();
    }
    return run.failed(run.classify_current());
}

}  // namespace detail

RetryExecutor::RetryExecutor(ExecutorOptions options, VirtualTime* virtual_time)
    : classifier_(options.classifier),
      engine_(with_classifier(std::move(options), &classifier_)),
      virtual_time_(virtual_time) {}

const RetryExecutor& default_executor() {
    static const RetryExecutor executor;
    return executor;
}

}  // namespace rebound::asio
