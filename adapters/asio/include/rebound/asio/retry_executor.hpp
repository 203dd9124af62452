// The asynchronous executor: runs an asynchronous operation under a policy on an Asio executor
// (docs/async.md; the contract is docs/semantics.md, The asynchronous executor).
//
//   rebound::asio::RetryExecutor executor({.listeners = {&metrics}, .resolver = resolver});
//   rebound::asio::Result<Reply> r = co_await executor.run("FetchQuote",
//       [&](const rebound::AttemptInfo&) -> asio::awaitable<Reply> { co_return co_await fetch(); },
//       asio::use_awaitable, {.stop = stop_token});
//   if (r.succeeded()) use(*r.value);
//
// The work takes one of two forms; every attempt calls it again:
// - a coroutine: invocable with `const rebound::AttemptInfo&` (or with nothing), returning an
//   `asio::awaitable<T>`;
// - an initiating function: invocable with `const rebound::AttemptInfo&` and a completion token,
//   or with the token alone, and starting an asynchronous operation with it, e.g.
//   `[&](auto token) { return socket.async_read_some(buffer, token); }`. It is called with
//   asio::use_awaitable: an operation completing with (error_code, T) gives T, one completing with
//   (error_code) gives void, and an error code fails the attempt.
// T may be move-only and need not be default-constructible. An attempt fails when it throws: a
// std::system_error (asio::system_error) is described by its error code (error_code.hpp), other
// exceptions as by the blocking executor; a T of std::optional<rebound::Error> that holds an
// error fails the attempt too.
//
// The run is itself an asynchronous operation with the completion signature
// `void(std::exception_ptr, Result<T>)`: it takes any completion token (asio::use_awaitable,
// asio::experimental::deferred, a callback). The exception is null unless RunOptions::on_failure
// threw, which aborts the run as in the blocking executor. The run's executor is the completion
// handler's associated executor (bind one to a plain callback with asio::bind_executor).
//
// The run is one coroutine, a loop over the steps of the blocking executor's RetryRun
// (retry_run.hpp, so decisions, breaker permits, budget, listeners and metrics are the same):
// start attempt -> await the work -> record the outcome and decide -> wait on a timer | done. No
// thread sleeps, and nothing recurses from one attempt to the next. With asio::use_awaitable (and
// neither a stop token nor an attempt_timeout) the caller awaits that coroutine directly: nothing
// is posted or spawned, and the run allocates only its coroutine frame, which Asio recycles, and
// a timer once it waits. A run that nothing observes before its first attempt ends (no listener,
// breaker, deadline, measure_elapsed, stop token or attempt_timeout) runs that attempt before it
// builds its RetryRun, and one that succeeds at once never builds it (RetryRun::may_defer()).
// With any other token the coroutine is spawned (asio::co_spawn) on the handler's executor,
// which never completes the run inside the initiating function.
//
// The cheapest runs take the policy by reference, with no RunOptions, and either give only the
// value, throwing the last attempt's error as a hand-written loop would (run_value()), or fill
// the caller's Result in place (docs/async.md, Cost):
//
//   Reply reply = co_await executor.run_value(*policy, fetch_reply);
//
//   rebound::asio::Result<Reply> r;  // default-constructed; kept until the run completes
//   co_await executor.run(*policy, fetch_reply, r, asio::use_awaitable);
//
// Such a run counts no reference on the policy and moves no options or resolution; its
// RunResult::policy points to the caller's policy without owning it.
//
// Cancellation: terminal per-operation cancellation of the run (the completion handler's
// cancellation slot; with use_awaitable, the awaiting coroutine's) and RunOptions::stop both end
// the run with outcome cancelled and the last error kept: a wait's timer is cancelled; an attempt
// in progress receives terminal cancellation, and the run ends when the attempt does (at once for
// an Asio operation; work that ignores cancellation keeps the run waiting for it), whatever the
// attempt returned. An attempt that ends with operation_aborted on its own also ends the run as
// cancelled. A stop token or an attempt_timeout puts the run on a strand of its executor, with a
// RunCanceller (internal/run_canceller.hpp) that emits the cancellation there.
//
// attempt_timeout: an attempt still running when the policy's attempt_timeout passes receives
// terminal cancellation and fails with statement_timeout for the decision, whatever it returned.
//
// Lifetimes: the executor, and the views in RunOptions (command_id, on_failure's callable) and
// the handler name, must outlive the run, and so must a policy passed by reference and a Result
// passed to be filled in place. The run holds the work (moved in) until it completes.
#pragma once

// A standard header before Asio's: Asio chooses how it allocates coroutine frames
// (std::aligned_alloc or operator new) by a macro of libstdc++'s configuration, and a frame the
// library allocates may be freed in the caller's translation unit, which has seen the standard
// library first as nearly every one does.
#include <cstdlib>

#include <asio/any_io_executor.hpp>
#include <asio/associated_cancellation_slot.hpp>
#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/awaitable.hpp>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/bind_executor.hpp>
#include <asio/cancellation_state.hpp>
#include <asio/cancellation_type.hpp>
#include <asio/co_spawn.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <stop_token>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>

#include "rebound/asio/error_code.hpp"
#include "rebound/asio/internal/hedged_driver.hpp"
#include "rebound/asio/internal/run_canceller.hpp"
#include "rebound/asio/internal/run_loop.hpp"
#include "rebound/asio/internal/run_state.hpp"
#include "rebound/asio/internal/work.hpp"
#include "rebound/asio/result.hpp"
#include "rebound/asio/virtual_time.hpp"
#include "rebound/retry_executor.hpp"

namespace rebound::asio {

// Describes a thrown std::system_error by its code (error_code.hpp), after the caller's
// classifier, which is asked first; a code describe() does not know is left to the
// ExceptionClassifier, as in the blocking executor.
class ErrorCodeClassifier final : public FailureClassifier {
  public:
    explicit ErrorCodeClassifier(const FailureClassifier* next) noexcept : next_(next) {}
    std::optional<ErrorDescription> classify_exception(
        const std::exception_ptr& exception) const noexcept override;
    ErrorDescription refine(const ErrorDescription& description) const noexcept override;

  private:
    const FailureClassifier* next_;
};
class RetryExecutor {
  public:
    // As for rebound::RetryExecutor; the sleeper is not used (waits are timers, or
    // `virtual_time` when given: see virtual_time.hpp). The options' classifier is asked before
    // the error-code classification.
    explicit RetryExecutor(ExecutorOptions options = {}, VirtualTime* virtual_time = nullptr);

    // Refers to itself (its classifier): neither copied nor moved.
    RetryExecutor(const RetryExecutor&) = delete;
    RetryExecutor& operator=(const RetryExecutor&) = delete;
    RetryExecutor(RetryExecutor&&) = delete;
    RetryExecutor& operator=(RetryExecutor&&) = delete;
    ~RetryExecutor() = default;

    // Runs `work` under the policy the resolver gives `handler`.
    template <typename Work, typename CompletionToken>
    auto run(std::string_view handler, Work&& work, CompletionToken&& token,
             RunOptions options = {}) const {
        return launch(engine_.resolve(handler), handler, std::move(options),
                      std::forward<Work>(work), std::forward<CompletionToken>(token));
    }

    // Runs `work` under `policy` (a null policy means the built-in one).
    template <typename Work, typename CompletionToken>
    auto run(std::shared_ptr<const Policy> policy, Work&& work, CompletionToken&& token,
             RunOptions options = {}) const {
        HandlerResolution resolution;
        resolution.policy = std::move(policy);
        resolution.via = ResolvedVia::Code;
        return launch(std::move(resolution), std::string_view{}, std::move(options),
                      std::forward<Work>(work), std::forward<CompletionToken>(token));
    }

    // Runs `work` under `policy`, which the caller keeps alive until the run completes (as it
    // does the executor), with no RunOptions. The run counts no reference on the policy, and
    // moves and destroys no resolution or options: the cheapest run (docs/async.md, Cost). The
    // result's `policy` points to `policy` without owning it (an aliasing std::shared_ptr with no
    // owner, use_count() 0): it is valid only while `policy` is; copy the caller's own
    // std::shared_ptr to keep the policy longer. Always inline, as a call of its own costs such a
    // run more (docs/async.md, Cost).
    template <typename Work, typename CompletionToken>
    [[gnu::always_inline]] auto run(const Policy& policy, Work&& work,
                                    CompletionToken&& token) const {
        using T = detail::WorkValue<Work>;
        using StoredWork = std::decay_t<Work>;
        if constexpr (std::is_same_v<std::decay_t<CompletionToken>, detail::AttemptToken>) {
            if (detail::hedges(policy)) {
                return detail::run_hedged<T, StoredWork, Result<T>>(
                    engine_, virtual_time_, detail::code_resolution(policy), {}, {},
                    StoredWork(std::forward<Work>(work)));
            }
            if (!detail::needs_canceller(policy)) {
                return detail::run_loop<T, StoredWork>(virtual_time_, PolicyState(engine_, policy),
                                                       StoredWork(std::forward<Work>(work)),
                                                       nullptr);
            }
        }
        return ::asio::async_initiate<CompletionToken, void(std::exception_ptr, Result<T>)>(
            [this, &policy](auto completion, PolicyState moved_state, StoredWork moved_work) {
                if (detail::hedges(policy)) {
                    detail::spawn_hedged<T, Result<T>>(
                        engine_, virtual_time_, std::move(completion),
                        detail::code_resolution(policy), {}, {}, std::move(moved_work));
                    return;
                }
                spawn<T>(std::move(completion), std::move(moved_state), std::move(moved_work));
            },
            token, PolicyState(engine_, policy), StoredWork(std::forward<Work>(work)));
    }

    // The same, filling the run's result in place into `result`, which must be a
    // default-constructed Result<T> (T the work's value) that the caller keeps until the run
    // completes; the run then completes with `void(std::exception_ptr)` (a null exception for a
    // run cancelled before it started, as for the other entries). Spares moving the result out
    // of the run's coroutine and destroying it there: the cheapest run (docs/async.md, Cost).
    template <typename Work, typename T, typename CompletionToken>
    [[gnu::always_inline]] auto run(const Policy& policy, Work&& work, Result<T>& result,
                                    CompletionToken&& token) const {
        static_assert(std::is_same_v<T, detail::WorkValue<Work>>,
                      "result must be a Result of the work's value");
        using StoredWork = std::decay_t<Work>;
        if constexpr (std::is_same_v<std::decay_t<CompletionToken>, detail::AttemptToken>) {
            if (detail::hedges(policy)) {
                return detail::fill_hedged<T>(
                    result, detail::run_hedged<T, StoredWork, Result<T>>(
                                engine_, virtual_time_, detail::code_resolution(policy), {}, {},
                                StoredWork(std::forward<Work>(work))));
            }
            if (!detail::needs_canceller(policy)) {
                return detail::run_loop<T, StoredWork>(virtual_time_, PolicyState(engine_, policy),
                                                       StoredWork(std::forward<Work>(work)),
                                                       nullptr, &result);
            }
        }
        return ::asio::async_initiate<CompletionToken, void(std::exception_ptr)>(
            [this, &result, &policy](auto completion, PolicyState moved_state,
                                     StoredWork moved_work) {
                if (detail::hedges(policy)) {
                    detail::spawn_hedged_into<T>(engine_, virtual_time_, std::move(completion),
                                                 policy, std::move(moved_work), &result);
                    return;
                }
                spawn<T>(std::move(completion), std::move(moved_state), std::move(moved_work),
                         &result);
            },
            token, PolicyState(engine_, policy), StoredWork(std::forward<Work>(work)));
    }

    // Runs `work` under `policy`, which the caller keeps alive until the run completes, and gives
    // the successful attempt's value, as a hand-written loop would:
    //
    //   Reply reply = co_await executor.run_value(*policy, fetch_reply);
    //
    // A run that does not succeed throws: a cancelled one asio::system_error(operation_aborted),
    // any other the last attempt's error (Failure::rethrow()): the exception the work threw, or
    // the rebound::Error it returned, or a rebound::Error of category circuit_open for an
    // attempt its breaker refused. The outcome is not given (the other forms' Result has it).
    // The run is the same as run(policy, work, token)'s (decisions, listeners, metrics, budget,
    // cancellation, attempt_timeout); only what it completes with differs. The cheapest run
    // (docs/async.md, Cost).
    template <typename Work>
    ::asio::awaitable<detail::WorkValue<Work>> run_value(const Policy& policy, Work&& work) const {
        using T = detail::WorkValue<Work>;
        using StoredWork = std::decay_t<Work>;
        if (detail::hedges(policy)) {
            return detail::value_of_hedged<T>(detail::run_hedged<T, StoredWork, Result<T>>(
                engine_, virtual_time_, detail::code_resolution(policy), {}, {},
                StoredWork(std::forward<Work>(work))));
        }
        if (!detail::needs_canceller(policy)) {
            return detail::run_loop<T, StoredWork>(virtual_time_, PolicyState(engine_, policy),
                                                   StoredWork(std::forward<Work>(work)), nullptr,
                                                   detail::ReturnsValue{});
        }
        // A canceller's strand: the run in place through run()'s spawn, then its value.
        return value_of_spawned_run<T>(policy, StoredWork(std::forward<Work>(work)));
    }

    // Runs `work` under an already resolved policy.
    template <typename Work, typename CompletionToken>
    auto run(HandlerResolution resolution, std::string_view handler, Work&& work,
             CompletionToken&& token, RunOptions options = {}) const {
        return launch(std::move(resolution), handler, std::move(options), std::forward<Work>(work),
                      std::forward<CompletionToken>(token));
    }

    // Runs `work` as a hedged run (docs/hedging.md) and completes with
    // `void(std::exception_ptr, HedgedResult<T>)`: the run's Result and what the hedged run adds
    // (hedges, winner, abandoned, suppressed by reason). run() runs a policy with `hedge` the same
    // way and completes with the Result alone. The resolution's policy must have `hedge`;
    // otherwise the completion's exception is std::invalid_argument.
    template <typename Work, typename CompletionToken>
    auto run_hedged(HandlerResolution resolution, std::string_view handler, Work&& work,
                    CompletionToken&& token, RunOptions options = {}) const {
        using T = detail::WorkValue<Work>;
        using StoredWork = std::decay_t<Work>;
        if constexpr (std::is_same_v<std::decay_t<CompletionToken>, detail::AttemptToken>) {
            return detail::run_hedged<T, StoredWork, HedgedResult<T>>(
                engine_, virtual_time_, std::move(resolution), handler, std::move(options),
                StoredWork(std::forward<Work>(work)));
        } else {
            return ::asio::async_initiate<CompletionToken,
                                          void(std::exception_ptr, HedgedResult<T>)>(
                [this, handler](auto completion, HandlerResolution moved_resolution,
                                RunOptions moved_options, StoredWork moved_work) {
                    detail::spawn_hedged<T, HedgedResult<T>>(
                        engine_, virtual_time_, std::move(completion), std::move(moved_resolution),
                        handler, std::move(moved_options), std::move(moved_work));
                },
                token, std::move(resolution), std::move(options),
                StoredWork(std::forward<Work>(work)));
        }
    }

    // The blocking executor with the same options: a run of either makes the same decisions.
    const rebound::RetryExecutor& blocking() const noexcept { return engine_; }

  private:
    using ResolvedState = detail::RunState<detail::ResolvedOrigin>;
    using PolicyState = detail::RunState<detail::PolicyOrigin>;

    // Starts a run. The run's state is built where it is passed on (the coroutine's parameter,
    // or the initiation's argument), so that it is moved once into the coroutine frame.
    template <typename Work, typename CompletionToken>
    auto launch(HandlerResolution&& resolution, std::string_view handler, RunOptions&& options,
                Work&& work, CompletionToken&& token) const {
        using T = detail::WorkValue<Work>;
        using StoredWork = std::decay_t<Work>;
        if constexpr (std::is_same_v<std::decay_t<CompletionToken>, detail::AttemptToken>) {
            if (detail::hedges(*resolution.policy_or_builtin())) {
                return detail::run_hedged<T, StoredWork, Result<T>>(
                    engine_, virtual_time_, std::move(resolution), handler, std::move(options),
                    StoredWork(std::forward<Work>(work)));
            }
            // The caller's coroutine awaits the run's: nothing to post, spawn or forward.
            if (!detail::needs_canceller(*resolution.policy_or_builtin(), options)) {
                return detail::run_loop<T, StoredWork>(
                    virtual_time_,
                    ResolvedState(engine_, std::move(resolution), handler, std::move(options)),
                    StoredWork(std::forward<Work>(work)), nullptr);
            }
        }
        return ::asio::async_initiate<CompletionToken, void(std::exception_ptr, Result<T>)>(
            [this](auto completion, ResolvedState moved_state, StoredWork moved_work) {
                if (moved_state.hedges()) {
                    detail::spawn_hedged<T, Result<T>>(
                        engine_, virtual_time_, std::move(completion),
                        moved_state.take_resolution(), moved_state.handler(),
                        moved_state.take_options(), std::move(moved_work));
                    return;
                }
                spawn<T>(std::move(completion), std::move(moved_state), std::move(moved_work));
            },
            token, ResolvedState(engine_, std::move(resolution), handler, std::move(options)),
            StoredWork(std::forward<Work>(work)));
    }

    // Spawns the run's coroutine for a completion handler; `into` as for run_loop().
    template <typename T, typename Work, typename Handler, typename State,
              typename Into = detail::ReturnsResult>
    void spawn(Handler handler, State state, Work work, Into into = {}) const {
        const ::asio::any_io_executor executor(::asio::get_associated_executor(handler));
        if (state.needs_canceller()) {
            auto canceller = std::make_shared<detail::RunCanceller>(executor);
            canceller->watch(state.options().stop,
                             ::asio::get_associated_cancellation_slot(handler));
            detail::RunCanceller* const raw = canceller.get();
            ::asio::co_spawn(
                raw->strand(),
                detail::run_loop<T, Work>(virtual_time_, std::move(state), std::move(work), raw,
                                          into),
                ::asio::bind_cancellation_slot(
                    raw->slot(),
                    ::asio::bind_executor(
                        executor, [handler = std::move(handler), canceller = std::move(canceller)](
                                      std::exception_ptr error, auto... result) mutable {
                            canceller->release(::asio::get_associated_cancellation_slot(handler));
                            std::move(handler)(std::move(error), std::move(result)...);
                        })));
            return;
        }
        // A terminal cancellation that comes after the spawn but before the coroutine starts
        // makes Asio complete with operation_aborted and an empty Result (or the caller's
        // untouched): that run is cancelled.
        std::shared_ptr<const Policy> policy = state.policy();
        const auto slot = ::asio::get_associated_cancellation_slot(handler);
        ::asio::co_spawn(
            executor,
            detail::run_loop<T, Work>(virtual_time_, std::move(state), std::move(work), nullptr,
                                      into),
            ::asio::bind_cancellation_slot(
                slot, ::asio::bind_executor(
                          executor, [handler = std::move(handler), policy = std::move(policy),
                                     into](std::exception_ptr error, auto... returned) mutable {
                              RunResult* const result = detail::completed_result(into, returned...);
                              if (error && result->policy == nullptr &&
                                  detail::is_cancellation(error)) {
                                  error = nullptr;
                                  result->outcome = RetryOutcome::Cancelled;
                                  result->policy = std::move(policy);
                              }
                              std::move(handler)(std::move(error), std::move(returned)...);
                          })));
    }

    // run_value() of a run that needs a canceller: the run in place through run()'s spawn, then
    // its value.
    template <typename T, typename Work>
    ::asio::awaitable<T> value_of_spawned_run(const Policy& policy, Work work) const {
        Result<T> result;
        co_await run(policy, std::move(work), result, ::asio::use_awaitable);
        co_return detail::value_or_throw(std::move(result));
    }

    ErrorCodeClassifier classifier_;
    rebound::RetryExecutor engine_;
    VirtualTime* virtual_time_;
};
// The process-wide asynchronous executor with default options (immutable).
const RetryExecutor& default_executor();

// Runs `work` under `policy` with the default executor.
template <typename Work, typename CompletionToken>
auto run(std::shared_ptr<const Policy> policy, Work&& work, CompletionToken&& token,
         RunOptions options = {}) {
    return default_executor().run(std::move(policy), std::forward<Work>(work),
                                  std::forward<CompletionToken>(token), std::move(options));
}

// Runs `work` under `policy`, which the caller keeps alive until the run completes, with the
// default executor (RetryExecutor::run(const Policy&, ...)).
template <typename Work, typename CompletionToken>
auto run(const Policy& policy, Work&& work, CompletionToken&& token) {
    return default_executor().run(policy, std::forward<Work>(work),
                                  std::forward<CompletionToken>(token));
}

// RetryExecutor::run_value() with the default executor.
template <typename Work>
::asio::awaitable<detail::WorkValue<Work>> run_value(const Policy& policy, Work&& work) {
    return default_executor().run_value(policy, std::forward<Work>(work));
}

}  // namespace rebound::asio
