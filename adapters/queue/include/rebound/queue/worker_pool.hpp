// WorkerPool: threads that claim messages and run their handlers under the handlers' policies
// (docs/queue.md, "Workers").
//
// Each thread has its own connection (autocommit off, READ COMMITTED on the servers) and loops:
//   1. now and then, settle expired leases: the attempt of a vanished worker failed with
//      `connection_lost`, and the message's run decides whether it is retried or dead;
//   2. claim up to `batch` messages (queue_store.hpp); none: wait `poll_interval`, or less: until
//      the next ready message of its handlers falls due, or a retry the pool wrote falls due
//      (docs/queue.md, "Waking for due retries");
//   3. for each, one delivery: one attempt of the message's run, the engine's RetryRun resumed
//      where the message's row left it (attempts made, time since the first, previous delay;
//      docs/queue.md, "One run per message"). The run first takes the policy's breaker permit: a
//      refusal is not an attempt, and the message is postponed, ready with its attempt count
//      unchanged, due when the breaker half-opens. Admitted: in one transaction, mark the message
//      done under the claim's lease (which locks its row), run the handler on the worker's
//      connection and commit, so the handler's writes and the completion commit together; on
//      failure roll back (the completion too), and the run decides (policy budget included) and
//      the outcome is stored: ready at now + delay with the route, or dead with the reason. The
//      run tells the listeners what an executor's run would. A stopping pool puts messages it
//      has not started back as ready.
//      A Completion::Grouped handler runs outside that transaction, and its successes are marked
//      done in one statement that commits with the thread's next claim (queue_handlers.hpp).
// With `renew_leases`, one more thread with its own connection extends, every third of the lease,
// the leases of the claims the threads are working through (docs/queue.md, "Lease renewal"), so
// a handler that runs longer than the lease keeps its message and the rest of its claim.
// A database error in the loop (a restart, a lost connection) is counted, the connection is
// reopened, and the loop goes on after a pause: messages stay leased until their lease runs out.
//
// Delivery is at least once and the effect exactly once when the handler writes through the
// delivery's connection (or uses the command-id table): the completion commits with the writes,
// and only while the claim's lease is still held.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "rebound/clock.hpp"
#include "rebound/duration.hpp"
#include "rebound/odbc/connection.hpp"
#include "rebound/policy_set.hpp"
#include "rebound/queue/lateness_histogram.hpp"
#include "rebound/queue/queue_handlers.hpp"
#include "rebound/random_source.hpp"
#include "rebound/retry_listener.hpp"
#include "rebound/sql_error_classifier.hpp"

namespace rebound {
class RetryExecutor;
}  // namespace rebound

namespace rebound::queue {

namespace detail {
class HeldClaims;    // the lease owners of the claims the threads are working through
class WakeSchedule;  // when idle threads wake for the retries the pool wrote
class PeriodicTurn;  // which thread settles the expired leases, once per quarter lease
}  // namespace detail

struct WorkerOptions {
    std::string connection_string;
    std::shared_ptr<const SqlErrorClassifier> classifier;
    // The service file the handlers' policies come from; null: registrations and the builtin.
    std::shared_ptr<const PolicySet> policies{};
    int threads = 1;                            // 1..256
    Duration lease = std::chrono::seconds(30);  // > the longest attempt
    int batch = 10;                             // 1..1000
    // The longest an idle thread sleeps; it wakes sooner when a message of its handlers falls due
    // (docs/queue.md, "Waking for due retries").
    Duration poll_interval = std::chrono::milliseconds(100);
    bool delete_done = false;   // delete a message when it succeeds instead of keeping it `done`
    std::string name{};         // worker identity in lease owners; empty: host:pid
    bool renew_leases = false;  // renew the leases of claims in progress (see above)
    // The deliveries' runs (docs/queue.md, "One run per message"): their clock (the breaker's
    // times, a deadline's time within an attempt; the time since the first attempt comes from
    // the database) and random source (jitter); null: default_clock(), default_random_source().
    // Shared by the pool's threads: thread-safe, or the pool has one thread (a
    // SeededRandomSource for reproducible delays).
    Clock* clock = nullptr;
    RandomSource* random = nullptr;
    // Told the events of every delivery's run, in order, as an executor's listeners are
    // (retry_listener.hpp; RetryMetrics labels them by the message's handler). Thread-safe; they
    // must outlive the pool.
    std::vector<RetryListener*> listeners{};
};

// Counters since start; safe to read while the pool runs.
struct WorkerMetrics {
    std::atomic<std::uint64_t> claimed{0};
    std::atomic<std::uint64_t> succeeded{0};
    std::atomic<std::uint64_t> retried{0};
    std::atomic<std::uint64_t> dead{0};
    std::atomic<std::uint64_t> released{0};         // put back unrun by a stopping pool
    std::atomic<std::uint64_t> postponed{0};        // refused by the breaker: not an attempt
    std::atomic<std::uint64_t> lost_leases{0};      // lease expired before completion: rolled back
    std::atomic<std::uint64_t> expired_settled{0};  // expired leases of vanished workers settled
    std::atomic<std::uint64_t> database_errors{0};  // in the loop itself (claim, settle, connect)
    std::atomic<std::uint64_t> renewed_leases{0};   // message leases extended by the renewer
    // How late attempts after the first start: claimed_at - due_at, plus the wait behind the
    // claim's earlier messages.
    LatenessHistogram retry_lateness;
};

class WorkerPool {
  public:
    // Throws std::invalid_argument for options out of range or a handler without function.
    WorkerPool(std::shared_ptr<const odbc::Environment> environment,
               std::shared_ptr<const QueueHandlers> handlers, WorkerOptions options);
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;
    ~WorkerPool();  // stop()

    // Starts the threads (once). They connect on their own and keep trying while the database
    // is unreachable.
    void start();
    // Asks every thread to stop after its current attempt and waits for them.
    void stop() noexcept;

    const WorkerMetrics& metrics() const noexcept { return *metrics_; }

  private:
    void run_thread(const std::stop_token& stop, int index);
    void run_renewer(const std::stop_token& stop);

    std::shared_ptr<const odbc::Environment> environment_;
    std::shared_ptr<const QueueHandlers> handlers_;
    WorkerOptions options_;
    std::unique_ptr<WorkerMetrics> metrics_;
    std::unique_ptr<RetryExecutor> executor_;          // the deliveries' runs
    std::unique_ptr<detail::HeldClaims> held_claims_;  // null without renew_leases
    std::unique_ptr<detail::WakeSchedule> wake_schedule_;
    std::unique_ptr<detail::PeriodicTurn> settle_turn_;
    std::vector<std::jthread> threads_;  // the workers, then the renewer
};

}  // namespace rebound::queue
