// TransactionalRunner: runs a unit of database work in a transaction under a retry policy.
//
//   rebound::odbc::TransactionalRunner runner;
//   auto result = runner.run(connection, *policy, {.handler = "orders.place"},
//       [&](rebound::odbc::Connection& c, const rebound::odbc::TransactionAttempt&) {
//           c.execute("UPDATE stock SET quantity = quantity - 1 WHERE item = ?", {{item}});
//           return c.query_value("SELECT quantity FROM stock WHERE item = ?", {{item}});
//       });
//
// Every attempt (docs/semantics.md "The executor", docs/categories.md):
//   1. reconnects first when the previous attempt left the session unusable (a connection-scope
//      category, a dead connection, or a failed rollback); a failure to connect is an attempt
//      failure of phase `connect`;
//   2. turns autocommit off, applies the isolation level, and sets the query timeout from the
//      policy's attempt_timeout (capped by the time left before its deadline);
//   3. runs the work from the start (never a partial re-run) and commits;
//   4. on any DatabaseError, rolls back the whole transaction before anything else: drivers
//      differ in what a failed statement leaves open (psqlODBC keeps the transaction, and its
//      locks, after a deadlock), so the runner never relies on the driver having done it;
//   5. asks rebound::decide() with the failure's category; `commit_outcome_unknown` is retried
//      only when the options say the work is idempotent; waits through the injected sleeper.
// An exception that is not a DatabaseError rolls back and propagates unchanged (the runner cannot
// know whether it is safe to repeat).
//
// The runner is stateless apart from its injected clock, sleeper and random source; one runner
// may serve many threads at once when those are thread-safe (the defaults are). Each thread uses
// its own Connection.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "rebound/clock.hpp"
#include "rebound/decision.hpp"
#include "rebound/odbc/connection.hpp"
#include "rebound/odbc/database_error.hpp"
#include "rebound/policy.hpp"
#include "rebound/random_source.hpp"
#include "rebound/retry_outcome.hpp"
#include "rebound/sleeper.hpp"

namespace rebound::odbc {

// What the runner knows about the transaction (typically from PolicySet::resolve).
struct TransactionOptions {
    std::string handler;      // name used in reports
    bool idempotent = false;  // a repeated commit is harmless (e.g. the dedup table pattern)
    std::optional<IsolationLevel> isolation{};
    std::stop_token stop{};  // cancels waits between attempts
};

// What one attempt is told.
struct TransactionAttempt {
    int number = 1;                           // 1-based
    std::optional<Duration> time_left;        // before the policy's deadline; nullopt: none
    std::optional<Duration> attempt_timeout;  // as applied to the query timeout
    std::stop_token stop;
};

// The outcome of a transaction is one of the executor's outcomes (retry_outcome.hpp); the runner
// has no dead-letter sink, so it never reports RetryOutcome::DeadLettered.
using TransactionOutcome = RetryOutcome;

// One failed attempt and what the runner did about it.
struct AttemptFailure {
    int attempt = 1;
    DatabaseFailure failure;
    Decision decision;         // its `matched` and `route` views are valid while the Policy lives
    bool rolled_back = false;  // the rollback after the failure succeeded
    bool reconnect_next = false;  // the next attempt (if any) starts on a fresh session
};

struct TransactionReport {
    TransactionOutcome outcome = TransactionOutcome::NonRetryable;
    int attempts = 0;  // attempts started
    std::vector<AttemptFailure> failures;
    bool succeeded() const noexcept { return outcome == TransactionOutcome::Succeeded; }
    // The last failure, or null after a first-attempt success.
    const AttemptFailure* last_failure() const noexcept {
        return failures.empty() ? nullptr : &failures.back();
    }
};

template <class T>
struct TransactionResult : TransactionReport {
    std::optional<T> value;  // set when succeeded
};

class TransactionalRunner {
  public:
    struct Dependencies {
        Clock* clock = nullptr;          // default: the steady clock
        Sleeper* sleeper = nullptr;      // default: ThreadSleeper (wakes on stop)
        RandomSource* random = nullptr;  // default: the per-thread generator
    };

    TransactionalRunner() noexcept;
    explicit TransactionalRunner(Dependencies dependencies) noexcept;

    // Runs `work(Connection&, const TransactionAttempt&)` in a transaction until it commits or
    // the policy stops. The returned result holds the work's value when it succeeded; for work
    // returning void it is a TransactionReport. Throws only what `work` throws other than
    // DatabaseError (after rolling back).
    template <class Work>
    auto run(Connection& connection, const Policy& policy, const TransactionOptions& options,
             Work&& work) const {
        using Value = std::invoke_result_t<Work&, Connection&, const TransactionAttempt&>;
        if constexpr (std::is_void_v<Value>) {
            return run_erased(connection, policy, options,
                              [&](Connection& c, const TransactionAttempt& a) { work(c, a); });
        } else {
            TransactionResult<Value> result;
            std::optional<Value> value;
            static_cast<TransactionReport&>(result) = run_erased(
                connection, policy, options,
                [&](Connection& c, const TransactionAttempt& a) { value.emplace(work(c, a)); });
            if (result.succeeded()) {
                result.value = std::move(value);
            }
            return result;
        }
    }

    // The type-erased loop behind run(). `work` may be called several times.
    TransactionReport run_erased(
        Connection& connection, const Policy& policy, const TransactionOptions& options,
        const std::function<void(Connection&, const TransactionAttempt&)>& work) const;

  private:
    Clock* clock_;
    Sleeper* sleeper_;
    RandomSource* random_;
};

}  // namespace rebound::odbc
