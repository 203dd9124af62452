#include "rebound/retry_metrics.hpp"

#include <charconv>
#include <mutex>
#include <new>

namespace rebound {
namespace {

void append_number(std::string& out, std::uint64_t value) {
    char buffer[24];
    const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, end);
}

// Seconds from microseconds, exactly: "0.25", "3", "0.000001".
void append_seconds(std::string& out, std::int64_t microseconds) {
    append_number(out, static_cast<std::uint64_t>(microseconds / 1000000));
    std::int64_t fraction = microseconds % 1000000;
    if (fraction == 0) {
        return;
    }
    std::string digits(6, '0');
    for (std::size_t i = 6; i-- > 0; fraction /= 10) {
        digits[i] = static_cast<char>('0' + fraction % 10);
    }
    digits.erase(digits.find_last_not_of('0') + 1);
    out += '.';
    out += digits;
}

void append_header(std::string& out, std::string_view name, std::string_view help) {
    append_metric_header(out, name, "counter", help);
}

void append_series_start(std::string& out, std::string_view name, std::string_view handler) {
    out += name;
    out += "{handler=\"";
    out += escape_label_value(handler);
    out += '"';
}

}  // namespace

void append_metric_header(std::string& out, std::string_view name, std::string_view type,
                          std::string_view help) {
    out.append("# HELP ").append(name).append(" ").append(help).append("\n");
    out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

RetryMetrics::HandlerCounters* RetryMetrics::counters(std::string_view handler) noexcept {
    {
        std::shared_lock lock(mutex_);
        if (const auto it = handlers_.find(handler); it != handlers_.end()) {
            return it->second.get();
        }
    }
    try {
        std::unique_lock lock(mutex_);
        auto& slot = handlers_[std::string(handler)];
        if (!slot) {
            slot = std::make_unique<HandlerCounters>();
        }
        return slot.get();
    } catch (...) {
        return nullptr;  // out of memory: the event goes uncounted rather than failing the run
    }
}

const RetryMetrics::HandlerCounters* RetryMetrics::find(std::string_view handler) const {
    std::shared_lock lock(mutex_);
    const auto it = handlers_.find(handler);
    return it != handlers_.end() ? it->second.get() : nullptr;
}

void RetryMetrics::on_attempt_started(const RetryEvent& event) noexcept {
    if (HandlerCounters* c = counters(event.handler)) {
        c->attempts.fetch_add(1, std::memory_order_relaxed);
    }
}

void RetryMetrics::on_retry_scheduled(const RetryEvent& event) noexcept {
    if (HandlerCounters* c = counters(event.handler)) {
        c->retries[static_cast<std::size_t>(event.category)].fetch_add(1,
                                                                       std::memory_order_relaxed);
        c->delay_microseconds.fetch_add(event.delay.count(), std::memory_order_relaxed);
    }
}

void RetryMetrics::count_run(const RetryEvent& event) noexcept {
    if (HandlerCounters* c = counters(event.handler)) {
        c->runs[static_cast<std::size_t>(event.outcome)].fetch_add(1, std::memory_order_relaxed);
    }
}

void RetryMetrics::on_succeeded(const RetryEvent& event) noexcept {
    count_run(event);
}

void RetryMetrics::on_stopped(const RetryEvent& event) noexcept {
    count_run(event);
}

std::uint64_t RetryMetrics::attempts(std::string_view handler) const {
    const HandlerCounters* c = find(handler);
    return c != nullptr ? c->attempts.load(std::memory_order_relaxed) : 0;
}

std::uint64_t RetryMetrics::retries(std::string_view handler, ErrorCategory reason) const {
    const HandlerCounters* c = find(handler);
    return c != nullptr
               ? c->retries[static_cast<std::size_t>(reason)].load(std::memory_order_relaxed)
               : 0;
}

std::uint64_t RetryMetrics::runs(std::string_view handler, RetryOutcome reason) const {
    const HandlerCounters* c = find(handler);
    return c != nullptr ? c->runs[static_cast<std::size_t>(reason)].load(std::memory_order_relaxed)
                        : 0;
}

std::string RetryMetrics::render() const {
    std::shared_lock lock(mutex_);
    std::string out;
    append_header(out, "rebound_attempts_total", "Attempts started, first attempts included.");
    for (const auto& [handler, c] : handlers_) {
        append_series_start(out, "rebound_attempts_total", handler);
        out += "} ";
        append_number(out, c->attempts.load(std::memory_order_relaxed));
        out += '\n';
    }
    append_header(out, "rebound_retries_total",
                  "Retries scheduled, by the error category of the failed attempt.");
    for (const auto& [handler, c] : handlers_) {
        for (const CategoryInfo& info : kCategoryTable) {
            const std::uint64_t count =
                c->retries[static_cast<std::size_t>(info.category)].load(std::memory_order_relaxed);
            if (count == 0) {
                continue;
            }
            append_series_start(out, "rebound_retries_total", handler);
            out += ",reason=\"";
            out += info.wire_name;
            out += "\"} ";
            append_number(out, count);
            out += '\n';
        }
    }
    append_header(out, "rebound_retry_delay_seconds_total",
                  "Total time of the waits scheduled before retries.");
    for (const auto& [handler, c] : handlers_) {
        append_series_start(out, "rebound_retry_delay_seconds_total", handler);
        out += "} ";
        append_seconds(out, c->delay_microseconds.load(std::memory_order_relaxed));
        out += '\n';
    }
    append_header(out, "rebound_runs_total", "Finished runs, by outcome.");
    for (const auto& [handler, c] : handlers_) {
        for (const RetryOutcomeInfo& info : kRetryOutcomeTable) {
            const std::uint64_t count =
                c->runs[static_cast<std::size_t>(info.outcome)].load(std::memory_order_relaxed);
            if (count == 0) {
                continue;
            }
            append_series_start(out, "rebound_runs_total", handler);
            out += ",reason=\"";
            out += info.wire_name;
            out += "\"} ";
            append_number(out, count);
            out += '\n';
        }
    }
    return out;
}

}  // namespace rebound
