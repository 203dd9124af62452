// HedgedRun: one run of a hedging policy as a state machine with several attempts in flight
// (docs/hedging.md; spec hedging.md, "The hedged run"), for an asynchronous driver such as
// rebound::asio's. It makes the same judgements as RetryRun (decide()'s steps 1 to 4 for fatal
// failures, breaker permits, the retry budget, server delay hints, listeners, deadline,
// attempt_timeout) and adds the hedge schedule, suppression and hedge tokens.
//
// The driver owns the attempts and the waits; the run decides everything else. Every step reads
// the executor's clock:
//
//   rebound::HedgedRun run(engine, resolution, handler, options, latencies);
//   for (rebound::HedgeStep step = run.poll(); step.action != rebound::HedgeAction::Done;
//        step = run.poll()) {
//       switch (step.action) {
//           case rebound::HedgeAction::Start:   // launch attempt step.attempt (run.attempt())
//           case rebound::HedgeAction::Cancel:  // cancel it; its outcome is ignored from now on
//           case rebound::HedgeAction::Wait:    // until step.until or an attempt's outcome
//       }
//       ... on an attempt's outcome: run.succeeded(n), or run.failed(n, failure)
//   }
//   rebound::RunResult result = run.take_result();
//   const rebound::HedgeReport& report = run.report();  // hedges, winner, abandoned, suppressed
//
// Steps: t0 is the first poll(), which starts attempt 1. Hedge k is due at t0 + k * D (D fixed,
// or learned and read once at t0; none: no timed hedge); a non-fatal failure takes a budget
// token and, with on_failure next, makes the next hedge due at once; a server delay hint h holds
// every hedge until now + h. A hedge that falls due starts when, in this order, attempts are left,
// the deadline has not passed, the budget holds more than half its tokens, a hedge token is left
// and the breaker admits it; otherwise it is suppressed (counted by reason) and the next one is
// considered. At most one attempt starts per instant (a microsecond of the clock). A fatal failure
// ends the run at once; the first success wins. Either way every attempt still in flight is
// cancelled (Cancel steps before Done), counted as abandoned, and its permit goes back to the
// breaker as an ignored outcome. A handler that is not idempotent gets no timed hedge and at most
// one attempt in flight.
//
// Events (retry_listener.hpp): attempt_started for every attempt; attempt_failed for a failure
// (or attempt_timeout) that does not end the run, which schedules no retry; succeeded or stopped
// when the run ends. When a listener wants durations, every attempt whose end the run sees gives
// its attempt_duration (from its own start) in the event its end causes: attempt_failed, or the
// run's succeeded or stopped; the run's last event carries run_duration from t0. An attempt
// cancelled in flight (a loser, every attempt of a stopped run) has no duration: its end is
// never seen. The durations come from the clock reads every step makes anyway.
//
// Never allocates (listeners may) and runs in constant time per step, except failed() and a
// poll() that times an attempt out, which call RunOptions::on_failure (it may throw: the driver
// then calls abandon() and ends the run with that exception). At most kMaxAttempts attempts (a
// hedging policy's max_attempts is 2..10); a larger max_attempts is taken as kMaxAttempts.
//
// A HedgedRun keeps references to its executor, the RunOptions and the handler name it was
// made with and to the HedgeLatencies, if any: all must outlive it, except that the outcome of an
// attempt no longer in flight (in_flight() false) touches only the run's own state, so that a
// driver that does not await cancelled attempts may report their end (ignore_end()) while the
// run alone is kept alive. Not thread-safe: one driver steps it at a time.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "rebound/circuit_breaker.hpp"
#include "rebound/clock.hpp"
#include "rebound/failure.hpp"
#include "rebound/hedge_latencies.hpp"
#include "rebound/hedge_report.hpp"
#include "rebound/policy_set.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/retry_listener.hpp"

namespace rebound {

// What the driver of a hedged run does next.
enum class HedgeAction : std::uint8_t {
    Start,   // launch attempt `attempt` now (HedgedRun::attempt(attempt) describes it)
    Cancel,  // cancel attempt `attempt` (stop token, the transport's cancellation); do not await
    Wait,    // until `until`, or until an attempt in flight ends, then poll() again
    Done,    // the run is over: HedgedRun::result()
};

struct HedgeStep {
    HedgeAction action = HedgeAction::Done;
    int attempt = 0;  // Start and Cancel: the attempt's number (1 for the first)
    // Wait: the next time something is due (a hedge, an attempt_timeout); TimePoint::max() when
    // only an attempt's outcome can move the run on.
    Clock::TimePoint until{};
};

class HedgedRun {
  public:
    static constexpr int kMaxAttempts = 10;

    // `resolution`'s policy must hedge (PolicySpec::hedge). `latencies` null: the executor's
    // (ExecutorOptions::hedge_latencies); with neither, a learned delay gives no timed hedge.
    HedgedRun(const RetryExecutor& executor, HandlerResolution resolution, std::string_view handler,
              const RunOptions& options, HedgeLatencies* latencies = nullptr) noexcept;
    HedgedRun(const HedgedRun&) = delete;
    HedgedRun& operator=(const HedgedRun&) = delete;
    HedgedRun(HedgedRun&&) = delete;
    HedgedRun& operator=(HedgedRun&&) = delete;
    ~HedgedRun() = default;

    // The next step at the clock's now. The first call starts the run (t0, attempt 1). May throw
    // what on_failure throws when an attempt times out.
    HedgeStep poll();

    // Attempt `number` (after a Start step): its AttemptInfo carries the run's stop token, which a
    // driver replaces with the attempt's own.
    AttemptInfo attempt(int number) const noexcept;
    AttemptKind kind(int number) const noexcept {
        return number <= 1 ? AttemptKind::First : AttemptKind::Hedge;
    }

    // The executor's clock, which every step reads.
    Clock::TimePoint now() const noexcept;

    // Attempt `number` succeeded. Ignored unless it is in flight (a loser, a timed-out attempt).
    void succeeded(int number) noexcept;
    // Attempt `number` failed: judges the failure (may throw what on_failure throws). Ignored
    // unless it is in flight.
    void failed(int number, Failure failure);
    // Whether attempt `number` is in flight: its outcome still counts.
    bool in_flight(int number) const noexcept;
    // An attempt that is no longer in flight ended (its outcome is ignored): for a run that
    // allows one attempt at a time, a cancelled attempt occupies it until it ends. Touches
    // nothing but the attempt's state, so that a driver may call it after the run is over.
    void ignore_end(int number) noexcept { static_cast<void>(flying(number)); }

    // Ends the run as cancelled (a stop, or on_failure threw): every attempt in flight is then
    // cancelled by the Cancel steps poll() gives.
    void abandon() noexcept;
    bool done() const noexcept { return done_; }

    Failure classify_current() const noexcept;
    Failure classify_returned(Error error) const noexcept;

    const RunResult& result() const noexcept { return result_; }
    RunResult take_result() noexcept { return std::move(result_); }
    // What the run adds to its result: hedges, winner, abandoned, suppressed by reason, and the
    // delay (set by the first poll()). Complete once poll() returned Done.
    const HedgeReport& report() const noexcept { return report_; }

  private:
    // Cancelled: timed out and cancelled, its end not yet seen (it still occupies a run that
    // allows one attempt at a time).
    enum class SlotState : std::uint8_t { Idle, InFlight, Cancelled, Ended };
    struct Slot {
        Clock::TimePoint start{};
        BreakerPermit permit{};
        SlotState state = SlotState::Idle;
    };

    Slot* flying(int number) noexcept;
    int occupying() const noexcept;
    void end_attempt(Slot& slot, SlotState state, Clock::TimePoint now, Failure failure);
    void begin(Clock::TimePoint now) noexcept;
    HedgeStep start_first(Clock::TimePoint now);
    std::optional<HedgeStep> timeout_step(Clock::TimePoint now);
    std::optional<HedgeStep> hedge_step(Clock::TimePoint now);
    std::optional<Clock::TimePoint> hedge_due(Clock::TimePoint now) const noexcept;
    std::optional<Clock::TimePoint> timed_due() const noexcept;
    bool superseded_under_pushback(Clock::TimePoint now) const noexcept;
    std::optional<HedgeSuppression> admit(Clock::TimePoint now, BreakerPermit& permit) noexcept;
    void consume_slot() noexcept;
    void suppress(HedgeSuppression reason) noexcept;
    HedgeStep launch(int number, Clock::TimePoint now, const BreakerPermit& permit) noexcept;
    void judge(int number, Clock::TimePoint now);
    bool can_hedge_later() const noexcept;
    RetryOutcome end_reason(Clock::TimePoint now) const noexcept;
    HedgeStep cancel_step(Clock::TimePoint now) noexcept;
    HedgeStep wait_step(Clock::TimePoint now) const noexcept;
    Duration since_start(Clock::TimePoint now) const noexcept;
    // `ended`: the attempt whose end ends the run (its success or fatal failure), if any.
    void finish(RetryOutcome outcome, Clock::TimePoint now, const Slot* ended = nullptr) noexcept;
    void tell_failed(int number, Clock::TimePoint now) const noexcept;
    void add_durations(RetryEvent& event, const Slot* ended, Clock::TimePoint now,
                       bool ends_run) const noexcept;
    template <typename Complete>
    void notify(void (RetryListener::*method)(const RetryEvent&) noexcept, RetryEventKind kind,
                int attempt, Complete complete) const noexcept;

    const RetryExecutor* executor_;
    const RunOptions* options_;
    HedgeLatencies* latencies_;
    std::string_view handler_;
    RunResult result_;
    HedgeReport report_;
    std::array<Slot, kMaxAttempts> slots_{};
    Clock::TimePoint t0_{};
    Clock::TimePoint last_start_{};
    Clock::TimePoint pushback_until_{};
    std::optional<Duration> delay_{};  // D; none: no timed hedge
    int max_attempts_ = 2;
    int started_ = 0;
    int in_flight_ = 0;
    int next_slot_ = 1;  // the timed slot k of the next hedge, due at t0 + k * D
    bool begun_ = false;
    bool done_ = false;
    bool idempotent_ = false;
    bool times_events_ = false;    // a listener wants durations (RetryListener::wants_durations())
    bool failure_due_ = false;     // a non-fatal failure made the next hedge due
    bool schedule_ended_ = false;  // the deadline passed: no later timed hedge is due
};

}  // namespace rebound
