// The retry queue's metrics in the Prometheus text exposition format (version 0.0.4), written
// like RetryMetrics and the breaker metrics (retry_metrics.hpp; docs/queue.md, "Status and
// metrics").
//
// From the tables (QueueStatus), labelled by `handler` (and `state`):
//   rebound_queue_messages{handler,state}          gauge: ready, leased, done, dead; the queue's
//                                                   depth is ready + leased
//   rebound_queue_due_messages{handler}            gauge: ready with due_at <= now
//   rebound_queue_oldest_due_age_seconds{handler}  gauge: now - the oldest due_at; 0 when none
//   rebound_queue_paused{handler}                  gauge: 1 paused, 0 running
//   rebound_queue_blocked_keys{handler}            gauge: ordering keys a dead message holds up
// From one WorkerPool (WorkerMetrics), since it started:
//   rebound_queue_worker_messages_total{outcome}   counter: claimed, succeeded, retried, dead,
//                                                   released, postponed, lost_lease,
//                                                   expired_settled, renewed_lease
//   rebound_queue_worker_errors_total              counter: database errors of the loop itself
//   rebound_queue_retry_lateness_seconds{quantile} summary: p50 and p99 of how late retry attempts
//                                                   started after due_at (0 before the first),
//                                                   with _sum (seconds) and _count (retries)
#pragma once

#include <string>

#include "rebound/queue/queue_status.hpp"
#include "rebound/queue/worker_pool.hpp"

namespace rebound::queue {

// Every table series of `status`, handlers in name order.
std::string render_status_metrics(const QueueStatus& status);

// Every series of one pool's counters. Safe while the pool runs.
std::string render_worker_metrics(const WorkerMetrics& metrics);

}  // namespace rebound::queue
