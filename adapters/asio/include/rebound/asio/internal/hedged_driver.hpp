// The hedged run of the asynchronous executor (docs/hedging.md): what RetryExecutor::run
// does with a policy that has `hedge`. Internal, not part of the API (docs/public-api.md).
//
// The run's state is one object shared by the driver and every attempt (HedgedState): the
// options, the work, the engine's HedgedRun and one cancellation signal and stop source per
// attempt. The driver is a coroutine on a strand of the caller's executor that steps the
// HedgedRun: each attempt is the work launched with asio::co_spawn on the same strand, with its
// own cancellation slot and stop token, and reports its outcome to the HedgedRun itself; between
// steps the driver waits on one timer, which an attempt's outcome cancels to wake it (in virtual
// time, a VirtualTime timer does). The first success completes the run at once: the other
// attempts get terminal cancellation and a stop request and are not awaited. Each holds the
// shared state until it ends, so that a loser that ignores cancellation finds everything it
// refers to alive; its outcome is then ignored, touching nothing but its own slot.
#pragma once

// A standard header before Asio's (see retry_executor.hpp).
#include <cstdlib>

#include <array>
#include <asio/any_io_executor.hpp>
#include <asio/associated_cancellation_slot.hpp>
#include <asio/associated_executor.hpp>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/bind_executor.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <stop_token>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include "rebound/asio/internal/run_steps.hpp"
#include "rebound/asio/internal/work.hpp"
#include "rebound/asio/result.hpp"
#include "rebound/asio/virtual_time.hpp"
#include "rebound/hedged_run.hpp"
#include "rebound/retry_executor.hpp"

namespace rebound::asio::detail {

// One hedged run's state, shared by its driver and its attempts.
template <typename T, typename Work>
class HedgedState {
  public:
    HedgedState(const rebound::RetryExecutor& engine, VirtualTime* virtual_time,
                HandlerResolution&& resolution, std::string_view handler, RunOptions&& options,
                Work&& work, ::asio::strand<::asio::any_io_executor> strand)
        : options_(std::move(options)),
          work_(std::move(work)),
          run_(engine, std::move(resolution), handler, options_),
          virtual_time_(virtual_time),
          strand_(std::move(strand)),
          wake_(strand_) {}
    HedgedState(const HedgedState&) = delete;
    HedgedState& operator=(const HedgedState&) = delete;
    HedgedState(HedgedState&&) = delete;
    HedgedState& operator=(HedgedState&&) = delete;
    ~HedgedState() = default;

    HedgedRun& run() noexcept { return run_; }
    const RunOptions& options() const noexcept { return options_; }
    const ::asio::strand<::asio::any_io_executor>& strand() const noexcept { return strand_; }

    // Launches attempt `number` on the strand, with its own cancellation and stop token.
    static void launch(const std::shared_ptr<HedgedState>& state, int number) {
        Attempt& attempt = state->attempt(number);
        ::asio::co_spawn(state->strand_, run_attempt(state, number),
                         ::asio::bind_cancellation_slot(attempt.signal.slot(), ::asio::detached));
    }

    // Cancels attempt `number`; it is not awaited.
    void cancel(int number) {
        Attempt& attempt = this->attempt(number);
        attempt.stop.request_stop();
        attempt.signal.emit(::asio::cancellation_type::terminal);
    }

    // Waits until `until` or until an attempt's outcome (or a stop) wakes the driver.
    static ::asio::awaitable<void> wait(std::shared_ptr<HedgedState> state,
                                        Clock::TimePoint until) {
        std::uint64_t timer = 0;
        if (state->virtual_time_ != nullptr) {
            state->wake_.expires_at(::asio::steady_timer::time_point::max());
            if (until != Clock::TimePoint::max()) {
                timer = state->virtual_time_->at(until, waker(state));
            }
        } else if (until == Clock::TimePoint::max()) {
            state->wake_.expires_at(::asio::steady_timer::time_point::max());
        } else {
            state->wake_.expires_after(until - state->run_.now());
        }
        try {
            co_await state->wake_.async_wait(::asio::use_awaitable);
        } catch (const std::system_error&) {
            // Woken (cancelled) by an attempt's outcome, a stop or the run's cancellation.
        }
        if (timer != 0) {
            state->virtual_time_->cancel(timer);
        }
    }

    // Wakes the driver from any thread (a stop callback, a VirtualTime timer).
    static auto waker(const std::shared_ptr<HedgedState>& state) {
        return [weak = std::weak_ptr<HedgedState>(state)] {
            if (std::shared_ptr<HedgedState> locked = weak.lock(); locked != nullptr) {
                ::asio::post(locked->strand_, [locked] { locked->wake_.cancel(); });
            }
        };
    }

    // Stores the exception on_failure threw and ends the run as cancelled.
    void abort_with_current() noexcept {
        error_ = std::current_exception();
        run_.abandon();
    }
    const std::exception_ptr& error() const noexcept { return error_; }

    // The run's result, once it is Done.
    HedgedResult<T> take_result() {
        HedgedResult<T> result;
        static_cast<RunResult&>(result) = run_.take_result();
        result.hedge = run_.report();
        if constexpr (!std::is_void_v<T>) {
            if (result.succeeded() && value_.has_value()) {
                result.value.emplace(std::move(*value_));
            }
        }
        return result;
    }

  private:
    struct Attempt {
        ::asio::cancellation_signal signal;
        std::stop_source stop;
    };

    Attempt& attempt(int number) noexcept {
        return attempts_[static_cast<std::size_t>(number) - 1];
    }

    // One attempt: runs the work, then reports its outcome to the run (ignored unless the
    // attempt is still in flight) and wakes the driver.
    static ::asio::awaitable<void> run_attempt(std::shared_ptr<HedgedState> state, int number) {
        AttemptValue<T> value;
        std::optional<Failure> failure;
        try {
            AttemptInfo info = state->run_.attempt(number);
            info.stop = state->attempt(number).stop.get_token();
            if constexpr (std::is_void_v<T>) {
                co_await start_work(state->work_, &info);
                value.emplace();
            } else {
                value.emplace(co_await start_work(state->work_, &info));
            }
        } catch (...) {
            if (state->run_.in_flight(number)) {
                failure.emplace(state->run_.classify_current());
            }
        }
        state->report(number, std::move(value), std::move(failure));
    }

    void report(int number, AttemptValue<T>&& value, std::optional<Failure>&& failure) {
        if (!run_.in_flight(number)) {
            run_.ignore_end(number);  // a loser, or an attempt cut short by attempt_timeout
            wake_.cancel();
            return;
        }
        if constexpr (std::is_same_v<T, std::optional<Error>>) {
            if (!failure && value && *value) {
                failure.emplace(run_.classify_returned(std::move(**value)));
            }
        }
        try {
            if (failure) {
                run_.failed(number, std::move(*failure));
            } else {
                if (value) {
                    value_.emplace(std::move(*value));
                }
                run_.succeeded(number);
            }
        } catch (...) {
            abort_with_current();
        }
        wake_.cancel();
    }

    RunOptions options_;  // run_ refers to it
    Work work_;
    HedgedRun run_;
    VirtualTime* virtual_time_;
    ::asio::strand<::asio::any_io_executor> strand_;
    ::asio::steady_timer wake_;
    std::array<Attempt, HedgedRun::kMaxAttempts> attempts_{};
    AttemptValue<T> value_;  // the winner's
    std::exception_ptr error_;
};

// Whether the asynchronous cancellation of the driver's coroutine was requested.
inline ::asio::awaitable<bool> driver_cancelled() {
    const ::asio::cancellation_state state = co_await ::asio::this_coro::cancellation_state;
    co_return state.cancelled() != ::asio::cancellation_type::none;
}

// The driver, on the state's strand: the loop over HedgedRun's steps.
template <typename T, typename Work>
::asio::awaitable<HedgedResult<T>> hedged_loop(std::shared_ptr<HedgedState<T, Work>> state) {
    using State = HedgedState<T, Work>;
    HedgedRun& run = state->run();
    using Waker = decltype(State::waker(state));
    std::optional<std::stop_callback<Waker>> on_stop;
    if (state->options().stop.stop_possible()) {
        on_stop.emplace(state->options().stop, State::waker(state));
    }
    for (;;) {
        HedgeStep step;
        try {
            step = run.poll();
        } catch (...) {
            state->abort_with_current();
            continue;
        }
        if (step.action == HedgeAction::Done) {
            break;
        }
        if (step.action == HedgeAction::Start) {
            State::launch(state, step.attempt);
        } else if (step.action == HedgeAction::Cancel) {
            state->cancel(step.attempt);
        } else {
            co_await State::wait(state, step.until);
            if (co_await driver_cancelled()) {
                run.abandon();
            }
        }
    }
    if (state->error()) {
        std::rethrow_exception(state->error());
    }
    co_return state->take_result();
}

// A hedged run: its state on a new strand of the caller's executor, and the driver there. `R` is
// HedgedResult<T>, or Result<T> for RetryExecutor::run().
template <typename T, typename Work, typename R>
::asio::awaitable<R> run_hedged(const rebound::RetryExecutor& engine, VirtualTime* virtual_time,
                                HandlerResolution resolution, std::string_view handler,
                                RunOptions options, Work work) {
    if (!resolution.policy_or_builtin()->spec().hedge) {
        throw std::invalid_argument("run_hedged: policy '" +
                                    resolution.policy_or_builtin()->name() + "' has no hedge");
    }
    auto strand = ::asio::make_strand(co_await ::asio::this_coro::executor);
    auto state =
        std::make_shared<HedgedState<T, Work>>(engine, virtual_time, std::move(resolution), handler,
                                               std::move(options), std::move(work), strand);
    HedgedResult<T> result = co_await ::asio::co_spawn(
        strand, hedged_loop<T, Work>(std::move(state)), ::asio::use_awaitable);
    if constexpr (std::is_same_v<R, HedgedResult<T>>) {
        co_return result;
    } else {
        co_return R(std::move(static_cast<Result<T>&>(result)));
    }
}

// A hedging policy's run by reference (RetryExecutor::run(const Policy&, ...)): the policy,
// not owned, for a handler whose idempotence is the default (false).
inline HandlerResolution code_resolution(const Policy& policy) noexcept {
    HandlerResolution resolution;
    resolution.policy = std::shared_ptr<const Policy>(std::shared_ptr<const Policy>(), &policy);
    resolution.via = ResolvedVia::Code;
    return resolution;
}

// The hedged run of RetryExecutor::run(const Policy&, work, result, token): fills `into`.
template <typename T>
::asio::awaitable<void> fill_hedged(Result<T>& into, ::asio::awaitable<Result<T>> run) {
    Result<T> result = co_await std::move(run);
    static_cast<RunResult&>(into) = std::move(static_cast<RunResult&>(result));
    if constexpr (!std::is_void_v<T>) {
        if (result.value) {
            into.value.emplace(std::move(*result.value));
        }
    }
}

// The hedged run of RetryExecutor::run_value().
template <typename T>
::asio::awaitable<T> value_of_hedged(::asio::awaitable<Result<T>> run) {
    co_return value_or_throw(co_await std::move(run));
}

// Spawns a hedged run completing with R (Result<T> or HedgedResult<T>) for a completion handler
// of RetryExecutor's.
template <typename T, typename R, typename Work, typename Handler>
void spawn_hedged(const rebound::RetryExecutor& engine, VirtualTime* virtual_time, Handler handler,
                  HandlerResolution resolution, std::string_view name, RunOptions options,
                  Work work) {
    const ::asio::any_io_executor executor(::asio::get_associated_executor(handler));
    const auto slot = ::asio::get_associated_cancellation_slot(handler);
    ::asio::co_spawn(
        executor,
        run_hedged<T, Work, R>(engine, virtual_time, std::move(resolution), name,
                               std::move(options), std::move(work)),
        ::asio::bind_cancellation_slot(
            slot, ::asio::bind_executor(executor, [handler = std::move(handler)](
                                                      std::exception_ptr error, R result) mutable {
                std::move(handler)(std::move(error), std::move(result));
            })));
}

// The same for a run by reference filling the caller's Result<T> in place.
template <typename T, typename Work, typename Handler>
void spawn_hedged_into(const rebound::RetryExecutor& engine, VirtualTime* virtual_time,
                       Handler handler, const Policy& policy, Work work, Result<T>* into) {
    const ::asio::any_io_executor executor(::asio::get_associated_executor(handler));
    const auto slot = ::asio::get_associated_cancellation_slot(handler);
    ::asio::co_spawn(
        executor,
        fill_hedged<T>(
            *into, run_hedged<T, Work, Result<T>>(engine, virtual_time, code_resolution(policy), {},
                                                  {}, std::move(work))),
        ::asio::bind_cancellation_slot(
            slot, ::asio::bind_executor(
                      executor, [handler = std::move(handler)](std::exception_ptr error) mutable {
                          std::move(handler)(std::move(error));
                      })));
}

}  // namespace rebound::asio::detail
