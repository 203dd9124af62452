#include "rebound/breaker_metrics.hpp"

#include "rebound/retry_metrics.hpp"

namespace rebound {
namespace {

std::string labels(const std::string& service, const CircuitBreaker& breaker) {
    return "service=\"" + escape_label_value(service) + "\",breaker=\"" +
           escape_label_value(breaker.name()) + "\"";
}

}  // namespace

std::string render_breaker_metrics(const ResilienceRegistry& registry, Clock::TimePoint now) {
    struct Row {
        std::string labels;
        BreakerSnapshot snapshot;
    };
    std::vector<Row> rows;
    for (const auto& [service, breaker] : registry.breakers()) {
        rows.push_back({labels(service, *breaker), breaker->snapshot(now)});
    }
    std::string out;
    append_metric_header(out, "rebound_breaker_state", "gauge",
                         "Circuit breaker state: 0 closed, 1 open, 2 half-open.");
    for (const Row& row : rows) {
        out += "rebound_breaker_state{" + row.labels + "} " +
               std::to_string(static_cast<int>(row.snapshot.state)) + "\n";
    }
    append_metric_header(out, "rebound_breaker_transitions_total", "counter",
                         "Circuit breaker changes of state, by the state entered.");
    for (const Row& row : rows) {
        for (const WordRow<BreakerState>& state : kBreakerStates) {
            const auto count = row.snapshot.transitions_to[static_cast<std::size_t>(state.value)];
            if (count > 0) {
                out += "rebound_breaker_transitions_total{" + row.labels + ",to=\"" +
                       std::string(state.word) + "\"} " + std::to_string(count) + "\n";
            }
        }
    }
    append_metric_header(out, "rebound_breaker_refused_total", "counter",
                         "Calls a circuit breaker refused before they ran.");
    for (const Row& row : rows) {
        out += "rebound_breaker_refused_total{" + row.labels + "} " +
               std::to_string(row.snapshot.refused) + "\n";
    }
    return out;
}

}  // namespace rebound
