#include "rebound/retry_metrics.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <mutex>
#include <new>
#include <vector>

#include "duration_histogram.hpp"
#include "rebound/internal/name_index.hpp"
#include "thread_stripe.hpp"

namespace rebound {
namespace {

// The outcomes of rebound_attempt_duration_seconds: the categories (in table order, at their
// enum values), then these two.
constexpr std::size_t kAttemptSucceeded = kCategoryCount;
constexpr std::size_t kAttemptCancelled = kCategoryCount + 1;
constexpr std::size_t kAttemptOutcomeCount = kCategoryCount + 2;
// The order they render in: succeeded, the categories, cancelled.
constexpr std::array<std::size_t, kAttemptOutcomeCount> kAttemptOutcomeOrder = [] {
    std::array<std::size_t, kAttemptOutcomeCount> order{};
    order.front() = kAttemptSucceeded;
    for (std::size_t i = 0; i < kCategoryCount; ++i) {
        order[i + 1] = i;
    }
    order.back() = kAttemptCancelled;
    return order;
}();

// The ids of RetryMetrics objects, never reused (0: none).
std::atomic<std::uint64_t> next_metrics_id{1};

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

// One line of counter `name` for `handler` (and `reason`, unless empty); none for a zero count.
void append_count(std::string& out, std::string_view name, std::string_view handler,
                  std::string_view reason, std::uint64_t count) {
    if (count == 0) {
        return;
    }
    append_series_start(out, name, handler);
    if (!reason.empty()) {
        out += ",reason=\"";
        out += reason;
        out += '"';
    }
    out += "} ";
    append_number(out, count);
    out += '\n';
}

// `handler="...",outcome="..."`: the labels of a histogram series.
std::string histogram_labels(std::string_view handler, std::string_view outcome) {
    std::string labels = "handler=\"";
    labels += escape_label_value(handler);
    labels += "\",outcome=\"";
    labels += outcome;
    labels += '"';
    return labels;
}

// The outcome of the attempt that ended with `event` (one that has an attempt_duration).
std::size_t attempt_outcome(const RetryEvent& event) noexcept {
    switch (event.kind) {
        case RetryEventKind::Succeeded:
            return kAttemptSucceeded;
        case RetryEventKind::Stopped:
            // A failed attempt ends a run with an outcome of its decision, never `cancelled`.
            if (event.outcome == RetryOutcome::Cancelled) {
                return kAttemptCancelled;
            }
            break;
        case RetryEventKind::RetryScheduled:
        case RetryEventKind::AttemptFailed:
        case RetryEventKind::AttemptStarted:
            break;
    }
    return static_cast<std::size_t>(event.category);
}

std::string_view attempt_outcome_name(std::size_t outcome) noexcept {
    if (outcome == kAttemptSucceeded) {
        return to_string(RetryOutcome::Succeeded);
    }
    if (outcome == kAttemptCancelled) {
        return to_string(RetryOutcome::Cancelled);
    }
    return kCategoryTable[outcome].wire_name;
}

}  // namespace

void append_metric_header(std::string& out, std::string_view name, std::string_view type,
                          std::string_view help) {
    out.append("# HELP ").append(name).append(" ").append(help).append("\n");
    out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

namespace detail {

void render_histogram(std::string& out, std::string_view name, std::string_view labels,
                      std::span<const HistogramCounts* const> parts) {
    std::array<std::uint64_t, kDurationBuckets.size() + 1> counts{};
    std::int64_t sum_microseconds = 0;
    for (const HistogramCounts* part : parts) {
        for (std::size_t i = 0; i < counts.size(); ++i) {
            counts[i] += part->buckets[i].load(std::memory_order_relaxed);
        }
        sum_microseconds += part->sum_microseconds.load(std::memory_order_relaxed);
    }
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        cumulative += counts[i];
    }
    if (cumulative == 0) {
        return;
    }
    const std::uint64_t total = cumulative;
    cumulative = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        cumulative += counts[i];
        out.append(name).append("_bucket{").append(labels).append(",le=\"");
        if (i < kDurationBuckets.size()) {
            append_seconds(out, kDurationBuckets[i]);
        } else {
            out += "+Inf";
        }
        out += "\"} ";
        append_number(out, cumulative);
        out += '\n';
    }
    out.append(name).append("_sum{").append(labels).append("} ");
    append_seconds(out, sum_microseconds);
    out.append("\n").append(name).append("_count{").append(labels).append("} ");
    append_number(out, total);
    out += '\n';
}

}  // namespace detail

// The counts of both duration histograms of a handler, by outcome.
struct DurationCounts {
    std::array<detail::HistogramCounts, kAttemptOutcomeCount> attempts{};
    std::array<detail::HistogramCounts, kRetryOutcomeCount> runs{};
    // Successes whose attempt lasted as long as the run (a run of one attempt, the common case):
    // counted here once, and rendered in both attempts[succeeded] and runs[succeeded].
    detail::HistogramCounts whole_successes{};
};

struct RetryMetrics::HandlerCounters {
    HandlerCounters(std::string_view handler, std::uint64_t handler_hash)
        : name(handler), hash(handler_hash) {}
    HandlerCounters(const HandlerCounters&) = delete;
    HandlerCounters& operator=(const HandlerCounters&) = delete;
    ~HandlerCounters() {
        for (std::atomic<DurationCounts*>& part : striped_durations) {
            delete part.load(std::memory_order_acquire);
        }
    }

    // The duration counts the calling thread records into: those of its thread stripe when it
    // holds one alone (`*exclusive` set: plain loads and stores, no atomic read-modify-write, the
    // cost of a histogram on the hot path), made on the stripe's first use; else the shared ones.
    DurationCounts& durations_of_this_thread(bool* exclusive) noexcept {
        const detail::ThreadStripe stripe = detail::this_thread_stripe();
        *exclusive = false;
        if (!stripe.exclusive) {
            return shared_durations;
        }
        std::atomic<DurationCounts*>& part = striped_durations[stripe.index];
        DurationCounts* counts = part.load(std::memory_order_acquire);
        if (counts == nullptr) {
            // Only the stripe's holder sets it, and a stripe passes to another thread with
            // release and acquire ordering: no other thread races for the slot.
            counts = new (std::nothrow) DurationCounts();
            if (counts == nullptr) {
                return shared_durations;  // out of memory: the shared counts still count
            }
            part.store(counts, std::memory_order_release);
        }
        *exclusive = true;
        return *counts;
    }

    // The parts of one histogram series, which `series(counts, parts)` appends from each
    // DurationCounts: of the shared counts and those of every stripe used.
    template <typename Series>
    std::vector<const detail::HistogramCounts*> histogram_parts(Series series) const {
        std::vector<const detail::HistogramCounts*> parts;
        series(shared_durations, parts);
        for (const std::atomic<DurationCounts*>& part : striped_durations) {
            if (const DurationCounts* counts = part.load(std::memory_order_acquire)) {
                series(*counts, parts);
            }
        }
        return parts;
    }

    const std::string name;
    const std::uint64_t hash;  // NameIndex::hash(name)
    std::atomic<std::uint64_t> attempts{0};
    std::array<std::atomic<std::uint64_t>, kCategoryCount> retries{};
    std::atomic<std::int64_t> delay_microseconds{0};
    std::array<std::atomic<std::uint64_t>, kRetryOutcomeCount> runs{};
    std::atomic<std::uint64_t> hedges{0};
    std::atomic<std::uint64_t> hedge_wins{0};
    std::array<std::atomic<std::uint64_t>, kHedgeSuppressionReasons> hedges_suppressed{};
    std::atomic<std::int64_t> hedge_delay_microseconds{0};  // 0: no delay known
    DurationCounts shared_durations;                        // for threads that share a stripe
    std::array<std::atomic<DurationCounts*>, detail::kThreadStripes> striped_durations{};
};

// The handler whose counters a thread used last, for every RetryMetrics (one entry per thread):
// the events of a run come one after another on one thread, so its next event finds the counters
// by comparing the name, without hashing it, and its duration counts without asking for the
// thread's stripe.
struct RetryMetrics::LastUsed {
    std::uint64_t metrics = 0;  // id_: an entry of metrics destroyed since matches no other
    HandlerCounters* counters = nullptr;
    DurationCounts* durations = nullptr;  // this thread's duration counts of `counters`, once used
    bool exclusive = false;               // whether they are its stripe's alone

    // Counts the durations `event` carries, if any (a negative one as 0).
    void observe_durations(const RetryEvent& event) noexcept {
        if (!event.attempt_duration && !event.run_duration) {
            return;
        }
        if (durations == nullptr) {
            durations = &counters->durations_of_this_thread(&exclusive);
        }
        std::int64_t attempt = -1;
        std::size_t attempt_bucket = 0;
        if (event.attempt_duration) {
            attempt = std::max(event.attempt_duration->count(), std::int64_t{0});
            attempt_bucket = detail::HistogramCounts::bucket_of(attempt);
            if (event.kind == RetryEventKind::Succeeded &&
                event.run_duration == event.attempt_duration) {
                durations->whole_successes.observe(attempt_bucket, attempt, exclusive);
                return;  // one count for both histograms
            }
            durations->attempts[attempt_outcome(event)].observe(attempt_bucket, attempt, exclusive);
        }
        if (event.run_duration) {
            // A run of one attempt lasts as long as the attempt: one bucket search for both.
            const std::int64_t run = std::max(event.run_duration->count(), std::int64_t{0});
            const std::size_t bucket =
                run == attempt ? attempt_bucket : detail::HistogramCounts::bucket_of(run);
            durations->runs[static_cast<std::size_t>(event.outcome)].observe(bucket, run,
                                                                             exclusive);
        }
    }
};

// Open addressing with linear probing over pointers to the handlers' counters: a slot, once set,
// keeps its pointer for the life of the metrics, and only the holder of the unique lock sets one.
// At most half full, so a probe for an absent name ends at an empty slot soon.
struct RetryMetrics::Slots {
    static constexpr std::size_t kCount = 4096;  // the top 12 bits of a hash choose the slot
    static_assert(kCount == std::size_t{1} << (64 - 52));
    std::array<std::atomic<HandlerCounters*>, kCount> slots{};
    std::size_t used = 0;  // under the unique lock

    HandlerCounters* find(std::string_view handler, std::uint64_t hash) const noexcept {
        for (std::size_t i = hash >> 52;; i = (i + 1) % kCount) {
            HandlerCounters* const c = slots[i].load(std::memory_order_acquire);
            if (c == nullptr || (c->hash == hash && c->name == handler)) {
                return c;
            }
        }
    }
    void insert(HandlerCounters* c) noexcept {
        if (used >= kCount / 2) {
            return;  // found under the shared lock from now on
        }
        std::size_t i = c->hash >> 52;
        while (slots[i].load(std::memory_order_relaxed) != nullptr) {
            i = (i + 1) % kCount;
        }
        slots[i].store(c, std::memory_order_release);
        ++used;
    }
};

RetryMetrics::RetryMetrics(RetryMetricsOptions options)
    : options_(options),
      id_(next_metrics_id.fetch_add(1, std::memory_order_relaxed)),
      slots_(std::make_unique<Slots>()) {}

RetryMetrics::~RetryMetrics() = default;

RetryMetrics::LastUsed& RetryMetrics::this_thread_last() noexcept {
    thread_local LastUsed last;  // constant-initialised, trivially destroyed: no guard
    return last;
}

RetryMetrics::LastUsed* RetryMetrics::counters(std::string_view handler) noexcept {
    LastUsed& last = this_thread_last();
    if (last.metrics == id_ && last.counters->name == handler) {
        return &last;
    }
    const std::uint64_t hash = NameIndex::hash(handler);
    HandlerCounters* c = slots_->find(handler, hash);
    if (c == nullptr) {
        c = create(handler, hash);
        if (c == nullptr) {
            return nullptr;
        }
    }
    last = LastUsed{id_, c, nullptr, false};
    return &last;
}

RetryMetrics::HandlerCounters* RetryMetrics::create(std::string_view handler,
                                                    std::uint64_t hash) noexcept {
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
            slot = std::make_unique<HandlerCounters>(handler, hash);
            slots_->insert(slot.get());
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
    if (LastUsed* const used = counters(event.handler)) {
        HandlerCounters* const c = used->counters;
        c->attempts.fetch_add(1, std::memory_order_relaxed);
        if (event.attempt_kind == AttemptKind::Hedge) {
            c->hedges.fetch_add(1, std::memory_order_relaxed);
        }
    }
}

void RetryMetrics::on_retry_scheduled(const RetryEvent& event) noexcept {
    if (LastUsed* const used = counters(event.handler)) {
        HandlerCounters& c = *used->counters;
        c.retries[static_cast<std::size_t>(event.category)].fetch_add(1, std::memory_order_relaxed);
        c.delay_microseconds.fetch_add(event.delay.count(), std::memory_order_relaxed);
        used->observe_durations(event);
    }
}

void RetryMetrics::count_run(const RetryEvent& event) noexcept {
    if (LastUsed* const used = counters(event.handler)) {
        HandlerCounters& c = *used->counters;
        const auto outcome = static_cast<std::size_t>(event.outcome);
        c.runs[outcome].fetch_add(1, std::memory_order_relaxed);
        if (event.hedge != nullptr) {
            count_hedged_run(c, event);
        }
        used->observe_durations(event);
    }
}

void RetryMetrics::count_hedged_run(HandlerCounters& c, const RetryEvent& event) noexcept {
    const HedgeReport& report = *event.hedge;
    if (event.kind == RetryEventKind::Succeeded && event.attempt_kind == AttemptKind::Hedge) {
        c.hedge_wins.fetch_add(1, std::memory_order_relaxed);
    }
    for (std::size_t i = 0; i < kHedgeSuppressionReasons; ++i) {
        if (report.suppressed[i] != 0) {
            c.hedges_suppressed[i].fetch_add(report.suppressed[i], std::memory_order_relaxed);
        }
    }
    // A run's delay is never 0 (none is none): 0 stands for none.
    c.hedge_delay_microseconds.store(report.delay ? report.delay->count() : 0,
                                     std::memory_order_relaxed);
}

void RetryMetrics::on_succeeded(const RetryEvent& event) noexcept {
    count_run(event);
}

void RetryMetrics::on_stopped(const RetryEvent& event) noexcept {
    count_run(event);
}

void RetryMetrics::on_attempt_failed(const RetryEvent& event) noexcept {
    // A hedged run's failed attempt: neither a retry nor a run, only its duration counts.
    if (LastUsed* const used = counters(event.handler)) {
        used->observe_durations(event);
    }
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

std::uint64_t RetryMetrics::hedges(std::string_view handler) const {
    const HandlerCounters* c = find(handler);
    return c != nullptr ? c->hedges.load(std::memory_order_relaxed) : 0;
}

std::uint64_t RetryMetrics::hedge_wins(std::string_view handler) const {
    const HandlerCounters* c = find(handler);
    return c != nullptr ? c->hedge_wins.load(std::memory_order_relaxed) : 0;
}

std::uint64_t RetryMetrics::hedges_suppressed(std::string_view handler,
                                              HedgeSuppression reason) const {
    const HandlerCounters* c = find(handler);
    return c != nullptr ? c->hedges_suppressed[static_cast<std::size_t>(reason)].load(
                              std::memory_order_relaxed)
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
    render_hedges(out);
    if (options_.durations) {
        render_durations(out);
    }
    return out;
}

void RetryMetrics::render_hedges(std::string& out) const {
    append_header(out, "rebound_hedges_total",
                  "Hedges started: attempts of a hedged run beyond the first.");
    for (const auto& [handler, c] : handlers_) {
        append_count(out, "rebound_hedges_total", handler, {},
                     c->hedges.load(std::memory_order_relaxed));
    }
    append_header(out, "rebound_hedge_wins_total",
                  "Hedged runs won by a hedge, not the first attempt.");
    for (const auto& [handler, c] : handlers_) {
        append_count(out, "rebound_hedge_wins_total", handler, {},
                     c->hedge_wins.load(std::memory_order_relaxed));
    }
    append_header(out, "rebound_hedges_suppressed_total",
                  "Hedges that fell due and did not start, by the first reason that held.");
    for (const auto& [handler, c] : handlers_) {
        for (std::size_t i = 0; i < kHedgeSuppressionReasons; ++i) {
            append_count(out, "rebound_hedges_suppressed_total", handler,
                         to_string(static_cast<HedgeSuppression>(i)),
                         c->hedges_suppressed[i].load(std::memory_order_relaxed));
        }
    }
    append_metric_header(out, "rebound_hedge_delay_seconds", "gauge",
                         "The hedge delay of the last hedged run to end, fixed or learned.");
    for (const auto& [handler, c] : handlers_) {
        const std::int64_t delay = c->hedge_delay_microseconds.load(std::memory_order_relaxed);
        if (delay == 0) {
            continue;
        }
        append_series_start(out, "rebound_hedge_delay_seconds", handler);
        out += "} ";
        append_seconds(out, delay);
        out += '\n';
    }
}

void RetryMetrics::render_durations(std::string& out) const {
    append_metric_header(out, "rebound_attempt_duration_seconds", "histogram",
                         "Attempts that ran, by how they ended: succeeded, the error category of "
                         "a failure, or cancelled.");
    for (const auto& [handler, c] : handlers_) {
        for (const std::size_t outcome : kAttemptOutcomeOrder) {
            const auto parts = c->histogram_parts([outcome](const DurationCounts& d, auto& list) {
                list.push_back(&d.attempts[outcome]);
                if (outcome == kAttemptSucceeded) {
                    list.push_back(&d.whole_successes);
                }
            });
            detail::render_histogram(out, "rebound_attempt_duration_seconds",
                                     histogram_labels(handler, attempt_outcome_name(outcome)),
                                     parts);
        }
    }
    append_metric_header(out, "rebound_run_duration_seconds", "histogram",
                         "Finished runs, from the start of the first attempt to the end, by "
                         "outcome.");
    for (const auto& [handler, c] : handlers_) {
        for (const RetryOutcomeInfo& info : kRetryOutcomeTable) {
            const auto outcome = static_cast<std::size_t>(info.outcome);
            const auto parts = c->histogram_parts([outcome](const DurationCounts& d, auto& list) {
                list.push_back(&d.runs[outcome]);
                if (outcome == static_cast<std::size_t>(RetryOutcome::Succeeded)) {
                    list.push_back(&d.whole_successes);
                }
            });
            detail::render_histogram(out, "rebound_run_duration_seconds",
                                     histogram_labels(handler, info.wire_name), parts);
        }
    }
}

}  // namespace rebound
