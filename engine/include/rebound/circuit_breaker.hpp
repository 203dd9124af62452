// CircuitBreaker: the state machine of docs/resilience.md, "Circuit breakers".
//
// A breaker watches the outcomes of calls to one dependency and, while the dependency keeps
// failing, refuses calls at once instead of adding load. States:
//   - closed: every call is admitted; outcomes are counted in a window of 10 buckets of
//     window / 10 each, aligned to the breaker's creation time. After each counted outcome the
//     trip rule is checked: ratio (calls in the window >= minimum_calls and failures / calls >=
//     failure_ratio) or consecutive (the last N counted outcomes were all failures): open.
//   - open for a period p (open_for the first time): calls are refused with the time left until
//     t_open + p as their hint; the first call asked at or after that instant half-opens it.
//   - half-open: up to half_open_calls calls hold a permit at once; others are refused without a
//     hint. half_open_calls successes close it (empty window, p back to open_for); a failure opens
//     it again with p = min(2p, max_open_for); an ignored outcome frees the permit.
// A permit belongs to the state that admitted it: an outcome recorded after the breaker changed
// state since then is ignored. A half-open permit (a probe) still counts against half_open_calls
// until its outcome is recorded or it is released, also after its half-open state ended: a
// breaker that re-opened and half-opens again admits only as many new probes as the earlier ones
// still in flight leave room for. isolate() forces the breaker open until reset(); reset() closes
// it with an empty window and forgets the probes in flight.
//
// Outcomes: a success (a failure when slow_call is set and the call took longer), a failure (an
// error that the `failures` matchers match, exactly as retry_on matches), or ignored (any other
// error, a cancellation, a permit given up).
//
// Concurrency contract: every member function is safe from many threads. In the closed state,
// acquire() is one atomic load and recording an outcome updates the window with compare-and-swap
// on its bucket words; neither locks nor allocates. Transitions, and every call while open past
// the period or half-open, and the outcome of a probe recorded after its state ended, take the
// breaker's mutex (they are rare, and half-open admits only a few calls). Times are given by the
// caller (read from its clock), so tests and `rebound replay` run in virtual time; they must not
// decrease by more than the caller can tolerate (an outcome recorded "in the past" lands in the
// bucket of its own time if that bucket is still in the window, and is otherwise dropped).
//
// Settings given to update_settings() take effect at the breaker's next change of state, so a
// reload keeps its state and window (docs/resilience.md, "State across reloads").
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rebound/clock.hpp"
#include "rebound/duration.hpp"
#include "rebound/error.hpp"
#include "rebound/error_type_registry.hpp"
#include "rebound/matcher.hpp"
#include "rebound/vocabulary.hpp"

namespace rebound {

enum class BreakerState : std::uint8_t { Closed, Open, HalfOpen };

inline constexpr WordRow<BreakerState> kBreakerStates[] = {
    {BreakerState::Closed, "closed", "every call is admitted; outcomes are counted"},
    {BreakerState::Open, "open", "calls are refused until the open period ends"},
    {BreakerState::HalfOpen, "half_open", "a few probe calls are admitted to test the dependency"},
};
static_assert(is_vocabulary(kBreakerStates));

constexpr std::span<const WordRow<BreakerState>> vocabulary(BreakerState) noexcept {
    return kBreakerStates;
}

enum class BreakerTrip : std::uint8_t { Ratio, Consecutive };

inline constexpr WordRow<BreakerTrip> kBreakerTrips[] = {
    {BreakerTrip::Ratio, "ratio", "open when the failure ratio of the window reaches the limit"},
    {BreakerTrip::Consecutive, "consecutive", "open after so many failures in a row"},
};
static_assert(is_vocabulary(kBreakerTrips));

constexpr std::span<const WordRow<BreakerTrip>> vocabulary(BreakerTrip) noexcept {
    return kBreakerTrips;
}

// A breaker as declared under `breakers:` (docs/policy-format.md). Defaults are the documented
// ones; validate_breaker lists what is out of range.
struct BreakerSettings {
    std::string name;
    BreakerTrip trip = BreakerTrip::Ratio;
    double failure_ratio = 0.5;                           // ratio: (0, 1]
    int minimum_calls = 20;                               // ratio: 1..1,000,000
    Duration window = std::chrono::seconds(10);           // ratio: 100ms..1h
    int consecutive_failures = 5;                         // consecutive: 1..1000
    Duration open_for = std::chrono::seconds(5);          // 1ms..1h
    std::optional<Duration> max_open_for;                 // open_for..24h; absent: open_for
    int half_open_calls = 1;                              // 1..1000
    std::optional<Duration> slow_call;                    // > 0; absent: no slow-call rule
    std::vector<Matcher> failures{Matcher::transient()};  // which errors count as failures

    Duration effective_max_open_for() const noexcept { return max_open_for.value_or(open_for); }

    friend bool operator==(const BreakerSettings&, const BreakerSettings&) = default;
};

// Which setting a problem is about.
enum class BreakerSetting : std::uint8_t {
    FailureRatio,
    MinimumCalls,
    Window,
    ConsecutiveFailures,
    OpenFor,
    MaxOpenFor,
    HalfOpenCalls,
    SlowCall,
    Failures,
};

struct BreakerProblem {
    BreakerSetting setting;
    std::size_t index = 0;  // the item of `failures`, for a Failures problem
    std::string message;    // "minimum_calls must be between 1 and 1000000, got 0"
};

// Every range rule of docs/resilience.md; empty when `settings` is valid.
std::vector<BreakerProblem> validate_breaker(const BreakerSettings& settings);

// What the breaker answered when asked for a permit.
struct BreakerPermit {
    bool admitted = false;
    // For a refusal while open: the time until the breaker half-opens. Absent for a refusal
    // while half-open (no hint) and for an admitted call.
    std::optional<Duration> retry_after;
    // The state change count when admitted; an outcome from an earlier state is ignored.
    std::uint64_t generation = 0;
    // The state that admitted the call (closed or half_open); meaningless when refused.
    BreakerState admitted_in = BreakerState::Closed;

    explicit operator bool() const noexcept { return admitted; }
};

// Counts for inspection and metrics (a snapshot; under concurrency, a moment's view).
struct BreakerSnapshot {
    BreakerState state = BreakerState::Closed;
    bool isolated = false;
    std::uint64_t calls_in_window = 0;     // ratio rule only
    std::uint64_t failures_in_window = 0;  // ratio rule only
    std::uint64_t consecutive_failures = 0;
    int half_open_permits_in_use = 0;  // probes in flight, of this or an earlier half-open state
    std::optional<Duration> until_half_open;  // while open (not isolated)
    Duration open_period{0};                  // the current or next open period
    std::uint64_t refused = 0;                // calls refused since creation
    std::array<std::uint64_t, std::size(kBreakerStates)>
        transitions_to{};  // by BreakerState, since creation
};

// One change of state, for logs and alerts.
struct BreakerTransition {
    std::string_view breaker;  // the breaker's name
    BreakerState from = BreakerState::Closed;
    BreakerState to = BreakerState::Closed;
    Duration open_for{0};  // the open period, when `to` is open and not isolated
    bool isolated = false;
};

// Called after every change of state, under the breaker's lock: it must be quick, must not
// throw, and must not call back into the breaker.
using BreakerTransitionListener = std::function<void(const BreakerTransition&)>;

class CircuitBreaker {
  public:
    using TimePoint = Clock::TimePoint;

    // A breaker created at `created` (the alignment of its window buckets). Throws
    // std::invalid_argument, listing every problem, when the settings are invalid.
    // `error_types` (optional, only for the call) adds registered subtypes to error matchers.
    CircuitBreaker(BreakerSettings settings, TimePoint created,
                   const ErrorTypeRegistry* error_types = nullptr);
    ~CircuitBreaker();

    CircuitBreaker(const CircuitBreaker&) = delete;
    CircuitBreaker& operator=(const CircuitBreaker&) = delete;

    const std::string& name() const noexcept { return name_; }

    // Asks to make a call at `now`.
    BreakerPermit acquire(TimePoint now) noexcept;

    // The outcome of an admitted call (a refused permit is ignored). `took` is how long it ran.
    void record_success(const BreakerPermit& permit, Duration took, TimePoint now) noexcept;
    void record_error(const BreakerPermit& permit, const ErrorDescription& error,
                      TimePoint now) noexcept;
    // Gives the permit up without an outcome (cancellation): an ignored outcome.
    void release(const BreakerPermit& permit, TimePoint now) noexcept;

    // Whether `error` counts as a failure for this breaker (its `failures` matchers).
    bool counts_as_failure(const ErrorDescription& error) const noexcept;

    // Forces the breaker open (every call refused, no hint) until reset().
    void isolate() noexcept;
    // Closes the breaker with an empty window, ending an isolation.
    void reset() noexcept;

    // New settings, used from the next change of state. Throws std::invalid_argument when they
    // are invalid (the breaker keeps its settings).
    void update_settings(BreakerSettings settings, const ErrorTypeRegistry* error_types = nullptr);
    // The settings in force now.
    const BreakerSettings& settings() const noexcept;

    BreakerSnapshot snapshot(TimePoint now) const noexcept;

    // Replaces the listener told of every change of state (empty: none). Thread-safe.
    void set_transition_listener(BreakerTransitionListener listener);

  private:
    struct Compiled;
    // One bucket's counter: the tag of the bucket (24 bits, from its index and the generation)
    // above a 40-bit count. A window is 10 of them.
    using BucketWord = std::atomic<std::uint64_t>;
    using WindowWords = std::array<BucketWord, 10>;
    // The outcomes counted by the thread that holds one stripe alone, on cache lines no other
    // thread writes; the last stripe is shared by the threads beyond the stripes' number.
    struct alignas(64) CallStripe {
        WindowWords calls{};
        // The tag of the bucket in which a check by a thread of this stripe saw at least
        // minimum_calls calls without tripping: until the bucket or the generation changes, a
        // success cannot trip the breaker. Per stripe, so that the check of a thread whose clock
        // reads a little behind another's rewrites no line that other thread reads.
        std::atomic<std::uint64_t> settled{~std::uint64_t{0}};
        // On lines of their own: other threads' checks read them, and must not take the lines
        // this stripe's successes write.
        alignas(64) WindowWords failures{};
        // The last check's verdict on this stripe's own window, `tag << 1 | hot` (hot: its
        // failure share reached the ratio); ~0 while unknown, and never set for the shared
        // stripe. Other stripes' checks read it instead of this stripe's counts. On a line of
        // its own, written at most once per bucket while the verdict holds, so that readers
        // keep it cached.
        alignas(64) std::atomic<std::uint64_t> verdict{~std::uint64_t{0}};
    };
    static constexpr std::size_t kExclusiveCallStripes = 8;
    static constexpr std::size_t kSharedCallStripe = kExclusiveCallStripes;

    enum class Outcome : std::uint8_t { Success, Failure, Ignored };
    void record(const BreakerPermit& permit, Outcome outcome, TimePoint now) noexcept;
    void record_closed(std::uint64_t generation, Outcome outcome, TimePoint now) noexcept;
    void record_half_open(std::uint64_t generation, Outcome outcome, TimePoint now) noexcept;
    bool ratio_tripped(const Compiled& compiled, std::uint64_t generation, std::int64_t bucket,
                       std::size_t stripe) noexcept;
    void open_locked(TimePoint now, Duration period) noexcept;
    void close_locked() noexcept;
    // A probe admitted in the half-open state of `generation`, which has ended, came back.
    void release_earlier_probe_locked(std::uint64_t generation) noexcept;
    void set_state_locked(BreakerState state) noexcept;
    void apply_pending_locked() noexcept;
    std::int64_t bucket_of(const Compiled& compiled, TimePoint now) const noexcept;
    std::int64_t since_creation(TimePoint now) const noexcept;  // microseconds, never negative
    std::optional<BreakerPermit> refusal_while_open(TimePoint now) noexcept;
    // Whether the window's share of every stripe in use other than `stripe` is below the ratio:
    // its verdict for this bucket and generation says so or, without one, its counts do.
    bool other_stripes_below_ratio(const Compiled& compiled, std::size_t stripe,
                                   std::uint64_t generation, std::int64_t bucket) const noexcept;
    // The window's calls, or failures, over every stripe.
    std::uint64_t window_total(WindowWords CallStripe::*counts, std::uint64_t generation,
                               std::int64_t bucket) const noexcept;
    static std::unique_ptr<const Compiled> compile(BreakerSettings settings,
                                                   const ErrorTypeRegistry* error_types);

    const std::string name_;
    const TimePoint created_;
    // generation << 2 | state: one load tells a closed breaker's caller everything.
    std::atomic<std::uint64_t> state_word_{0};
    std::atomic<std::int64_t> open_until_us_{0};  // since created_, while open
    std::atomic<std::uint64_t> consecutive_{0};
    std::atomic<std::uint64_t> refused_{0};
    std::array<std::atomic<std::uint64_t>, std::size(kBreakerStates)> transitions_to_{};
    std::array<CallStripe, kExclusiveCallStripes + 1> call_stripes_{};
    // Bit i: stripe i has counted an outcome (sums skip the stripes no thread has used).
    std::atomic<std::uint32_t> stripes_used_{0};
    std::atomic<const Compiled*> active_{nullptr};

    mutable std::mutex mutex_;  // guards everything below and every change of state
    Duration open_period_{0};
    bool isolated_ = false;
    // Probes in flight: half-open permits not yet given back, of any half-open state since
    // probes_counted_since_ (the generation reset() started; earlier ones are forgotten).
    int half_open_in_use_ = 0;
    std::uint64_t probes_counted_since_ = 0;
    int half_open_successes_ = 0;
    std::unique_ptr<const Compiled> pending_;
    BreakerTransitionListener listener_;
    // Every Compiled this breaker has used, kept alive while readers may still hold a pointer.
    std::vector<std::unique_ptr<const Compiled>> compiled_;
};

}  // namespace rebound
