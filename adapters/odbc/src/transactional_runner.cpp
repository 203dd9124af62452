#include "rebound/odbc/transactional_runner.hpp"

#include <chrono>

#include "rebound/retry_run.hpp"

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

// What the work is told of the run's attempt: the policy's attempt timeout, capped by the time
// left before the deadline.
TransactionAttempt describe_attempt(const AttemptInfo& info) {
    TransactionAttempt attempt;
    attempt.number = info.attempt;
    attempt.time_left = info.time_left;
    attempt.attempt_timeout = info.attempt_timeout;
    if (attempt.time_left &&
        (!attempt.attempt_timeout || *attempt.time_left < *attempt.attempt_timeout)) {
        attempt.attempt_timeout = attempt.time_left;
    }
    attempt.stop = info.stop;
    attempt.command_id = info.command_id;
    return attempt;
}

// Steps 1 and 2 of an attempt (transactional_runner.hpp): a fresh session when the last attempt
// left none usable, then the transaction's settings.
void prepare_session(Connection& connection, const TransactionOptions& options,
                     const TransactionAttempt& attempt, bool& reconnect) {
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
}

// Rolls back after a DatabaseError and says whether the next attempt needs a fresh session.
AttemptFailure after_database_error(Connection& connection, const DatabaseError& error) {
    AttemptFailure failure;
    failure.failure = error.failure();
    failure.rolled_back = roll_back(connection);
    failure.reconnect_next = !failure.rolled_back ||
                             restart_scope(failure.failure.category) == RestartScope::Connection ||
                             connection.is_dead();
    return failure;
}

// An attempt the breaker refused, as the report keeps it: the connection was not touched.
AttemptFailure refused_attempt(const ErrorDescription& refusal, bool reconnect_next) {
    AttemptFailure failure;
    failure.failure.phase = DatabasePhase::Connect;
    failure.failure.category = refusal.category.value_or(ErrorCategory::CircuitOpen);
    failure.reconnect_next = reconnect_next;
    failure.refused = true;
    return failure;
}

}  // namespace

TransactionalRunner::TransactionalRunner() : TransactionalRunner(Dependencies{}) {}

TransactionalRunner::TransactionalRunner(Dependencies dependencies)
    : executor_(ExecutorOptions{.clock = dependencies.clock,
                                .sleeper = dependencies.sleeper,
                                .random = dependencies.random,
                                .listeners = std::move(dependencies.listeners),
                                .dead_letter_sink = dependencies.dead_letter_sink,
                                .resolver = std::move(dependencies.resolver)}) {}

HandlerResolution TransactionalRunner::borrowed(const Policy& policy,
                                                const TransactionOptions& options) {
    HandlerResolution resolution;
    // Aliasing a null owner: a pointer to `policy` that owns nothing (the caller keeps it).
    resolution.policy = std::shared_ptr<const Policy>(std::shared_ptr<const Policy>(), &policy);
    resolution.via = ResolvedVia::Code;
    resolution.idempotent = options.idempotent;
    resolution.idempotent_source =
        options.idempotent ? IdempotenceSource::Code : IdempotenceSource::Default;
    return resolution;
}

HandlerResolution TransactionalRunner::combined(HandlerResolution resolution,
                                                const TransactionOptions& options) noexcept {
    // The options speak for the handler's code: a file binding's word wins over them, as it wins
    // over a registration (docs/semantics.md).
    if (resolution.idempotent_source != IdempotenceSource::Binding && options.idempotent) {
        resolution.idempotent = true;
        resolution.idempotent_source = IdempotenceSource::Code;
    }
    return resolution;
}

TransactionReport TransactionalRunner::run_erased(
    Connection& connection, HandlerResolution resolution, std::string_view handler,
    const TransactionOptions& options,
    const std::function<void(Connection&, const TransactionAttempt&)>& work) const {
    TransactionReport report;
    bool reconnect = !connection.is_open();
    // The database failure being handed to the run; none when the breaker refused the attempt.
    std::optional<AttemptFailure> database_failure;
    const auto record = [&](const FailureEvent& event) {
        AttemptFailure failure = database_failure
                                     ? std::move(*database_failure)
                                     : refused_attempt(event.failure.description(), reconnect);
        database_failure.reset();
        failure.attempt = event.attempt;
        failure.decision = event.decision;
        report.failures.push_back(std::move(failure));
    };
    RunOptions run_options;
    run_options.command_id = options.command_id;
    run_options.stop = options.stop;
    run_options.item = options.item;
    run_options.on_failure = record;

    RetryRun run = executor_.begin(std::move(resolution), handler, run_options);
    RunStep step = run.start_attempt();
    while (step != RunStep::Done) {
        if (step == RunStep::Wait) {
            step = executor_.sleeper().sleep_for(run.delay(), options.stop) ? run.waited()
                                                                            : run.cancel();
            continue;
        }
        Failure failure;
        try {
            const TransactionAttempt attempt = describe_attempt(run.attempt());
            prepare_session(connection, options, attempt, reconnect);
            work(connection, attempt);
            connection.commit();
            step = run.succeeded();
            continue;
        } catch (const DatabaseError& error) {
            database_failure = after_database_error(connection, error);
            reconnect = database_failure->reconnect_next;
            // The exception keeps the failure whose text the description views.
            failure = Failure::thrown(std::current_exception(), error.failure().description());
        } catch (...) {
            roll_back(connection);
            run.abandon();
            throw;
        }
        step = run.failed(std::move(failure));
    }
    RunResult result = run.take_result();
    report.outcome = result.outcome;
    report.attempts = result.attempts;
    report.policy = std::move(result.policy);
    return report;
}

}  // namespace rebound::odbc
