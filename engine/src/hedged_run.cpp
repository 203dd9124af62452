#include "rebound/hedged_run.hpp"

#include <algorithm>

#include "rebound/decision.hpp"
#include "rebound/server_delay.hpp"

namespace rebound {
namespace {

// Two attempts never start at the same instant: the next start is one tick of Duration later.
constexpr Duration kInstant{1};

Clock::TimePoint later(Clock::TimePoint time, Duration by) noexcept {
    if (time > Clock::TimePoint::max() - by) {
        return Clock::TimePoint::max();
    }
    return time + by;
}

}  // namespace

HedgedRun::HedgedRun(const RetryExecutor& executor, HandlerResolution resolution,
                     std::string_view handler, const RunOptions& options,
                     HedgeLatencies* latencies) noexcept
    : executor_(&executor),
      options_(&options),
      latencies_(latencies != nullptr ? latencies : executor.hedge_latencies_),
      handler_(handler) {
    result_.via = resolution.via_or_builtin();
    idempotent_ = resolution.idempotent;
    result_.policy = std::move(resolution).policy_or_builtin();
    max_attempts_ = std::clamp(result_.policy->spec().max_attempts, 1, kMaxAttempts);
    report_.one_at_a_time = !idempotent_;
    times_events_ = executor.times_events_;
}

Clock::TimePoint HedgedRun::now() const noexcept {
    return executor_->clock_->now();
}

Duration HedgedRun::since_start(Clock::TimePoint now) const noexcept {
    return std::max(std::chrono::duration_cast<Duration>(now - t0_), Duration{0});
}

template <typename Complete>
void HedgedRun::notify(void (RetryListener::*method)(const RetryEvent&) noexcept,
                       RetryEventKind kind, int attempt, Complete complete) const noexcept {
    if (!executor_->listening()) {
        return;
    }
    RetryEvent event;
    event.kind = kind;
    event.handler = handler_;
    event.policy = result_.policy->name();
    event.command_id = options_->command_id;
    event.attempt = attempt;
    complete(event);
    executor_->notify(method, event);
}

AttemptInfo HedgedRun::attempt(int number) const noexcept {
    const PolicySpec& spec = result_.policy->spec();
    AttemptInfo info;
    info.attempt = number;
    if (spec.deadline && number >= 1 && number <= kMaxAttempts) {
        const Slot& slot = slots_[static_cast<std::size_t>(number) - 1];
        info.time_left = std::max(*spec.deadline - since_start(slot.start), Duration{0});
    }
    info.attempt_timeout = spec.attempt_timeout;
    info.stop = options_->stop;
    info.command_id = options_->command_id;
    info.handler = handler_;
    return info;
}

HedgedRun::Slot* HedgedRun::flying(int number) noexcept {
    if (number < 1 || number > started_) {
        return nullptr;
    }
    Slot& slot = slots_[static_cast<std::size_t>(number) - 1];
    if (slot.state == SlotState::Cancelled) {
        slot.state = SlotState::Ended;  // a cancelled attempt is over now; its outcome is ignored
    }
    return slot.state == SlotState::InFlight ? &slot : nullptr;
}

bool HedgedRun::in_flight(int number) const noexcept {
    return number >= 1 && number <= started_ &&
           slots_[static_cast<std::size_t>(number) - 1].state == SlotState::InFlight;
}

int HedgedRun::occupying() const noexcept {
    int count = 0;
    for (int i = 0; i < started_; ++i) {
        const SlotState state = slots_[static_cast<std::size_t>(i)].state;
        count += state == SlotState::InFlight || state == SlotState::Cancelled ? 1 : 0;
    }
    return count;
}

void HedgedRun::begin(Clock::TimePoint now) noexcept {
    begun_ = true;
    t0_ = now;
    const Policy& policy = *result_.policy;
    if (HedgeTokens* const tokens = policy.hedge_tokens(); tokens != nullptr) {
        tokens->run_started();
    }
    if (const std::optional<HedgeSettings>& hedge = policy.spec().hedge; hedge) {
        if (hedge->fixed_delay) {
            delay_ = hedge->fixed_delay;
        } else if (hedge->learned && latencies_ != nullptr) {
            delay_ = latencies_->hedge_delay(handler_, *hedge);
            if (delay_) {
                delay_ = std::clamp(*delay_, hedge->learned->min, hedge->learned->max);
            }
        }
    }
    if (delay_ && *delay_ <= Duration{0}) {
        delay_.reset();
    }
    report_.delay = delay_;
}

HedgeStep HedgedRun::poll() {
    const Clock::TimePoint current = now();
    if (!begun_) {
        begin(current);
        if (options_->stop.stop_requested()) {
            finish(RetryOutcome::Cancelled, current);
            return {};
        }
        return start_first(current);
    }
    if (!done_ && options_->stop.stop_requested()) {
        finish(RetryOutcome::Cancelled, current);
    }
    if (done_) {
        return cancel_step(current);
    }
    if (const std::optional<HedgeStep> step = timeout_step(current); step) {
        return *step;
    }
    if (const std::optional<HedgeStep> step = hedge_step(current); step) {
        return *step;
    }
    if (in_flight_ == 0 && !can_hedge_later()) {
        finish(end_reason(current), current);
        return cancel_step(current);
    }
    return wait_step(current);
}

HedgeStep HedgedRun::start_first(Clock::TimePoint now) {
    BreakerPermit permit;
    if (CircuitBreaker* const breaker = result_.policy->breaker(); breaker != nullptr) {
        permit = breaker->acquire(now);
        if (!permit) {
            // A refused first attempt counts as an attempt and ends the run (circuit_open).
            started_ = 1;
            result_.attempts = 1;
            slots_[0].state = SlotState::Ended;
            ErrorDescription refusal = ErrorDescription::of(ErrorCategory::CircuitOpen);
            refusal.server_delay = permit.retry_after;
            result_.last_error = Failure::returned(Error(refusal));
            finish(RetryOutcome::CircuitOpen, now);
            return {};
        }
    }
    return launch(1, now, permit);
}

HedgeStep HedgedRun::launch(int number, Clock::TimePoint now,
                            const BreakerPermit& permit) noexcept {
    Slot& slot = slots_[static_cast<std::size_t>(number) - 1];
    slot.state = SlotState::InFlight;
    slot.start = now;
    slot.permit = permit;
    started_ = number;
    result_.attempts = number;
    ++in_flight_;
    last_start_ = now;
    if (number > 1) {
        ++report_.hedges;
        consume_slot();
    }
    notify(&RetryListener::on_attempt_started, RetryEventKind::AttemptStarted, number,
           [this, number](RetryEvent& event) { event.attempt_kind = kind(number); });
    return {HedgeAction::Start, number, {}};
}

std::optional<HedgeStep> HedgedRun::timeout_step(Clock::TimePoint now) {
    const std::optional<Duration>& timeout = result_.policy->spec().attempt_timeout;
    if (!timeout) {
        return std::nullopt;
    }
    for (int number = 1; number <= started_; ++number) {
        Slot& slot = slots_[static_cast<std::size_t>(number) - 1];
        if (slot.state != SlotState::InFlight || now < later(slot.start, *timeout)) {
            continue;
        }
        if (latencies_ != nullptr) {
            latencies_->record(handler_, *timeout);
        }
        end_attempt(
            slot, SlotState::Cancelled, now,
            classify_returned(Error(ErrorCategory::StatementTimeout, "attempt_timeout passed")));
        judge(number, now);
        return HedgeStep{HedgeAction::Cancel, number, {}};
    }
    return std::nullopt;
}

void HedgedRun::end_attempt(Slot& slot, SlotState state, Clock::TimePoint now, Failure failure) {
    slot.state = state;
    --in_flight_;
    result_.last_error = std::move(failure);
    if (CircuitBreaker* const breaker = result_.policy->breaker(); breaker != nullptr) {
        breaker->record_error(slot.permit, result_.last_error.description(), now);
    }
}

std::optional<Clock::TimePoint> HedgedRun::timed_due() const noexcept {
    if (!idempotent_ || !delay_ || schedule_ended_ || started_ >= max_attempts_) {
        return std::nullopt;
    }
    const auto offset = std::chrono::duration_cast<Clock::TimePoint::duration>(
        saturating_scale(*delay_, static_cast<double>(next_slot_), kDurationInfinity));
    return later(t0_, std::chrono::duration_cast<Duration>(offset));
}

std::optional<Clock::TimePoint> HedgedRun::hedge_due(Clock::TimePoint now) const noexcept {
    std::optional<Clock::TimePoint> due = failure_due_ ? std::optional(now) : timed_due();
    if (!due || (!idempotent_ && occupying() > 0)) {
        return std::nullopt;
    }
    return std::max({*due, pushback_until_, later(last_start_, kInstant)});
}

bool HedgedRun::superseded_under_pushback(Clock::TimePoint now) const noexcept {
    const std::optional<Clock::TimePoint> next = timed_due();
    if (!next) {
        return false;
    }
    // The next hedge is due, and the one after it came due while a hint held it back: the next
    // one gives way.
    const Clock::TimePoint after = later(*next, *delay_);
    return (failure_due_ || *next <= now) && after <= now && after <= pushback_until_;
}

std::optional<HedgeStep> HedgedRun::hedge_step(Clock::TimePoint now) {
    for (;;) {
        while (superseded_under_pushback(now)) {
            suppress(HedgeSuppression::Pushback);
        }
        const std::optional<Clock::TimePoint> due = hedge_due(now);
        if (!due || *due > now) {
            return std::nullopt;
        }
        BreakerPermit permit;
        const std::optional<HedgeSuppression> refused = admit(now, permit);
        if (!refused) {
            return launch(started_ + 1, now, permit);
        }
        suppress(*refused);
        if (in_flight_ == 0) {
            // Nothing in flight and the hedge due now suppressed: no later one is waited for.
            finish(end_reason(now), now);
            return cancel_step(now);
        }
    }
}

std::optional<HedgeSuppression> HedgedRun::admit(Clock::TimePoint now,
                                                 BreakerPermit& permit) noexcept {
    const Policy& policy = *result_.policy;
    const PolicySpec& spec = policy.spec();
    if (started_ >= max_attempts_) {
        return HedgeSuppression::Attempts;
    }
    if (spec.deadline && since_start(now) >= *spec.deadline) {
        return HedgeSuppression::Deadline;
    }
    if (const RetryBudget* const budget = policy.budget(); budget != nullptr && spec.budget) {
        if (!(budget->tokens() > spec.budget->max_tokens / 2.0)) {
            return HedgeSuppression::Budget;
        }
    }
    HedgeTokens* const tokens = policy.hedge_tokens();
    if (tokens != nullptr && !tokens->try_take()) {
        return HedgeSuppression::HedgeTokens;
    }
    if (CircuitBreaker* const breaker = policy.breaker(); breaker != nullptr) {
        permit = breaker->acquire(now);
        if (!permit) {
            if (tokens != nullptr) {
                tokens->give_back();  // a suppressed hedge takes nothing
            }
            return HedgeSuppression::Breaker;
        }
    }
    return std::nullopt;
}

void HedgedRun::consume_slot() noexcept {
    ++next_slot_;
    failure_due_ = false;
}

void HedgedRun::suppress(HedgeSuppression reason) noexcept {
    ++report_.suppressed[static_cast<std::size_t>(reason)];
    if (reason == HedgeSuppression::Deadline) {
        schedule_ended_ = true;
    }
    consume_slot();
}

void HedgedRun::judge(int number, Clock::TimePoint now) {
    const Policy& policy = *result_.policy;
    const PolicySpec& spec = policy.spec();
    const ErrorDescription& error = result_.last_error.description();
    // Steps 1 to 4 only: at the last attempt, an error they let through stops with `exhausted`.
    AttemptContext context;
    context.attempt = std::max(spec.max_attempts, 1);
    context.elapsed = since_start(now);
    context.idempotent = idempotent_;
    result_.last_decision = decide(policy, error, context, *executor_->random_);
    Decision& decision = result_.last_decision;
    bool fatal = decision.reason != DecisionReason::Exhausted;
    Duration hint{0};
    if (!fatal && error.server_delay &&
        !combine_server_delay(spec.server_delay, error, hint, *executor_->random_)) {
        fatal = true;
        decision.reason = DecisionReason::ServerDelayTooLong;
    }
    if (!fatal) {
        if (RetryBudget* const budget = policy.budget(); budget != nullptr) {
            static_cast<void>(budget->record_failure_and_check());  // takes one token
        }
        if (hint > Duration{0}) {
            pushback_until_ = std::max(pushback_until_, later(now, hint));
        }
        if (spec.hedge && spec.hedge->on_failure == HedgeOnFailure::Next) {
            failure_due_ = true;
        }
    }
    if (options_->on_failure) {
        options_->on_failure(FailureEvent{handler_, number, result_.last_error, decision});
    }
    if (fatal) {
        finish(outcome_of(decision.reason), now, &slots_[static_cast<std::size_t>(number) - 1]);
    } else {
        tell_failed(number, now);
    }
}

void HedgedRun::tell_failed(int number, Clock::TimePoint now) const noexcept {
    notify(&RetryListener::on_attempt_failed, RetryEventKind::AttemptFailed, number,
           [&](RetryEvent& event) {
               event.category = result_.last_error.description().effective_category();
               event.error = &result_.last_error.description();
               event.attempt_kind = kind(number);
               add_durations(event, &slots_[static_cast<std::size_t>(number) - 1], now, false);
           });
}

void HedgedRun::add_durations(RetryEvent& event, const Slot* ended, Clock::TimePoint now,
                              bool ends_run) const noexcept {
    if (!times_events_) {
        return;
    }
    if (ended != nullptr) {
        event.attempt_duration = std::chrono::duration_cast<Duration>(now - ended->start);
    }
    if (ends_run) {
        event.run_duration = result_.elapsed;
    }
}

void HedgedRun::succeeded(int number) noexcept {
    Slot* const slot = flying(number);
    if (slot == nullptr || done_) {
        return;
    }
    const Clock::TimePoint current = now();
    const Duration took = std::chrono::duration_cast<Duration>(current - slot->start);
    slot->state = SlotState::Ended;
    --in_flight_;
    if (CircuitBreaker* const breaker = result_.policy->breaker(); breaker != nullptr) {
        breaker->record_success(slot->permit, took, current);
    }
    result_.policy->record_success();
    if (latencies_ != nullptr) {
        latencies_->record(handler_, took);
    }
    report_.winner = static_cast<std::uint16_t>(number);
    finish(RetryOutcome::Succeeded, current, slot);
}

void HedgedRun::failed(int number, Failure failure) {
    Slot* const slot = flying(number);
    if (slot == nullptr || done_) {
        return;
    }
    const Clock::TimePoint current = now();
    end_attempt(*slot, SlotState::Ended, current, std::move(failure));
    judge(number, current);
}

void HedgedRun::abandon() noexcept {
    if (!done_) {
        finish(RetryOutcome::Cancelled, now());
    }
}

bool HedgedRun::can_hedge_later() const noexcept {
    if (failure_due_) {
        return true;
    }
    const std::optional<Clock::TimePoint> next = timed_due();
    if (!next) {
        return false;
    }
    const std::optional<Duration>& deadline = result_.policy->spec().deadline;
    return !deadline || since_start(*next) < *deadline;
}

RetryOutcome HedgedRun::end_reason(Clock::TimePoint now) const noexcept {
    const HedgeReport& report = report_;
    if (started_ >= max_attempts_) {
        return RetryOutcome::Exhausted;
    }
    if (const std::optional<Duration>& deadline = result_.policy->spec().deadline; deadline) {
        const std::optional<Clock::TimePoint> next = timed_due();
        if (since_start(now) >= *deadline || report.suppressed_by(HedgeSuppression::Deadline) > 0 ||
            (next && since_start(*next) >= *deadline)) {
            return RetryOutcome::Deadline;
        }
    }
    if (report.suppressed_by(HedgeSuppression::Budget) > 0 ||
        report.suppressed_by(HedgeSuppression::HedgeTokens) > 0 ||
        report.suppressed_by(HedgeSuppression::Breaker) > 0) {
        return RetryOutcome::Throttled;
    }
    return RetryOutcome::Exhausted;
}

HedgeStep HedgedRun::cancel_step(Clock::TimePoint now) noexcept {
    for (int number = 1; number <= started_; ++number) {
        Slot& slot = slots_[static_cast<std::size_t>(number) - 1];
        if (slot.state != SlotState::InFlight) {
            continue;
        }
        slot.state = SlotState::Ended;
        --in_flight_;
        if (CircuitBreaker* const breaker = result_.policy->breaker(); breaker != nullptr) {
            breaker->release(slot.permit, now);  // its outcome is ignored
        }
        return {HedgeAction::Cancel, number, {}};
    }
    return {};
}

HedgeStep HedgedRun::wait_step(Clock::TimePoint now) const noexcept {
    Clock::TimePoint until = hedge_due(now).value_or(Clock::TimePoint::max());
    if (const std::optional<Duration>& timeout = result_.policy->spec().attempt_timeout; timeout) {
        for (int number = 1; number <= started_; ++number) {
            const Slot& slot = slots_[static_cast<std::size_t>(number) - 1];
            if (slot.state == SlotState::InFlight) {
                until = std::min(until, later(slot.start, *timeout));
            }
        }
    }
    return {HedgeAction::Wait, 0, until};
}

void HedgedRun::finish(RetryOutcome outcome, Clock::TimePoint now, const Slot* ended) noexcept {
    done_ = true;
    // Every attempt still in flight is cancelled by the Cancel steps that follow.
    report_.abandoned = static_cast<std::uint16_t>(in_flight_);
    result_.outcome = outcome;
    result_.elapsed = begun_ ? since_start(now) : Duration{0};  // 0: abandoned before t0
    const bool succeeded = outcome == RetryOutcome::Succeeded;
    const int winner = report_.winner;
    notify(succeeded ? &RetryListener::on_succeeded : &RetryListener::on_stopped,
           succeeded ? RetryEventKind::Succeeded : RetryEventKind::Stopped, started_,
           [&](RetryEvent& event) {
               event.outcome = outcome;
               if (result_.last_error) {
                   event.error = &result_.last_error.description();
                   event.category = result_.last_error.description().effective_category();
               }
               event.attempt_kind = succeeded ? kind(winner) : AttemptKind::First;
               event.hedge = &report_;
               add_durations(event, ended, now, true);
           });
}

Failure HedgedRun::classify_current() const noexcept {
    const std::type_info* unmatched = nullptr;
    return executor_->classify_current(&unmatched);
}

Failure HedgedRun::classify_returned(Error error) const noexcept {
    return executor_->classify_returned(std::move(error));
}

}  // namespace rebound
