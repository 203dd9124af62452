#include "rebound/queue/worker_pool.hpp"

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "delivery_run.hpp"
#include "held_claims.hpp"
#include "periodic_turn.hpp"
#include "rebound/clock.hpp"
#include "rebound/hedging_unsupported.hpp"
#include "rebound/queue/queue_schema.hpp"
#include "rebound/queue/queue_store.hpp"
#include "rebound/retry_run.hpp"
#include "transaction_scope.hpp"
#include "wake_schedule.hpp"

namespace rebound::queue {

namespace {

using detail::HeldClaim;
using detail::roll_back_quietly;
using detail::TransactionScope;
using odbc::Connection;

constexpr int kExpiredPerPass = 100;
// How often a worker prepares its statements again (Connection::release_prepared_statements):
// PostgreSQL caches a statement's generic plan for the session, and one chosen while the queue
// table was empty or freshly analyzed empty scans the whole table, whose cost then grows with
// every message (docs/queue.md, "Plans that follow the table").
constexpr auto kReplanEvery = std::chrono::seconds(2);

std::string default_worker_name() {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) != 0) {
        host[0] = '\0';
    }
    return std::string(host) + ":" + std::to_string(getpid());
}

// Waits up to `period`, waking early when `stop` is requested.
void pause_for(Duration period, const std::stop_token& stop) {
    std::mutex mutex;
    std::condition_variable_any woken;
    std::unique_lock lock(mutex);
    woken.wait_for(lock, stop, period, [] { return false; });
}

void check_options(const WorkerOptions& options, const QueueHandlers* handlers) {
    const auto fail = [](const std::string& what) {
        throw std::invalid_argument("WorkerPool: " + what);
    };
    if (handlers == nullptr || handlers->names().empty()) {
        fail("no handlers registered");
    }
    if (options.connection_string.empty()) {
        fail("no connection string");
    }
    if (!options.classifier) {
        fail("no SQL error classifier");
    }
    if (options.threads < 1 || options.threads > 256) {
        fail("threads must be 1..256, got " + std::to_string(options.threads));
    }
    if (options.batch < 1 || options.batch > 1000) {
        fail("batch must be 1..1000, got " + std::to_string(options.batch));
    }
    if (options.lease < std::chrono::milliseconds(1)) {
        fail("lease must be at least 1ms");
    }
    if (options.poll_interval < Duration{0}) {
        fail("poll_interval must not be negative");
    }
}

// A worker's connection: autocommit off, READ COMMITTED on the servers.
Connection open_worker_connection(const std::shared_ptr<const odbc::Environment>& environment,
                                  const WorkerOptions& options) {
    Connection connection(environment, options.classifier, options.connection_string);
    connection.set_autocommit(false);
    if (connection.vendor() != Vendor::Sqlite) {
        connection.set_isolation(odbc::IsolationLevel::ReadCommitted);
    }
    return connection;
}

// One worker thread's connection, store and claim counter.
class WorkerThread {
  public:
    // Thread `index` of the pool's options.threads.
    WorkerThread(const std::shared_ptr<const odbc::Environment>& environment,
                 const QueueHandlers& handlers, const WorkerOptions& options,
                 const RetryExecutor& executor, WorkerMetrics& metrics,
                 detail::HeldClaims* held_claims, detail::WakeSchedule& wake_schedule,
                 detail::PeriodicTurn& settle_turn, int index)
        : environment_(environment),
          handlers_(handlers),
          options_(options),
          executor_(executor),
          metrics_(metrics),
          held_claims_(held_claims),
          wake_schedule_(wake_schedule),
          settle_turn_(settle_turn),
          owner_prefix_(options.name + "/" + std::to_string(index) + "/"),
          names_(handlers.names()),
          index_(index) {}

    void run(const std::stop_token& stop) {
        // Each thread re-prepares its own statements, at its own point of the period: the
        // threads' re-preparations are spread over it rather than all at once.
        Clock::TimePoint last_replan =
            default_clock().now() - std::chrono::duration_cast<Duration>(kReplanEvery) * index_ /
                                        std::max(options_.threads, 1);
        while (!stop.stop_requested()) {
            try {
                ensure_connected();
                const Clock::TimePoint now = default_clock().now();
                if (now - last_replan >= kReplanEvery) {
                    connection_->release_prepared_statements();
                    last_replan = now;
                }
                if (settle_turn_.take(now)) {
                    settle_expired_leases();
                }
                if (!claim_and_run(stop)) {
                    wait_for_work(stop);
                }
            } catch (const odbc::DatabaseError& error) {
                loop_failed(restart_scope(error.category()) == RestartScope::Connection, stop);
            } catch (const std::exception&) {
                // SchemaError (tables missing or newer), std::bad_alloc: counted, retried later.
                loop_failed(false, stop);
            }
        }
        try {
            if (connection_ && !grouped_done_.empty()) {
                complete_grouped();
            }
        } catch (const std::exception&) {
            // Left leased: their leases run out and they are delivered again.
            metrics_.database_errors.fetch_add(1, std::memory_order_relaxed);
        }
    }

  private:
    void ensure_connected() {
        if (connection_ && connection_->is_open() && !connection_->is_dead()) {
            return;
        }
        connection_.reset();
        Connection connection = open_worker_connection(environment_, options_);
        if (!store_ || store_->vendor() != connection.vendor()) {
            store_.emplace(connection.vendor().value_or(Vendor::Generic));
        }
        require_current_schema(connection);
        connection.commit();  // ends the read transaction the check opened
        autocommit_ = detail::autocommit_between_transactions(store_->vendor());
        connection.set_autocommit(autocommit_);
        connection_.emplace(std::move(connection));
    }

    // Nothing to claim: sleeps for the poll interval, or until the next message of its handlers
    // falls due if that is sooner, or until a retry this pool wrote falls due (wake_schedule.hpp).
    void wait_for_work(const std::stop_token& stop) {
        Duration wait = options_.poll_interval;
        if (const std::optional<Duration> next = store_->next_due_in(*connection_, names_)) {
            wait = std::min(wait, *next);
        }
        wake_schedule_.wait_until(std::chrono::steady_clock::now() + wait, stop);
    }

    // A retry this pool wrote: a sleeping thread of the pool wakes when it falls due.
    void schedule_wake(const AttemptFailure& failure) {
        if (failure.retry) {
            wake_schedule_.add(std::chrono::steady_clock::now() + failure.delay);
        }
    }

    void loop_failed(bool connection_scope, const std::stop_token& stop) {
        metrics_.database_errors.fetch_add(1, std::memory_order_relaxed);
        if (connection_) {
            roll_back_quietly(*connection_);
            if (connection_scope || connection_->is_dead()) {
                connection_.reset();
            }
        }
        pause_for(std::max<Duration>(options_.poll_interval, std::chrono::milliseconds(50)), stop);
    }

    // The expired leases of vanished workers: each such attempt failed with connection_lost.
    void settle_expired_leases() {
        const TransactionScope transaction(*connection_, autocommit_);
        due_after_commit_.clear();
        const std::vector<ExpiredLease> expired =
            store_->expired_leases(*connection_, kExpiredPerPass);
        for (const ExpiredLease& lease : expired) {
            const AttemptFailure failure = lost_attempt(lease);
            store_->record_failure(*connection_, lease.id, lease.lease_owner, failure);
            count(failure.retry);
            due_after_commit_.push_back(failure);
        }
        connection_->commit();
        for (const AttemptFailure& failure : due_after_commit_) {
            schedule_wake(failure);
        }
        due_after_commit_.clear();
        metrics_.expired_settled.fetch_add(expired.size(), std::memory_order_relaxed);
    }

    // The run of an expired lease's message decides on the vanished worker's attempt.
    AttemptFailure lost_attempt(const ExpiredLease& lease) const {
        const RunOptions run_options{.command_id = lease.command_id};
        RetryRun run = executor_.begin(resolve(lease.handler), lease.handler, run_options);
        run.resume(detail::progress_of(lease));
        const RunStep step = run.failed(run.classify_returned(
            Error(ErrorCategory::ConnectionLost, "lease expired: worker " + lease.lease_owner +
                                                     " vanished during attempt " +
                                                     std::to_string(lease.attempt))));
        return detail::outcome_of(run.result(), step);
    }

    HandlerResolution resolve(std::string_view handler) const {
        return handlers_.registry().resolve(handler, options_.policies.get());
    }

    // False when nothing was claimed.
    bool claim_and_run(const std::stop_token& stop) {
        const std::string owner = owner_prefix_ + std::to_string(++claims_);
        if (autocommit_) {
            complete_grouped();  // one round trip of its own, as the claim
        }
        // Under manual commit the previous claim's grouped completions are written in this
        // claim's transaction: one commit fewer per claim. Should the claim fail, they are
        // written again next time.
        const std::size_t pending = grouped_done_.size();
        const std::size_t marked =
            pending == 0 ? 0
                         : store_->complete_many(*connection_, grouped_done_, grouped_owner_,
                                                 options_.delete_done);
        const std::vector<Message> messages =
            store_->claim(*connection_, names_, options_.batch, options_.lease, owner);
        const auto claimed = std::chrono::steady_clock::now();
        if (pending > 0) {
            count_grouped(pending, marked);
        }
        grouped_owner_ = owner;
        metrics_.claimed.fetch_add(messages.size(), std::memory_order_relaxed);
        const HeldClaim held(messages.empty() ? nullptr : held_claims_, owner);
        for (std::size_t i = 0; i < messages.size(); ++i) {
            if (stop.stop_requested()) {
                complete_grouped();
                settle_deferred_failures();
                release(messages, i, owner);
                break;
            }
            const bool grouped = handlers_.completion(messages[i].handler) == Completion::Grouped;
            if (!grouped) {
                // Its own transaction commits or rolls back: the outcomes so far go first.
                complete_grouped();
                settle_deferred_failures();
            }
            run_attempt(messages[i], owner, grouped, claimed, stop);
        }
        settle_deferred_failures();
        if (stop.stop_requested()) {
            complete_grouped();
        }
        return !messages.empty();
    }

    // Writes the outcomes of the claim's failed grouped attempts, deferred so that the attempts
    // after them in the claim did not wait for their round trips (docs/queue.md, "Grouped
    // completion"). Should writing one fail, those after it stay leased until their lease runs
    // out (then settled as lost).
    void settle_deferred_failures() {
        std::vector<DeferredFailure> failures;
        failures.swap(deferred_failures_);
        for (const DeferredFailure& failure : failures) {
            write_failure(failure.id, failure.owner, failure.outcome, failure.session_ended);
        }
    }

    // Writes and commits the completions of the grouped successes so far (queue_handlers.hpp).
    void complete_grouped() {
        if (grouped_done_.empty()) {
            return;
        }
        const std::size_t marked = store_->complete_many(*connection_, grouped_done_,
                                                         grouped_owner_, options_.delete_done);
        connection_->commit();
        count_grouped(grouped_done_.size(), marked);
    }

    // `marked` of `pending` grouped completions committed; the others had lost their lease.
    void count_grouped(std::size_t pending, std::size_t marked) {
        metrics_.succeeded.fetch_add(marked, std::memory_order_relaxed);
        metrics_.lost_leases.fetch_add(pending - marked, std::memory_order_relaxed);
        grouped_done_.clear();
    }

    void release(const std::vector<Message>& messages, std::size_t from, const std::string& owner) {
        for (std::size_t i = from; i < messages.size(); ++i) {
            store_->release(*connection_, messages[i].id, owner);
        }
        connection_->commit();
        metrics_.released.fetch_add(messages.size() - from, std::memory_order_relaxed);
    }

    void count(bool retried) {
        (retried ? metrics_.retried : metrics_.dead).fetch_add(1, std::memory_order_relaxed);
    }

    // One delivery: one attempt of the message's run (delivery_run.hpp), unless the policy's
    // breaker refuses it, which postpones the message without counting an attempt.
    // `grouped`: the handler's completion waits for complete_grouped() (queue_handlers.hpp).
    // `claimed`: when the claim returned. A retry's lateness is how long after its due_at its
    // attempt starts: the claim's lateness on the database clock, plus the time the message then
    // waited behind the claim's earlier messages on this thread.
    void run_attempt(const Message& message, const std::string& owner, bool grouped,
                     std::chrono::steady_clock::time_point claimed, const std::stop_token& stop) {
        if (message.attempt > 1 && message.claimed_at) {
            const auto waited = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::steady_clock::now() - claimed);
            metrics_.retry_lateness.record(*message.claimed_at - message.due_at + waited.count());
        }
        const RunOptions run_options{.command_id = message.command_id};
        RetryRun run = executor_.begin(resolve(message.handler), message.handler, run_options);
        run.resume(detail::progress_of(message));
        if (const BreakerPermit permit = run.reserve_permit(); !permit) {
            postpone(message, owner, detail::postponement(permit, *run.result().policy));
            return;
        }
        try {
            run.start_attempt();  // Attempt: its permit is reserved, and the run has no stop token
        } catch (const HedgingUnsupported& refusal) {
            // A hedging policy (docs/hedging.md): the queue runs one attempt at a time, so the
            // message is dead at once, unrun, rather than failing every delivery until its lease
            // runs out (docs/queue.md, "Circuit breakers").
            write_failure(message.id, owner, refused_hedging(refusal), false);
            return;
        }
        Failure failure;
        bool session_ended = false;  // a database error that ended the worker's session
        {
            // The completion and the handler's writes (not for a grouped handler, which writes
            // nothing through the connection); ended before the outcome is written.
            std::optional<TransactionScope> transaction;
            if (!grouped) {
                transaction.emplace(*connection_, autocommit_);
            }
            try {
                // The completion goes first: it locks the row under the claim's lease for the
                // whole attempt, and a failure rolls it back together with the handler's writes.
                // A grouped handler writes nothing here: its completion is written afterwards.
                const bool held = grouped ? run_handler(message, stop)
                                          : store_->complete(*connection_, message.id, owner,
                                                             options_.delete_done) &&
                                                run_handler(message, stop);
                if (!held) {
                    // The lease ran out and another worker took the message, and its run with
                    // it: nothing of this attempt may commit.
                    roll_back_quietly(*connection_);
                    metrics_.lost_leases.fetch_add(1, std::memory_order_relaxed);
                    run.abandon();
                    return;
                }
                if (grouped) {
                    grouped_done_.push_back(message.id);
                } else {
                    connection_->commit();
                    metrics_.succeeded.fetch_add(1, std::memory_order_relaxed);
                }
                run.succeeded();
                return;
            } catch (const odbc::DatabaseError& error) {
                session_ended = restart_scope(error.category()) == RestartScope::Connection;
                failure = run.classify_current();
            } catch (...) {
                failure = run.classify_current();
            }
            roll_back_quietly(*connection_);
        }
        AttemptFailure outcome = decide_failure(run, std::move(failure), stop.stop_requested());
        if (grouped) {
            // Written once the claim's grouped attempts have run (settle_deferred_failures).
            deferred_failures_.push_back({message.id, owner, std::move(outcome), session_ended});
            return;
        }
        write_failure(message.id, owner, outcome, session_ended);
    }

    // The failed delivery's run decides. A delivery that fails while the pool is stopping ends
    // its run cancelled instead: ready again at once, its attempt counted (docs/queue.md).
    static AttemptFailure decide_failure(RetryRun& run, Failure failure, bool stopping) {
        if (stopping) {
            AttemptFailure cancelled;
            cancelled.error = detail::stored_error(failure.description());
            cancelled.retry = true;
            run.cancel();
            return cancelled;
        }
        const RunStep step = run.failed(std::move(failure));
        return detail::outcome_of(run.result(), step);
    }

    // What a delivery under a hedging policy stores: dead, not retried, with the refusal's text.
    static AttemptFailure refused_hedging(const HedgingUnsupported& refusal) {
        AttemptFailure dead;
        dead.error.category = std::string(to_string(ErrorCategory::Unknown));
        dead.error.message = refusal.what();
        dead.dead_reason = std::string(to_string(DecisionReason::NonRetryable));
        return dead;
    }

    // The breaker refused the delivery: it is not an attempt (docs/queue.md, "Circuit breakers").
    void postpone(const Message& message, const std::string& owner, Duration delay) {
        if (store_->postpone(*connection_, message.id, owner, delay)) {
            connection_->commit();
            metrics_.postponed.fetch_add(1, std::memory_order_relaxed);
            wake_schedule_.add(std::chrono::steady_clock::now() + delay);
        } else {
            roll_back_quietly(*connection_);
            metrics_.lost_leases.fetch_add(1, std::memory_order_relaxed);
        }
    }

    // Runs the handler on the worker's connection; true when it returned (it succeeded).
    bool run_handler(const Message& message, const std::stop_token& stop) {
        const HandlerFunction* function = handlers_.find(message.handler);
        Delivery delivery{message, *connection_, stop};
        (*function)(delivery);
        return true;
    }

    // Writes a failed attempt's outcome: ready at now + delay, or dead.
    void write_failure(std::int64_t id, const std::string& owner, const AttemptFailure& failure,
                       bool session_ended) {
        // A session the failure ended is replaced before the outcome is written. Only the
        // database's own errors say so: a handler's `service_unavailable` from another service
        // leaves the worker's session as it was.
        if (session_ended || connection_->is_dead()) {
            connection_.reset();
            ensure_connected();
        }
        if (store_->record_failure(*connection_, id, owner, failure)) {
            connection_->commit();
            count(failure.retry);
            schedule_wake(failure);
        } else {
            roll_back_quietly(*connection_);
            metrics_.lost_leases.fetch_add(1, std::memory_order_relaxed);
        }
    }

    std::shared_ptr<const odbc::Environment> environment_;
    const QueueHandlers& handlers_;
    const WorkerOptions& options_;
    const RetryExecutor& executor_;
    WorkerMetrics& metrics_;
    detail::HeldClaims* held_claims_;  // null without lease renewal
    detail::WakeSchedule& wake_schedule_;
    detail::PeriodicTurn& settle_turn_;
    std::string owner_prefix_;
    std::vector<std::string> names_;
    int index_;
    std::optional<Connection> connection_;
    std::optional<QueueStore> store_;
    std::uint64_t claims_ = 0;
    // Grouped successes not yet completed, all of the claim `grouped_owner_`.
    std::vector<std::int64_t> grouped_done_;
    std::string grouped_owner_;
    std::vector<AttemptFailure> due_after_commit_;  // settled leases, woken for once committed
    // Failed grouped attempts of the current claim whose outcome is not yet written.
    struct DeferredFailure {
        std::int64_t id = 0;
        std::string owner;
        AttemptFailure outcome;
        bool session_ended = false;
    };
    std::vector<DeferredFailure> deferred_failures_;
    bool autocommit_ = false;  // between transactions (autocommit_between_transactions)
};

}  // namespace

WorkerPool::WorkerPool(std::shared_ptr<const odbc::Environment> environment,
                       std::shared_ptr<const QueueHandlers> handlers, WorkerOptions options)
    : environment_(std::move(environment)),
      handlers_(std::move(handlers)),
      options_(std::move(options)),
      metrics_(std::make_unique<WorkerMetrics>()),
      wake_schedule_(std::make_unique<detail::WakeSchedule>()) {
    check_options(options_, handlers_.get());
    executor_ = std::make_unique<RetryExecutor>(
        ExecutorOptions{.clock = options_.clock,
                        .random = options_.random,
                        .classifier = &detail::database_failure_classifier(),
                        .listeners = options_.listeners});
    // Expired leases are settled once per quarter lease by the pool, by whichever thread is free.
    settle_turn_ = std::make_unique<detail::PeriodicTurn>(std::clamp<Duration>(
        options_.lease / 4, std::chrono::milliseconds(10), std::chrono::seconds(5)));
    if (options_.renew_leases) {
        held_claims_ = std::make_unique<detail::HeldClaims>();
    }
    if (!environment_) {
        throw std::invalid_argument("WorkerPool: no ODBC environment");
    }
    if (options_.name.empty()) {
        options_.name = default_worker_name();
    }
}

WorkerPool::~WorkerPool() {
    stop();
}

void WorkerPool::start() {
    if (!threads_.empty()) {
        return;
    }
    for (int i = 0; i < options_.threads; ++i) {
        threads_.emplace_back([this, i](const std::stop_token& stop) { run_thread(stop, i); });
    }
    if (held_claims_) {
        threads_.emplace_back([this](const std::stop_token& stop) { run_renewer(stop); });
    }
}

void WorkerPool::stop() noexcept {
    for (std::jthread& thread : threads_) {
        thread.request_stop();
    }
    for (std::jthread& thread : threads_) {
        if (thread.joinable()) {
            thread.join();
        }
    }
    threads_.clear();
}

void WorkerPool::run_thread(const std::stop_token& stop, int index) {
    WorkerThread worker(environment_, *handlers_, options_, *executor_, *metrics_,
                        held_claims_.get(), *wake_schedule_, *settle_turn_, index);
    worker.run(stop);
}

void WorkerPool::run_renewer(const std::stop_token& stop) {
    const Duration every = std::max<Duration>(options_.lease / 3, std::chrono::milliseconds(1));
    std::optional<Connection> connection;
    std::optional<QueueStore> store;
    while (!stop.stop_requested()) {
        pause_for(every, stop);
        const std::vector<std::string> owners = held_claims_->owners();
        if (owners.empty() || stop.stop_requested()) {
            continue;
        }
        try {
            if (!connection || !connection->is_open() || connection->is_dead()) {
                connection.reset();
                connection.emplace(open_worker_connection(environment_, options_));
                store.emplace(connection->vendor().value_or(Vendor::Generic));
            }
            metrics_->renewed_leases.fetch_add(
                store->renew_leases(*connection, owners, options_.lease),
                std::memory_order_relaxed);
        } catch (const std::exception&) {
            // A restart or a lost session: counted, reconnected at the next round.
            metrics_->database_errors.fetch_add(1, std::memory_order_relaxed);
            connection.reset();
        }
    }
}

}  // namespace rebound::queue
