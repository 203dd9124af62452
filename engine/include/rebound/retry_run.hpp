// RetryRun: one run of the executor as an iterative state machine, shared by the blocking
// RetryExecutor and the asynchronous executor of rebound::asio (docs/semantics.md, The executor
// and The asynchronous executor), so that both make the same decisions, ask the breaker for the
// same permits, spend the same budget and tell listeners the same events.
//
// The driver owns the attempts and the waits; the run owns everything else:
//
//   rebound::RetryRun run = executor.begin(resolution, handler, options);
//   for (rebound::RunStep step = run.start_attempt(); step != rebound::RunStep::Done;) {
//       if (step == rebound::RunStep::Attempt) {
//           ... run the work with run.attempt(); then step = run.succeeded()
//           ... or step = run.failed(run.classify_returned(error)) /
//           run.failed(run.classify_current())
//       } else {  // RunStep::Wait
//           ... wait run.delay(); then step = run.waited(), or step = run.cancel() when stopped
//       }
//   }
//   rebound::RunResult result = run.take_result();
//
// Start attempt (a permit from the breaker; a refusal fails the attempt with circuit_open at
// once) -> record the outcome and decide -> wait the decision's delay, or done. Every step runs
// in constant time, never allocates (listeners may, see their headers) and never throws, except
// failed(), which calls RunOptions::on_failure, which may throw to abort the run, and
// start_attempt() of a hedging policy, which throws HedgingUnsupported (hedging_unsupported.hpp):
// a RetryRun only retries; rebound::asio runs hedging policies in a driver of their own.
//
// A driver whose run outlives the process, one attempt per delivery (the durable queue,
// docs/queue.md), begins a run for each delivery, resume()s it where the stored message left it,
// and may take the breaker's permit first with reserve_permit(), postponing the delivery when it
// is refused instead of failing an attempt:
//
//   rebound::RetryRun run = executor.begin(resolution, handler, options);
//   run.resume({.attempts = made, .elapsed = since_first, .previous_delay = last_delay});
//   if (!run.reserve_permit()) { ... postpone, counting no attempt; drop the run }
//   ... run.start_attempt() (Attempt), run the work, then succeeded() or failed(): store Wait
//   ... (retry after delay()) or Done (result()), and drop the run; abandon() it when the
//   ... delivery turns out not to be its own any more
//
// A RetryRun keeps references to its executor and to the RunOptions it was begun with: both must
// outlive it. It is not thread-safe: one driver steps it at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>

#include "rebound/circuit_breaker.hpp"
#include "rebound/clock.hpp"
#include "rebound/decision.hpp"
#include "rebound/failure.hpp"
#include "rebound/hedging_unsupported.hpp"
#include "rebound/policy_set.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/retry_listener.hpp"

namespace rebound {

// Where a run resumed by RetryRun::resume() stands: what the attempts made before it, by other
// runs of the same work (the deliveries of a durable queue's message), left.
struct RunProgress {
    int attempts = 0;            // attempts made so far (< 0: 0); the next one is attempts + 1
    Duration elapsed{0};         // since the first of them started (< 0: 0)
    Duration previous_delay{0};  // the wait the last decision chose (decorrelated jitter)
};

// What the driver of a run does next.
enum class RunStep {
    Attempt,  // run the work once, described by RetryRun::attempt()
    Wait,     // wait RetryRun::delay() (or until cancelled), then call waited()
    Done,     // the run is over: RetryRun::result() holds the outcome
};

class RetryRun {
  public:
    // Use RetryExecutor::begin().
    RetryRun(const RetryExecutor& executor, HandlerResolution resolution, std::string_view handler,
             const RunOptions& options) noexcept;
    // Moves a run whose RunOptions moved to `options`: for a driver that keeps the run beside its
    // options and moves both, such as the asynchronous executor into its coroutine frame.
    RetryRun(RetryRun&& other, const RunOptions& options) noexcept;
    RetryRun(const RetryRun&) = delete;
    RetryRun& operator=(const RetryRun&) = delete;
    RetryRun(RetryRun&&) noexcept = default;
    RetryRun& operator=(RetryRun&&) = delete;
    ~RetryRun() = default;

    // Starts the next attempt: Done (cancelled) when the stop token is set, Attempt when the
    // work should run (always, once reserve_permit() admitted it and no stop is set), or Wait /
    // Done when the breaker refused the attempt. A refusal is a failed attempt, told to
    // on_failure, which may throw. Throws HedgingUnsupported for a policy with a `hedge`, before
    // anything else happens (a permit reserve_permit() took goes back).
    RunStep start_attempt();
    // Resumes the run after `progress` (call before anything else): the next attempt is number
    // progress.attempts + 1, decisions see the previous delay and, in a timed run, the time since
    // the first attempt as progress.elapsed plus the time since this call, and a deadline's time
    // left counts from that first attempt. Listeners hear the events of this run's attempts only,
    // as they would in one run that made every attempt. Besides start_attempt(), a resumed run
    // may go straight to failed() when its last attempt, progress.attempts (>= 1), failed out of
    // its driver's sight (a queue worker that vanished): it is decided as that attempt, and the
    // breaker records no outcome (this run took no permit for it).
    void resume(const RunProgress& progress) noexcept;
    // Asks the breaker for the next attempt's permit ahead of start_attempt(), for a driver that
    // postpones a refused attempt instead of failing it. Admitted (always, without a breaker):
    // start_attempt() uses the permit instead of asking again, and cancel() or a stop returns
    // it. Refused: the run is as it was (no attempt counted, no event, no decision); retry_after
    // is the time until the breaker half-opens (absent while half-open or isolated), and the
    // driver drops the run.
    BreakerPermit reserve_permit() noexcept;

    // The attempt to run (valid after start_attempt() returned Attempt).
    const AttemptInfo& attempt() const noexcept { return info_; }

    // The attempt succeeded: Done.
    RunStep succeeded() noexcept;
    // The attempt failed: records the failure with the breaker, decides, tells on_failure (which
    // may throw) and returns Wait (a retry after delay()) or Done.
    RunStep failed(Failure failure);

    // Describes the exception being handled (call inside a catch block) or a returned error,
    // through the executor's FailureClassifier and ExceptionClassifier.
    Failure classify_current() const noexcept;
    Failure classify_returned(Error error) const noexcept;

    // The wait before the next attempt (valid after Wait).
    Duration delay() const noexcept { return result_.last_decision.delay; }
    // The wait passed in full: starts the next attempt (see start_attempt(); may throw).
    RunStep waited();
    // Ends the run as cancelled, keeping the last error; a permit taken for an attempt in
    // progress goes back to the breaker unrecorded.
    RunStep cancel() noexcept;
    // Gives the run up without an outcome and without an event: for a driver that lets an
    // exception of the work propagate instead of deciding on it (the ODBC transactional runner),
    // or that finds the attempt is no longer its own (a queue message whose lease another worker
    // took). A permit taken for the attempt (start_attempt(), reserve_permit()) goes back to the
    // breaker unrecorded. The run must not be stepped after it.
    void abandon() noexcept;

    const RunResult& result() const noexcept { return result_; }
    RunResult take_result() noexcept { return std::move(result_); }

    // A first attempt run before the run is begun: a driver's fast path for the run that
    // succeeds at once (the asynchronous executor's). Allowed when nothing observes the run
    // before its first attempt ends: no listener, no breaker, no clock read (no deadline, no
    // ExecutorOptions::measure_elapsed) and a stop token that cannot be stopped. The driver runs
    // the work with first_attempt() (or with none, for work that takes no AttemptInfo). On
    // success first_success() fills the run's result in (a default-constructed RunResult), and
    // records the success with the policy's budget as succeeded() does. Otherwise it begins the
    // run then and calls start_attempt(), which returns Attempt and does nothing observable, and
    // goes on with failed() or cancel(): the run is the one it would have been had it begun
    // first.
    static bool may_defer(const RetryExecutor& executor, const Policy& policy,
                          const RunOptions& options) noexcept {
        return may_defer(executor, policy) && !options.stop.stop_possible();
    }
    // The same for a run whose stop token cannot be stopped.
    static bool may_defer(const RetryExecutor& executor, const Policy& policy) noexcept {
        // One test each: breaker() == nullptr && !timed(executor, spec), with listeners.
        return !executor.observes_first_attempt_ && !policy.observes_first_attempt();
    }
    static AttemptInfo first_attempt(const Policy& policy, std::string_view handler,
                                     const RunOptions& options) noexcept;
    static void first_success(HandlerResolution&& resolution, RunResult& result) noexcept;
    // The same for a run under `policy` (not null), chosen as `via`: for a driver that has no
    // HandlerResolution to give.
    static void first_success(std::shared_ptr<const Policy> policy, ResolvedVia via,
                              RunResult& result) noexcept {
        // What start_attempt(), succeeded() and finish() leave without a breaker, clock or
        // listener.
        result.attempts = 1;
        result.via = via;
        result.policy = std::move(policy);
        result.policy->record_success();
    }

  private:
    // Whether a run reads the clock (see "Clock" in retry_executor.hpp).
    static bool timed(const RetryExecutor& executor, const PolicySpec& spec) noexcept {
        // Without a deadline nothing in the run depends on time; see "Clock" in
        // retry_executor.hpp.
        return spec.deadline.has_value() || executor.measure_elapsed_;
    }
    // Ends the run; `attempt_end`: when timed for events, the end of the attempt that ended it,
    // else null.
    void finish(RetryOutcome outcome, const Clock::TimePoint* attempt_end = nullptr) noexcept;
    // Tells the listeners how the run ended (finish(), when some listener listens).
    void tell_end(RetryOutcome outcome, const Clock::TimePoint* attempt_end) const noexcept;
    // Tells the listeners an event of this run of `kind`, which `complete(RetryEvent&)` fills in
    // beyond the run's common fields; builds nothing when none listens. Built per notification
    // rather than kept, since a RetryRun lives in every waiting asynchronous run's coroutine
    // frame (docs/async.md, Cost).
    template <typename Complete>
    void notify(void (RetryListener::*method)(const RetryEvent&) noexcept, RetryEventKind kind,
                int attempt, Complete complete) const noexcept;
    // notify() once some listener listens: out of line, so that a run without listeners keeps
    // the steps that notify small (no frame for an event it does not build).
    template <typename Complete>
    void tell(void (RetryListener::*method)(const RetryEvent&) noexcept, RetryEventKind kind,
              int attempt, Complete complete) const noexcept;
    Duration elapsed_since_start() const noexcept;
    // When timed for events (a listener wants durations): fills in RetryEvent::attempt_duration
    // of the attempt that ended at `*attempt_end` (none when null) and, for an event that ends
    // the run, RetryEvent::run_duration.
    void add_durations(RetryEvent& event, const Clock::TimePoint* attempt_end,
                       bool ends_run) const noexcept;
    void keep_permit(const BreakerPermit& permit) noexcept {
        permit_admitted_ = permit.admitted;
        permit_generation_ = permit.generation;
        permit_state_ = permit.admitted_in;
    }
    BreakerPermit permit() const noexcept {
        BreakerPermit permit;
        permit.admitted = permit_admitted_;
        permit.generation = permit_generation_;
        permit.admitted_in = permit_state_;
        return permit;
    }
    // `refused`: the breaker refused the attempt (it did not run). `attempt_end` as for
    // finish(): null for an attempt that did not run, or when no listener wants durations.
    RunStep decide_after_failure(bool refused, const Clock::TimePoint* attempt_end);
    void release_permit() noexcept;

    const RetryExecutor* executor_;
    const RunOptions* options_;
    RunResult result_;
    AttemptInfo info_;
    // The breaker's permit for the attempt in progress, kept as the fields the breaker reads
    // back (permit()): a RetryRun lives in every waiting asynchronous run's coroutine frame.
    std::uint64_t permit_generation_ = 0;
    Clock::TimePoint start_{};
    Clock::TimePoint attempt_start_{};
    bool timed_ = false;
    bool times_events_ = false;  // a listener wants durations
    bool in_attempt_ = false;
    bool idempotent_ = false;
    bool permit_admitted_ = false;
    bool permit_reserved_ = false;  // reserve_permit() admitted the next attempt
    BreakerState permit_state_ = BreakerState::Closed;
};

// Inline so that a driver building its run in place (the asynchronous executor, in its coroutine
// frame) pays no call of its own: the RetryRun returned initialises the driver's storage.
inline RetryRun RetryExecutor::begin(HandlerResolution resolution, std::string_view handler,
                                     const RunOptions& options) const noexcept {
    return RetryRun(*this, std::move(resolution), handler, options);
}

}  // namespace rebound
