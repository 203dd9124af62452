#include "rebound/odbc/transactional_runner.hpp"

#include <algorithm>

namespace rebound::odbc {

namespace {

// Rolls back whatever the failed attempt left open. False when that was impossible (no session,
// or the rollback itself failed): the session is then not trusted for another attempt.
bool roll_back(Connection& connection) noexcept {
    if (!connection.is_open()) {
        return false;
    }
    try {
        connection.rollback();
        return true;
    } catch (...) {
        return false;
    }
}

// The attempt timeout: the policy's, capped by the time left before the deadline.
TransactionAttempt describe_attempt(const PolicySpec& spec, int number, Duration elapsed,
                                    std::stop_token stop) {
    TransactionAttempt attempt;
    attempt.number = number;
    attempt.stop = std::move(stop);
    if (spec.deadline) {
        attempt.time_left = std::max(Duration{0}, *spec.deadline - elapsed);
    }
    attempt.attempt_timeout = spec.attempt_timeout;
    if (attempt.time_left &&
        (!attempt.attempt_timeout || *attempt.time_left < *attempt.attempt_timeout)) {
        attempt.attempt_timeout = attempt.time_left;
    }
    return attempt;
}

}  // namespace

TransactionalRunner::TransactionalRunner() noexcept : TransactionalRunner(Dependencies{}) {}

TransactionalRunner::TransactionalRunner(Dependencies dependencies) noexcept
    : clock_(dependencies.clock != nullptr ? dependencies.clock : &default_clock()),
      sleeper_(dependencies.sleeper != nullptr ? dependencies.sleeper : &default_sleeper()),
      random_(dependencies.random != nullptr ? dependencies.random : &default_random_source()) {}

TransactionReport TransactionalRunner::run_erased(
    Connection& connection, const Policy& policy, const TransactionOptions& options,
    const std::function<void(Connection&, const TransactionAttempt&)>& work) const {
    TransactionReport report;
    const Clock::TimePoint start = clock_->now();
    const auto elapsed = [&] {
        return std::chrono::duration_cast<Duration>(clock_->now() - start);
    };
    Duration previous_delay{0};
    bool reconnect = !connection.is_open();
    for (int number = 1;; ++number) {
        if (options.stop.stop_requested()) {
            report.outcome = TransactionOutcome::Cancelled;
            return report;
        }
        report.attempts = number;
        const TransactionAttempt attempt =
            describe_attempt(policy.spec(), number, elapsed(), options.stop);
        try {
            if (reconnect) {
                connection.reconnect();
                reconnect = false;
            }
            if (options.isolation) {
                connection.set_isolation(*options.isolation);
            }
            connection.set_autocommit(false);
            if (attempt.attempt_timeout) {
                connection.set_query_timeout(
                    std::chrono::ceil<std::chrono::milliseconds>(*attempt.attempt_timeout));
            } else {
                connection.set_query_timeout(std::nullopt);
            }
            work(connection, attempt);
            connection.commit();
            policy.record_success();
            report.outcome = TransactionOutcome::Succeeded;
            return report;
        } catch (const DatabaseError& error) {
            AttemptFailure failure;
            failure.attempt = number;
            failure.failure = error.failure();
            failure.rolled_back = roll_back(connection);
            failure.reconnect_next =
                !failure.rolled_back ||
                restart_scope(failure.failure.category) == RestartScope::Connection ||
                connection.is_dead();
            AttemptContext context;
            context.attempt = number;
            context.elapsed = elapsed();
            context.previous_delay = previous_delay;
            context.idempotent = options.idempotent;
            failure.decision = decide(policy, failure.failure.description(), context, *random_);
            const Decision decision = failure.decision;
            reconnect = failure.reconnect_next;
            report.failures.push_back(std::move(failure));
            if (!decision.retry) {
                report.outcome = outcome_of(decision.reason);
                return report;
            }
            if (!sleeper_->sleep_for(decision.delay, options.stop)) {
                report.outcome = TransactionOutcome::Cancelled;
                return report;
            }
            previous_delay = decision.delay;
        } catch (...) {
            roll_back(connection);
            throw;
        }
    }
}

}  // namespace rebound::odbc
