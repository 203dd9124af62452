// RetryMetrics: built-in counters of what executors did, rendered in the Prometheus text
// exposition format (version 0.0.4).
//
// Series, labelled by `handler` and `reason` only (never ids: command ids would make one series
// per request):
//   rebound_attempts_total{handler}                   attempts started, first attempts included
//   rebound_retries_total{handler,reason}             retries scheduled; reason = error category
//   rebound_retry_delay_seconds_total{handler}        sum of the scheduled waits
//   rebound_runs_total{handler,reason}                finished runs; reason = outcome
//
// Register it as an executor listener. Counting is lock-free after a handler's first event (which
// takes a lock and allocates its counters once); render() may run concurrently with counting.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "rebound/error_category.hpp"
#include "rebound/output_text.hpp"  // escape_label_value, for every Prometheus writer
#include "rebound/retry_listener.hpp"
#include "rebound/retry_outcome.hpp"

namespace rebound {

class RetryMetrics final : public RetryListener {
  public:
    void on_attempt_started(const RetryEvent& event) noexcept override;
    void on_retry_scheduled(const RetryEvent& event) noexcept override;
    void on_succeeded(const RetryEvent& event) noexcept override;
    void on_stopped(const RetryEvent& event) noexcept override;

    // Every series in the text exposition format: HELP and TYPE lines per metric, handlers in
    // name order, reasons in table order, series with a zero count left out.
    std::string render() const;

    // Counter values, for tests and custom exporters (0 for unknown handlers).
    std::uint64_t attempts(std::string_view handler) const;
    std::uint64_t retries(std::string_view handler, ErrorCategory reason) const;
    std::uint64_t runs(std::string_view handler, RetryOutcome reason) const;

  private:
    struct HandlerCounters {
        std::atomic<std::uint64_t> attempts{0};
        std::array<std::atomic<std::uint64_t>, kCategoryCount> retries{};
        std::atomic<std::int64_t> delay_microseconds{0};
        std::array<std::atomic<std::uint64_t>, kRetryOutcomeCount> runs{};
    };

    // The counters of `handler`, created on first use; null only if allocation failed.
    HandlerCounters* counters(std::string_view handler) noexcept;
    const HandlerCounters* find(std::string_view handler) const;
    void count_run(const RetryEvent& event) noexcept;

    mutable std::shared_mutex mutex_;
    std::map<std::string, std::unique_ptr<HandlerCounters>, std::less<>> handlers_;
};

// Appends the `# HELP` and `# TYPE` lines of metric `name` (`type`: counter, gauge, ...); every
// Prometheus writer of the project starts its metrics with it.
void append_metric_header(std::string& out, std::string_view name, std::string_view type,
                          std::string_view help);

}  // namespace rebound
