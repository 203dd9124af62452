// RetryMetrics: built-in counters and histograms of what executors did, rendered in the Prometheus
// text exposition format (version 0.0.4). Every metric of the project: docs/metrics.md.
//
// Series, labelled by `handler`, `reason` and `outcome` only (never ids: command ids would make
// one series per request):
//   rebound_attempts_total{handler}                   attempts started, first attempts included
//   rebound_retries_total{handler,reason}             retries scheduled; reason = error category
//   rebound_retry_delay_seconds_total{handler}        sum of the scheduled waits
//   rebound_runs_total{handler,reason}                finished runs; reason = outcome
//   rebound_hedges_total{handler}                     hedges started (attempts of a hedged run
//       beyond the first)
//   rebound_hedge_wins_total{handler}                 hedged runs that a hedge, not the first
//       attempt, won
//   rebound_hedges_suppressed_total{handler,reason}   hedges that fell due and did not start;
//       reason = HedgeSuppression (attempts, deadline, budget, hedge_tokens, breaker, pushback)
//   rebound_hedge_delay_seconds{handler}              gauge: the hedge delay of the handler's last
//       hedged run to end (fixed, or learned); left out while there is none (warming up)
//   rebound_attempt_duration_seconds{handler,outcome} histogram of the attempts that ran; outcome
//       = `succeeded`, the failed attempt's error category, or `cancelled` (the run was cancelled
//       while the attempt ran); an attempt the breaker refused never ran and is not in it, nor
//       is an attempt a hedged run abandoned in flight (its end is never seen)
//   rebound_run_duration_seconds{handler,outcome}     histogram of finished runs; outcome = the
//       run's outcome (RetryOutcome), from the start of the first attempt to the end of the run
// Histograms have the fixed buckets of kDurationBuckets. They need durations in the events
// (wants_durations() is true), so runs of an executor with this listener read its clock at the
// start and end of every attempt; RetryMetricsOptions::durations = false leaves both histograms
// out, and with them the clock reads.
//
// Register it as an executor listener. Recording is lock-free and allocates nothing after a
// handler's first event (which takes a lock and allocates its counters once, about 5 KB) and the
// first duration a thread records for it (its stripe's histogram counts, about 5 KB, at most 8
// per handler): the handler's counters are found in a lock-free table of 4096 slots, for the
// first 2048 handlers (later ones are found under a shared lock), and a thread's next event for
// the handler it counted last finds them by comparing the name; counters are atomic additions,
// and a thread that holds a stripe of its own adds to its histograms with plain loads and stores.
// render() may run concurrently with recording.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>

#include "rebound/error_category.hpp"
#include "rebound/hedge_report.hpp"
#include "rebound/output_text.hpp"  // escape_label_value, for every Prometheus writer
#include "rebound/retry_listener.hpp"
#include "rebound/retry_outcome.hpp"

namespace rebound {

// The upper bounds of the duration histograms' buckets, in microseconds (from 0.5 ms to 60 s; a
// last bucket, +Inf, takes the rest).
inline constexpr std::array<std::int64_t, 16> kDurationBuckets{
    500,    1000,   2500,    5000,    10000,   25000,    50000,    100000,
    250000, 500000, 1000000, 2500000, 5000000, 10000000, 30000000, 60000000};

struct RetryMetricsOptions {
    // Render the duration histograms, and ask runs for the durations they need.
    bool durations = true;
};

class RetryMetrics final : public RetryListener {
  public:
    explicit RetryMetrics(RetryMetricsOptions options = {});
    RetryMetrics(const RetryMetrics&) = delete;
    RetryMetrics& operator=(const RetryMetrics&) = delete;
    ~RetryMetrics() override;

    void on_attempt_started(const RetryEvent& event) noexcept override;
    void on_retry_scheduled(const RetryEvent& event) noexcept override;
    void on_succeeded(const RetryEvent& event) noexcept override;
    void on_stopped(const RetryEvent& event) noexcept override;
    void on_attempt_failed(const RetryEvent& event) noexcept override;
    bool wants_durations() const noexcept override { return options_.durations; }

    // Every series in the text exposition format: HELP and TYPE lines per metric, handlers in
    // name order, reasons and outcomes in table order (for attempts: succeeded, the categories,
    // cancelled), series with a zero count left out.
    std::string render() const;

    // Counter values, for tests and custom exporters (0 for unknown handlers).
    std::uint64_t attempts(std::string_view handler) const;
    std::uint64_t retries(std::string_view handler, ErrorCategory reason) const;
    std::uint64_t runs(std::string_view handler, RetryOutcome reason) const;
    std::uint64_t hedges(std::string_view handler) const;
    std::uint64_t hedge_wins(std::string_view handler) const;
    std::uint64_t hedges_suppressed(std::string_view handler, HedgeSuppression reason) const;

  private:
    struct HandlerCounters;  // retry_metrics.cpp
    struct Slots;            // the lock-free table
    struct LastUsed;         // the handler a thread counted last, per thread

    // The calling thread's entry for the counters of `handler`, created on first use; null only
    // if allocation failed. The thread's next event for the same handler finds them without
    // hashing its name.
    LastUsed* counters(std::string_view handler) noexcept;
    static LastUsed& this_thread_last() noexcept;
    HandlerCounters* create(std::string_view handler, std::uint64_t hash) noexcept;
    const HandlerCounters* find(std::string_view handler) const;
    void count_run(const RetryEvent& event) noexcept;
    static void count_hedged_run(HandlerCounters& c, const RetryEvent& event) noexcept;

    // Under the caller's shared lock.
    void render_hedges(std::string& out) const;
    void render_durations(std::string& out) const;

    RetryMetricsOptions options_;
    const std::uint64_t id_;  // unique in the process, never reused: names it in LastUsed
    std::unique_ptr<Slots> slots_;
    mutable std::shared_mutex mutex_;
    std::map<std::string, std::unique_ptr<HandlerCounters>, std::less<>> handlers_;
};

// Appends the `# HELP` and `# TYPE` lines of metric `name` (`type`: counter, gauge, ...); every
// Prometheus writer of the project starts its metrics with it.
void append_metric_header(std::string& out, std::string_view name, std::string_view type,
                          std::string_view help);

}  // namespace rebound
