#include "rebound/asio/retry_executor.hpp"

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

bool is_cancellation(const std::exception_ptr& exception) noexcept {
    try {
        std::rethrow_exception(exception);
    } catch (const std::system_error& error) {
        return rebound::asio::is_cancellation(error.code());
    } catch (...) {
        return false;
    }
}

Failure attempt_timeout_failure(const RetryRun& run) noexcept {
    return run.classify_returned(Error(ErrorCategory::StatementTimeout, "attempt_timeout passed"));
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
