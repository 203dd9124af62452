#include "rebound/queue/queue_metrics.hpp"

#include <array>
#include <cstdio>
#include <map>
#include <string_view>
#include <utility>

#include "rebound/retry_metrics.hpp"

namespace rebound::queue {

namespace {

// Microseconds as seconds with six decimals ("0.012500").
std::string seconds(std::int64_t microseconds) {
    char text[40];
    std::snprintf(text, sizeof text, "%.6f", static_cast<double>(microseconds) / 1e6);
    return text;
}

std::string handler_label(const std::string& handler) {
    return "handler=\"" + escape_label_value(handler) + "\"";
}

// One gauge per handler: name{handler="..."} value.
template <class Value>
void handler_gauge(std::string& out, const QueueStatus& status, std::string_view name,
                   std::string_view help, Value value) {
    append_metric_header(out, name, "gauge", help);
    for (const HandlerCounts& counts : status.handlers) {
        out.append(name).append("{").append(handler_label(counts.handler)).append("} ");
        out.append(value(counts)).append("\n");
    }
}

}  // namespace

std::string render_status_metrics(const QueueStatus& status) {
    std::string out;
    append_metric_header(out, "rebound_queue_messages", "gauge",
                         "Messages in the queue's table, by handler and state.");
    for (const HandlerCounts& counts : status.handlers) {
        const std::array<std::pair<std::string_view, std::int64_t>, 4> states{
            {{"ready", counts.ready},
             {"leased", counts.leased},
             {"done", counts.done},
             {"dead", counts.dead}}};
        for (const auto& [state, count] : states) {
            out.append("rebound_queue_messages{")
                .append(handler_label(counts.handler))
                .append(",state=\"")
                .append(state)
                .append("\"} ")
                .append(std::to_string(count))
                .append("\n");
        }
    }
    handler_gauge(out, status, "rebound_queue_due_messages",
                  "Ready messages whose due time has come.",
                  [](const HandlerCounts& c) { return std::to_string(c.due); });
    handler_gauge(out, status, "rebound_queue_oldest_due_age_seconds",
                  "Age of the oldest due message (0 when none is due).",
                  [](const HandlerCounts& c) { return seconds(c.oldest_due_age_us.value_or(0)); });
    handler_gauge(out, status, "rebound_queue_paused", "1 when the handler is paused.",
                  [](const HandlerCounts& c) { return std::string(c.paused ? "1" : "0"); });
    std::map<std::string, std::int64_t> blocked;
    for (const BlockedKey& key : status.blocked_keys) {
        ++blocked[key.handler];
    }
    handler_gauge(out, status, "rebound_queue_blocked_keys",
                  "Ordering keys held up by a dead message.", [&](const HandlerCounts& c) {
                      const auto found = blocked.find(c.handler);
                      return std::to_string(found == blocked.end() ? 0 : found->second);
                  });
    return out;
}

std::string render_worker_metrics(const WorkerMetrics& metrics) {
    const std::array<std::pair<std::string_view, const std::atomic<std::uint64_t>*>, 9> outcomes{
        {{"claimed", &metrics.claimed},
         {"succeeded", &metrics.succeeded},
         {"retried", &metrics.retried},
         {"dead", &metrics.dead},
         {"released", &metrics.released},
         {"postponed", &metrics.postponed},
         {"lost_lease", &metrics.lost_leases},
         {"expired_settled", &metrics.expired_settled},
         {"renewed_lease", &metrics.renewed_leases}}};
    std::string out;
    append_metric_header(out, "rebound_queue_worker_messages_total", "counter",
                         "Messages a worker pool handled, by outcome.");
    for (const auto& [outcome, counter] : outcomes) {
        out.append("rebound_queue_worker_messages_total{outcome=\"")
            .append(outcome)
            .append("\"} ")
            .append(std::to_string(counter->load(std::memory_order_relaxed)))
            .append("\n");
    }
    append_metric_header(out, "rebound_queue_worker_errors_total", "counter",
                         "Database errors of a worker pool's own loop (claim, settle, connect).");
    out.append("rebound_queue_worker_errors_total ")
        .append(std::to_string(metrics.database_errors.load(std::memory_order_relaxed)))
        .append("\n");
    // A Prometheus summary: the two quantiles, then _sum and _count.
    append_metric_header(out, "rebound_queue_retry_lateness_seconds", "summary",
                         "How late retry attempts started after their due time.");
    for (const auto& [label, q] : {std::pair{"0.5", 0.5}, std::pair{"0.99", 0.99}}) {
        out.append("rebound_queue_retry_lateness_seconds{quantile=\"")
            .append(label)
            .append("\"} ")
            .append(seconds(metrics.retry_lateness.percentile(q)))
            .append("\n");
    }
    out.append("rebound_queue_retry_lateness_seconds_sum ")
        .append(seconds(static_cast<std::int64_t>(metrics.retry_lateness.sum_microseconds())))
        .append("\n");
    out.append("rebound_queue_retry_lateness_seconds_count ")
        .append(std::to_string(metrics.retry_lateness.count()))
        .append("\n");
    return out;
}

}  // namespace rebound::queue
