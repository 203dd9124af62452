// One run of the asynchronous executor (retry_executor.hpp) as one coroutine: the loop over the
// steps of its RetryRun, with the timer of its waits. Internal, not part of the API
// (docs/public-api.md).
#pragma once

// A standard header before Asio's (see retry_executor.hpp).
#include <cstdlib>

#include <asio/awaitable.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <cstddef>
#include <system_error>
#include <type_traits>

#include "rebound/asio/internal/run_canceller.hpp"
#include "rebound/asio/internal/run_steps.hpp"
#include "rebound/asio/internal/work.hpp"
#include "rebound/asio/virtual_time.hpp"
#include "rebound/duration.hpp"
#include "rebound/retry_run.hpp"

namespace rebound::asio::detail {

// The timer of a run's waits, owned, made on its first wait (make_timer()). A run that never
// waits only tests it for null when it ends: the timer's destruction is out of line.
class RunTimer {
  public:
    RunTimer() noexcept = default;
    RunTimer(const RunTimer&) = delete;
    RunTimer& operator=(const RunTimer&) = delete;
    RunTimer(RunTimer&&) = delete;
    RunTimer& operator=(RunTimer&&) = delete;
    ~RunTimer() {
        if (timer_ != nullptr) {
            destroy(timer_);
        }
    }
    ::asio::steady_timer* get() const noexcept { return timer_; }

  private:
    friend ::asio::awaitable<void> make_timer(RunTimer& timer);
    static void destroy(::asio::steady_timer* timer) noexcept;

    ::asio::steady_timer* timer_ = nullptr;
};

// Makes `timer` on the coroutine's executor: on a run's first wait, in a short coroutine of its
// own, so that the run's frame does not keep the executor it is made from.
::asio::awaitable<void> make_timer(RunTimer& timer);

// Whether the coroutine's cancellation state is cancelled: after a wait that was not cancelled,
// for a cancellation during a wait in virtual time, which a post does not see. A short coroutine
// of its own, so that the run's frame does not keep the state.
::asio::awaitable<bool> cancellation_requested();

// Starts a wait of `delay` on `timer`, or in virtual time (a post) when `virtual_time` is set.
// Not a coroutine: the run awaits the timer itself, so that a waiting run holds its timer and the
// wait's operation but no frame of a coroutine of its own. The awaitable throws operation_aborted
// when the wait is cancelled (or when the coroutine's cancellation state was cancelled before it
// began).
::asio::awaitable<void> start_wait(Duration delay, VirtualTime* virtual_time,
                                   ::asio::steady_timer* timer);

// Ends the canceller's part when the run's coroutine ends, however it ends (on its strand);
// nothing for a run that has none (std::nullptr_t).
template <typename Canceller>
class FinishCanceller {
  public:
    explicit FinishCanceller(RunCanceller* canceller) noexcept : canceller_(canceller) {}
    FinishCanceller(const FinishCanceller&) = delete;
    FinishCanceller& operator=(const FinishCanceller&) = delete;
    FinishCanceller(FinishCanceller&&) = delete;
    FinishCanceller& operator=(FinishCanceller&&) = delete;
    ~FinishCanceller() {
        if (canceller_ != nullptr) {
            canceller_->finish();
        }
    }

  private:
    RunCanceller* canceller_;
};
template <>
class FinishCanceller<std::nullptr_t> {
  public:
    explicit FinishCanceller(std::nullptr_t) noexcept {}
};

// GCC 12 inlines Asio's frame allocation (std::aligned_alloc, behind the frame's class-specific
// operator new) into some instantiations and then takes the frame's class-specific operator
// delete, which frees it correctly through the same recycling allocator, for a mismatched
// deallocation (-Wmismatched-new-delete; seen for the run of rebound::curl::AsyncHttpClient::call).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

// One run as one coroutine: the loop of RetryRun's steps. `canceller` is a RunCanceller* when
// the run needs one, and then the coroutine runs on its strand with its slot bound; a run
// without one passes nullptr, whose type leaves the canceller's steps out of the coroutine. Kept
// small: Asio recycles a coroutine frame of at most 1020 bytes (else it is allocated and freed
// per run), and a waiting run holds this frame.
template <typename T, typename Work, typename State, typename Canceller,
          typename Into = ReturnsResult>
::asio::awaitable<RunValue<T, Into>> run_loop(VirtualTime* virtual_time, State state, Work work,
                                              Canceller canceller, Into into = {}) {
    constexpr bool kCancellable = !std::is_null_pointer_v<Canceller>;
    const FinishCanceller<Canceller> finish(canceller);
    AttemptValue<T> value;
    RunTimer timer;  // made on the first wait
    RunStep step = state.start(canceller, kUsesAttemptInfo<Work>);
    while (step != RunStep::Done) {
        if (step == RunStep::Wait) {
            bool cancelled = false;
            try {
                if (virtual_time == nullptr && timer.get() == nullptr) {
                    co_await make_timer(timer);
                }
                co_await start_wait(state.run().delay(), virtual_time, timer.get());
            } catch (const std::system_error&) {
                cancelled = true;  // a wait's only error is its cancellation
            }
            if constexpr (kCancellable) {
                cancelled = canceller->stopped();
            } else if (!cancelled) {
                cancelled = co_await cancellation_requested();
            }
            step = cancelled ? state.run().cancel() : state.run().waited();
            continue;
        }
        if constexpr (kCancellable) {
            canceller->arm(state.attempt().attempt_timeout);
        }
        // Completed unless the canceller interrupted the attempt. A run without one passes the
        // constant on, which the compiler folds: `end`, like every local that lives across the
        // co_await, is a field of the frame, which it would otherwise load and test.
        AttemptEnd end = AttemptEnd::Completed;
        bool threw = false;
        try {
            const AttemptInfo* const info = kUsesAttemptInfo<Work> ? &state.attempt() : nullptr;
            if constexpr (std::is_void_v<T>) {
                co_await start_work(work, info);
                value.emplace();
            } else {
                value.emplace(co_await start_work(work, info));
            }
        } catch (...) {
            threw = true;
            if constexpr (kCancellable) {
                end = canceller->disarm();
            }
            step = after_thrown(state.attempted_run(), kCancellable ? end : AttemptEnd::Completed);
        }
        if (!threw) {
            if constexpr (kCancellable) {
                end = canceller->disarm();
            }
            step = after_returned<T>(state, kCancellable ? end : AttemptEnd::Completed, value);
        }
        if (kCancellable && end == AttemptEnd::TimedOut) {
            // The timeout cancelled this coroutine's state; the next attempt starts afresh.
            co_await ::asio::this_coro::reset_cancellation_state();
        }
    }
    co_return finish_run<T>(state, value, into);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace rebound::asio::detail
