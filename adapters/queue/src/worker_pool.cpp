#include "rebound/queue/worker_pool.hpp"

#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stdexcept>

#include "periodic_turn.hpp"
#include "rebound/clock.hpp"
#include "rebound/decision.hpp"
#include "rebound/exception_classifier.hpp"
#include "rebound/queue/queue_schema.hpp"
#include "rebound/queue/queue_store.hpp"
#include "rebound/random_source.hpp"
#include "wake_schedule.hpp"

namespace rebound::queue {

namespace detail {

// The lease owners of the claims in progress, shared by the worker threads and the renewer.
class HeldClaims {
  public:
    void hold(const std::string& owner) {
        const std::lock_guard lock(mutex_);
        owners_.push_back(owner);
    }
    void drop(const std::string& owner) {
        const std::lock_guard lock(mutex_);
        const auto found = std::find(owners_.begin(), owners_.end(), owner);
        if (found != owners_.end()) {
            owners_.erase(found);
        }
    }
    std::vector<std::string> owners() const {
        const std::lock_guard lock(mutex_);
        return owners_;
    }

  private:
    mutable std::mutex mutex_;
    std::vector<std::string> owners_;
};

}  // namespace detail

namespace {

// Lists a claim's owner in HeldClaims for as long as the worker works through it.
class HeldClaim {
  public:
    HeldClaim(detail::HeldClaims* claims, std::string owner)
        : claims_(claims), owner_(std::move(owner)) {
        if (claims_ != nullptr) {
            claims_->hold(owner_);
        }
    }
    HeldClaim(const HeldClaim&) = delete;
    HeldClaim& operator=(const HeldClaim&) = delete;
    ~HeldClaim() {
        if (claims_ != nullptr) {
            claims_->drop(owner_);
        }
    }

  private:
    detail::HeldClaims* claims_;
    std::string owner_;
};

using odbc::Connection;

constexpr std::size_t kMaxStoredMessage = 2000;
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

LastError stored_error(const ErrorDescription& description) {
    LastError error;
    error.category = std::string(to_string(description.effective_category()));
    error.sqlstate = std::string(description.sqlstate);
    error.native_code = description.native_code;
    error.http_status = description.http_status;
    error.message = std::string(description.message.substr(0, kMaxStoredMessage));
    return error;
}

// What a failed attempt becomes, from the decision.
AttemptFailure failure_of(const ErrorDescription& description, const Decision& decision) {
    AttemptFailure failure;
    failure.error = stored_error(description);
    failure.retry = decision.retry;
    failure.delay = decision.delay;
    failure.route = std::string(decision.route);
    if (!decision.retry) {
        failure.dead_reason = std::string(to_string(decision.reason));
    }
    return failure;
}

void roll_back_quietly(Connection& connection) noexcept {
    if (!connection.is_open()) {
        return;
    }
    try {
        connection.rollback();
    } catch (...) {
        // A session that cannot roll back is dropped by the caller (is_dead) or by the server.
    }
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

// Whether a worker's connection stays in autocommit mode between transactions. On PostgreSQL the
// steps of one statement (the claim, recording a failure, grouped completions, the next-due read)
// then cost one round trip instead of three: under manual commit psqlODBC sends `BEGIN` as a round
// trip of its own before the statement, and `COMMIT` is another. Steps of several statements (an
// attempt with its completion, settling expired leases) open a transaction with
// TransactionScope. MariaDB's driver sends `SET autocommit` to the server at every switch, and the
// SQLite claim is several statements, so there the connection stays in manual commit.
bool autocommit_between_transactions(Vendor vendor) {
    return vendor == Vendor::PostgreSql;
}

// A transaction of several statements on a worker's connection. With `switch_mode` (the
// connection is in autocommit between transactions) it turns autocommit off for its lifetime; on
// the way out it rolls back what was not committed (nothing, after a commit) and turns autocommit
// back on. Errors on the way out are left for the next statement to report.
class TransactionScope {
  public:
    TransactionScope(Connection& connection, bool switch_mode)
        : connection_(connection), switch_mode_(switch_mode) {
        if (switch_mode_) {
            connection_.set_autocommit(false);
        }
    }
    TransactionScope(const TransactionScope&) = delete;
    TransactionScope& operator=(const TransactionScope&) = delete;
    ~TransactionScope() {
        if (!switch_mode_ || !connection_.is_open()) {
            return;
        }
        try {
            connection_.rollback();
            connection_.set_autocommit(true);
        } catch (...) {
            // A dead session: the worker replaces the connection (is_dead).
        }
    }

  private:
    Connection& connection_;
    bool switch_mode_;
};

// One worker thread's connection, store and claim counter.
class WorkerThread {
  public:
    // Thread `index` of the pool's options.threads.
    WorkerThread(const std::shared_ptr<const odbc::Environment>& environment,
                 const QueueHandlers& handlers, const WorkerOptions& options,
                 WorkerMetrics& metrics, detail::HeldClaims* held_claims,
                 detail::WakeSchedule& wake_schedule, detail::PeriodicTurn& settle_turn, int index)
        : environment_(environment),
          handlers_(handlers),
          options_(options),
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
        autocommit_ = autocommit_between_transactions(store_->vendor());
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
            const HandlerRegistry::Choice choice =
                handlers_.registry().choose(lease.handler, options_.policies.get());
            const std::string message = "lease expired: worker " + lease.lease_owner +
                                        " vanished during attempt " + std::to_string(lease.attempt);
            ErrorDescription error = ErrorDescription::of(ErrorCategory::ConnectionLost);
            error.message = message;
            const AttemptContext context{
                .attempt = std::max(lease.attempt, 1),
                .elapsed = std::chrono::microseconds(lease.elapsed_us),
                .previous_delay = std::chrono::microseconds(lease.last_delay_us),
                .idempotent = choice.idempotent};
            const Decision decision =
                decide(**choice.policy, error, context, default_random_source());
            const AttemptFailure failure = failure_of(error, decision);
            store_->record_failure(*connection_, lease.id, lease.lease_owner, failure);
            count(decision);
            due_after_commit_.push_back(failure);
        }
        connection_->commit();
        for (const AttemptFailure& failure : due_after_commit_) {
            schedule_wake(failure);
        }
        due_after_commit_.clear();
        metrics_.expired_settled.fetch_add(expired.size(), std::memory_order_relaxed);
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
            settle_failure(failure.message, failure.owner, failure.choice, failure.error,
                           failure.session_ended, failure.stopping);
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

    void count(const Decision& decision) {
        (decision.retry ? metrics_.retried : metrics_.dead).fetch_add(1, std::memory_order_relaxed);
    }

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
        const HandlerRegistry::Choice choice =
            handlers_.registry().choose(message.handler, options_.policies.get());
        const Policy& policy = **choice.policy;
        CircuitBreaker* const breaker = policy.breaker();
        BreakerPermit permit;
        Clock::TimePoint started{};
        if (breaker != nullptr) {
            started = default_clock().now();
            permit = breaker->acquire(started);
        }

        ErrorDescription error;
        std::exception_ptr thrown;   // owns the text `error` views
        bool session_ended = false;  // a database error that ended the worker's session
        // The completion and the handler's writes (not for a grouped handler, which writes nothing
        // through the connection); ended before the failure is recorded.
        std::optional<TransactionScope> transaction;
        if (breaker != nullptr && !permit) {
            error = ErrorDescription::of(ErrorCategory::CircuitOpen);
            error.server_delay = permit.retry_after;
            error.message = "the circuit breaker refused the attempt";
        } else {
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
                    // The lease ran out and another worker took the message: nothing of this
                    // attempt may commit.
                    roll_back_quietly(*connection_);
                    metrics_.lost_leases.fetch_add(1, std::memory_order_relaxed);
                    if (breaker != nullptr) {
                        breaker->release(permit, default_clock().now());
                    }
                    return;
                }
                if (grouped) {
                    grouped_done_.push_back(message.id);
                } else {
                    connection_->commit();
                    metrics_.succeeded.fetch_add(1, std::memory_order_relaxed);
                }
                if (breaker != nullptr) {
                    const Clock::TimePoint now = default_clock().now();
                    breaker->record_success(
                        permit, std::chrono::duration_cast<Duration>(now - started), now);
                }
                policy.record_success();
                return;
            } catch (const odbc::DatabaseError& failure) {
                thrown = std::current_exception();
                error = failure.failure().description();
                session_ended = restart_scope(failure.category()) == RestartScope::Connection;
            } catch (...) {
                thrown = std::current_exception();
                error = ExceptionClassifier::builtin().describe_current();
            }
            roll_back_quietly(*connection_);
            transaction.reset();
            if (breaker != nullptr) {
                breaker->record_error(permit, error, default_clock().now());
            }
        }
        if (grouped) {
            // Written once the claim's grouped attempts have run (settle_deferred_failures).
            deferred_failures_.push_back(
                {message, owner, choice, error, thrown, session_ended, stop.stop_requested()});
            return;
        }
        settle_failure(message, owner, choice, error, session_ended, stop.stop_requested());
    }

    // Runs the handler on the worker's connection; true when it returned (it succeeded).
    bool run_handler(const Message& message, const std::stop_token& stop) {
        const HandlerFunction* function = handlers_.find(message.handler);
        Delivery delivery{message, *connection_, stop};
        (*function)(delivery);
        return true;
    }

    void settle_failure(const Message& message, const std::string& owner,
                        const HandlerRegistry::Choice& choice, const ErrorDescription& error,
                        bool session_ended, bool stopping) {
        // A session the failure ended is replaced before the outcome is written. Only the
        // database's own errors say so: a handler's `service_unavailable` from another service
        // leaves the worker's session as it was.
        if (session_ended || connection_->is_dead()) {
            connection_.reset();
            ensure_connected();
        }
        const std::int64_t elapsed_us = message.claimed_at && message.first_attempt_at
                                            ? *message.claimed_at - *message.first_attempt_at
                                            : 0;
        const AttemptContext context{
            .attempt = message.attempt,
            .elapsed = std::chrono::microseconds(elapsed_us),
            .previous_delay = std::chrono::microseconds(message.last_delay_us),
            .idempotent = choice.idempotent};
        Decision decision = decide(**choice.policy, error, context, default_random_source());
        AttemptFailure failure = failure_of(error, decision);
        if (!decision.retry && stopping) {
            // Cancelled by a stopping pool (docs/queue.md): ready again rather than dead.
            failure.retry = true;
            failure.delay = Duration{0};
            failure.dead_reason.clear();
            decision.retry = true;
        }
        if (store_->record_failure(*connection_, message.id, owner, failure)) {
            connection_->commit();
            count(decision);
            schedule_wake(failure);
        } else {
            roll_back_quietly(*connection_);
            metrics_.lost_leases.fetch_add(1, std::memory_order_relaxed);
        }
    }

    std::shared_ptr<const odbc::Environment> environment_;
    const QueueHandlers& handlers_;
    const WorkerOptions& options_;
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
        Message message;
        std::string owner;
        HandlerRegistry::Choice choice;
        ErrorDescription error;
        std::exception_ptr thrown;  // owns the text `error` views
        bool session_ended = false;
        bool stopping = false;  // the pool was stopping when the attempt failed
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
    WorkerThread worker(environment_, *handlers_, options_, *metrics_, held_claims_.get(),
                        *wake_schedule_, *settle_turn_, index);
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
