#include "delivery_run.hpp"

#include <algorithm>
#include <exception>
#include <optional>

#include "rebound/odbc/database_error.hpp"

namespace rebound::queue::detail {

namespace {

constexpr std::size_t kMaxStoredMessage = 2000;

class DatabaseFailureClassifier final : public FailureClassifier {
  public:
    std::optional<ErrorDescription> classify_exception(
        const std::exception_ptr& /*exception*/) const noexcept override {
        // Called while the exception is handled: `throw;` inspects it (FailureClassifier).
        try {
            throw;
        } catch (const odbc::DatabaseError& error) {
            return error.failure().description();  // views into the exception the run keeps
        } catch (...) {
            return std::nullopt;
        }
    }
};

std::chrono::microseconds microseconds(std::int64_t count) noexcept {
    return std::chrono::microseconds(std::max<std::int64_t>(count, 0));
}

}  // namespace

const FailureClassifier& database_failure_classifier() noexcept {
    static const DatabaseFailureClassifier classifier;
    return classifier;
}

RunProgress progress_of(const Message& message) noexcept {
    const std::int64_t elapsed_us = message.claimed_at && message.first_attempt_at
                                        ? *message.claimed_at - *message.first_attempt_at
                                        : 0;
    return RunProgress{.attempts = std::max(message.attempt - 1, 0),
                       .elapsed = microseconds(elapsed_us),
                       .previous_delay = microseconds(message.last_delay_us)};
}

RunProgress progress_of(const ExpiredLease& lease) noexcept {
    return RunProgress{.attempts = std::max(lease.attempt, 1),
                       .elapsed = microseconds(lease.elapsed_us),
                       .previous_delay = microseconds(lease.last_delay_us)};
}

LastError stored_error(const ErrorDescription& description) {
    LastError error;
    error.category = std::string(to_string(description.effective_category()));
    error.sqlstate = std::string(description.sqlstate);
    error.native_code = description.native_code;
    error.http_status = description.http_status;
    error.message = std::string(description.message.substr(0, kMaxStoredMessage));
    return error;
}

AttemptFailure outcome_of(const RunResult& result, RunStep step) {
    const Decision& decision = result.last_decision;
    AttemptFailure failure;
    failure.error = stored_error(result.last_error.description());
    failure.retry = step == RunStep::Wait;
    failure.delay = failure.retry ? decision.delay : Duration{0};
    failure.route = std::string(decision.route);
    if (!failure.retry) {
        failure.dead_reason = std::string(to_string(decision.reason));
    }
    return failure;
}

Duration postponement(const BreakerPermit& refusal, const Policy& policy) noexcept {
    if (refusal.retry_after) {
        return std::max(*refusal.retry_after, Duration{0});
    }
    const CircuitBreaker* const breaker = policy.breaker();
    return breaker != nullptr ? breaker->settings().open_for : Duration{0};
}

}  // namespace rebound::queue::detail
