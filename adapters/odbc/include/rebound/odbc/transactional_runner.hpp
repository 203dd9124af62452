// TransactionalRunner: runs a unit of database work in a transaction under a retry policy.
//
//   rebound::odbc::TransactionalRunner runner({.listeners = {&metrics}, .resolver = resolver});
//   auto result = runner.run(connection, "orders.place", {.command_id = command_id},
//       [&](rebound::odbc::Connection& c, const rebound::odbc::TransactionAttempt&) {
//           c.execute("UPDATE stock SET quantity = quantity - 1 WHERE item = ?", {{item}});
//           return c.query_value("SELECT quantity FROM stock WHERE item = ?", {{item}});
//       });
//
// The runner drives the engine's single run, rebound::RetryRun (retry_run.hpp), as the blocking
// RetryExecutor and rebound::asio do: a transaction gets the same decisions, the same circuit
// breaker (the one its policy names), retry budget, listener events, RetryMetrics counts and
// dead-letter sink as any other run. Every attempt (docs/semantics.md "The executor",
// docs/categories.md, docs/odbc.md):
//   0. asks the policy's breaker for a permit: a refused attempt fails with circuit_open and never
//      touches the connection (no reconnect, no statement, no rollback);
//   1. reconnects first when the previous attempt left the session unusable (a connection-scope
//      category, a dead connection, or a failed rollback); a failure to connect is an attempt
//      failure of phase `connect`;
//   2. applies the isolation level, turns autocommit off, and sets the query timeout from the
//      policy's attempt_timeout (capped by the time left before its deadline);
//   3. runs the work from the start (never a partial re-run) and commits;
//   4. on any DatabaseError, rolls back the whole transaction before anything else: drivers
//      differ in what a failed statement leaves open (psqlODBC keeps the transaction, and its
//      locks, after a deadlock), so the runner never relies on the driver having done it;
//   5. hands the failure's description to the run, which records it with the breaker and asks
//      rebound::decide(); `commit_outcome_unknown` is retried only when the transaction is
//      idempotent (TransactionOptions::idempotent); waits through the injected sleeper.
// An exception that is not a DatabaseError rolls back, gives the breaker's permit back unrecorded
// (RetryRun::abandon) and propagates unchanged: the runner cannot know whether it is safe to
// repeat.
//
// Thread safety: one runner may serve many threads at once when its clock, sleeper, random
// source, listeners, sink and resolver are thread-safe (the defaults are). Each thread uses its
// own Connection.
#pragma once

#include <any>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "rebound/clock.hpp"
#include "rebound/dead_letter_sink.hpp"
#include "rebound/decision.hpp"
#include "rebound/odbc/connection.hpp"
#include "rebound/odbc/database_error.hpp"
#include "rebound/policy.hpp"
#include "rebound/policy_set.hpp"
#include "rebound/random_source.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/retry_listener.hpp"
#include "rebound/retry_outcome.hpp"
#include "rebound/sleeper.hpp"

namespace rebound::odbc {

// What the runner knows about the transaction.
struct TransactionOptions {
    // The name in events, metrics, dead letters and reports. run(connection, handler, ...) uses
    // its `handler` when this is empty.
    std::string handler{};
    // A repeated commit is harmless (e.g. the dedup table pattern). With a HandlerResolution (or
    // a handler name) it plays the part of the handler's code: a file binding that states
    // `idempotent` decides; otherwise the transaction is idempotent when the resolution or this
    // says so.
    bool idempotent = false;
    std::optional<IsolationLevel> isolation{};
    std::stop_token stop{};    // cancels waits between attempts
    std::string command_id{};  // given to the work, listeners and the dead-letter sink
    std::any item{};           // the work item, for the dead-letter sink
};

// What one attempt is told.
struct TransactionAttempt {
    int number = 1;                           // 1-based
    std::optional<Duration> time_left;        // before the policy's deadline; nullopt: none
    std::optional<Duration> attempt_timeout;  // as applied to the query timeout
    std::stop_token stop;
    std::string_view command_id{};  // TransactionOptions::command_id
};

// The outcome of a transaction is one of the executor's outcomes (retry_outcome.hpp):
// circuit_open when the policy's breaker refused the last attempt, dead_lettered when the policy
// says `on_exhausted: dead_letter` and the runner's sink took the exhausted transaction.
using TransactionOutcome = RetryOutcome;

// One failed attempt and what the runner did about it.
struct AttemptFailure {
    int attempt = 1;
    // The database's failure; for an attempt the breaker refused, only the category
    // circuit_open (phase connect, no records): the connection was not touched.
    DatabaseFailure failure;
    Decision decision;         // its `matched` and `route` views are valid while the policy lives
    bool rolled_back = false;  // the rollback after the failure succeeded
    bool reconnect_next = false;  // the next attempt (if any) starts on a fresh session
    bool refused = false;         // the policy's breaker refused the attempt
};

struct TransactionReport {
    TransactionOutcome outcome = TransactionOutcome::NonRetryable;
    int attempts = 0;  // attempts started, refused ones included
    std::vector<AttemptFailure> failures;
    // The policy the run used, which keeps the decisions' views valid. It does not own a policy
    // given as `const Policy&`.
    std::shared_ptr<const Policy> policy;
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
    // What the runner's runs use, as ExecutorOptions (retry_executor.hpp) gives them to an
    // executor. The runner classifies DatabaseErrors itself (the connection's vendor maps).
    struct Dependencies {
        Clock* clock = nullptr;                      // default: the steady clock
        Sleeper* sleeper = nullptr;                  // default: ThreadSleeper (wakes on stop)
        RandomSource* random = nullptr;              // default: the per-thread generator
        std::vector<RetryListener*> listeners{};     // told every run's events, in order
        DeadLetterSink* dead_letter_sink = nullptr;  // for on_exhausted: dead_letter
        PolicyResolver resolver{};  // for run(connection, handler, ...); empty: the built-in policy
    };

    TransactionalRunner();
    explicit TransactionalRunner(Dependencies dependencies);

    // Runs `work(Connection&, const TransactionAttempt&)` in a transaction until it commits or
    // the policy stops. The returned result holds the work's value when it succeeded; for work
    // returning void it is a TransactionReport. Throws only what `work` throws other than
    // DatabaseError (after rolling back), and what a dead-letter sink throws.
    //
    // Under `policy`, which must outlive the call and the use of the report's decisions (for code
    // without policy files); the run counts as resolved in code, idempotent as the options say.
    template <class Work>
    auto run(Connection& connection, const Policy& policy, const TransactionOptions& options,
             Work&& work) const {
        return run_typed(connection, borrowed(policy, options), options.handler, options, work);
    }
    // Under a resolution (PolicySet::resolve, HandlerRegistry::resolve): its policy (null: the
    // built-in one), with the policy's breaker and budget, and its idempotency combined with the
    // options' (TransactionOptions::idempotent).
    template <class Work>
    // NOLINTNEXTLINE(performance-unnecessary-value-param): moved into the run
    auto run(Connection& connection, HandlerResolution resolution,
             const TransactionOptions& options, Work&& work) const {
        return run_typed(connection, combined(std::move(resolution), options), options.handler,
                         options, work);
    }
    // Under the policy the runner's resolver gives `handler`.
    template <class Work>
    auto run(Connection& connection, std::string_view handler, const TransactionOptions& options,
             Work&& work) const {
        return run_typed(connection, combined(executor_.resolve(handler), options),
                         options.handler.empty() ? handler : std::string_view(options.handler),
                         options, work);
    }

    // The type-erased loop behind run(), under `resolution` as it is (idempotency included),
    // naming the run `handler`. `work` may be called several times.
    TransactionReport run_erased(
        Connection& connection, HandlerResolution resolution, std::string_view handler,
        const TransactionOptions& options,
        const std::function<void(Connection&, const TransactionAttempt&)>& work) const;

  private:
    template <class Work>
    auto run_typed(Connection& connection, HandlerResolution&& resolution, std::string_view handler,
                   const TransactionOptions& options, Work& work) const {
        using Value = std::invoke_result_t<Work&, Connection&, const TransactionAttempt&>;
        if constexpr (std::is_void_v<Value>) {
            return run_erased(connection, std::move(resolution), handler, options,
                              [&](Connection& c, const TransactionAttempt& a) { work(c, a); });
        } else {
            TransactionResult<Value> result;
            std::optional<Value> value;
            static_cast<TransactionReport&>(result) = run_erased(
                connection, std::move(resolution), handler, options,
                [&](Connection& c, const TransactionAttempt& a) { value.emplace(work(c, a)); });
            if (result.succeeded()) {
                result.value = std::move(value);
            }
            return result;
        }
    }
    // `policy` without owning it, resolved in code, idempotent as `options` say.
    static HandlerResolution borrowed(const Policy& policy, const TransactionOptions& options);
    // `resolution` with its idempotency combined with the options' (TransactionOptions).
    static HandlerResolution combined(HandlerResolution resolution,
                                      const TransactionOptions& options) noexcept;

    RetryExecutor
        executor_;  // the runs' listeners, sink, resolver, clock, sleeper and random source
};

}  // namespace rebound::odbc
