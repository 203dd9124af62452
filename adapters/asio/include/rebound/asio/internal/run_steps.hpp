// The steps of a run of the asynchronous executor (retry_executor.hpp) around an attempt's end
// and the run's: what follows an attempt that threw, returned or was interrupted, and where the
// run's result goes. Internal, not part of the API (docs/public-api.md).
#pragma once

// A standard header before Asio's (see retry_executor.hpp).
#include <cstdlib>

#include <exception>
#include <optional>
#include <type_traits>
#include <utility>

#include "rebound/asio/internal/run_canceller.hpp"
#include "rebound/asio/internal/work.hpp"
#include "rebound/asio/result.hpp"
#include "rebound/retry_run.hpp"

namespace rebound::asio::detail {

using AttemptEnd = RunCanceller::AttemptEnd;

// Whether the exception in flight is a cancellation (operation_aborted). Call inside a catch.
bool handling_cancellation() noexcept;

// Whether a completion's exception is a cancellation.
bool is_cancellation(const std::exception_ptr& exception) noexcept;

// The failure of an attempt cut short by attempt_timeout.
Failure attempt_timeout_failure(const RetryRun& run) noexcept;

// The step after an attempt that threw; call inside the catch block. An attempt the canceller
// interrupted ends by that, whatever it threw. May throw what on_failure throws.
RunStep after_thrown(RetryRun& run, AttemptEnd end);

// The step after an attempt the canceller interrupted (end != Completed). May throw what
// on_failure throws.
RunStep after_interrupted(RetryRun& run, AttemptEnd end);

// The step after an attempt that returned `value`. May throw what on_failure throws. Always
// inline: for the run that succeeds at once it is two tests.
template <typename T, typename State>
[[gnu::always_inline]] inline RunStep after_returned(State& state, AttemptEnd end,
                                                     AttemptValue<T>& value) {
    if (end != AttemptEnd::Completed) {
        value.reset();  // a late result of an attempt cut short
        return after_interrupted(state.run(), end);
    }
    if constexpr (std::is_same_v<T, std::optional<Error>>) {
        if (*value) {
            RetryRun& run = state.attempted_run();
            Failure failure = run.classify_returned(std::move(**value));
            value.reset();
            return run.failed(std::move(failure));
        }
    }
    return state.succeeded();
}

// Fills the result of a run that is Done into `result` (a default-constructed Result<T>). Always
// inline, as the step of the run that succeeds at once.
template <typename T, typename State>
[[gnu::always_inline]] inline void fill_result(State& state, AttemptValue<T>& value,
                                               Result<T>& result) noexcept {
    if constexpr (!std::is_void_v<T>) {
        // The value itself, not the std::optional: copying the optional as a whole reads it in
        // one load wider than the two stores that just wrote it (the value and its flag), which
        // the CPU cannot forward and stalls on (perf put a tenth of bench/async_bench.cpp's
        // executor_run on that load; the run's measured time hardly moved without it).
        if (state.result_succeeded() && value.has_value()) {
            result.value.emplace(std::move(*value));
        }
    }
    state.take_result(result);
}

// The run's result, built where the coroutine's promise keeps it: `co_return RunOutcome<T>{...}`
// converts in place rather than through a Result<T> temporary in the coroutine frame.
template <typename T, typename State>
struct RunOutcome {
    State* state;
    AttemptValue<T>* value;

    // Filled in place (no RunResult temporary to move and destroy).
    operator Result<T>() const {  // NOLINT(google-explicit-constructor): the co_return above
        Result<T> result;
        fill_result(*state, *value, result);
        return result;
    }
};

// Where a run's result goes: `into` is ReturnsResult when the run's coroutine returns it (an
// empty type, which takes no room of its own in the coroutine frame), the caller's Result<T>*,
// which the run fills in place and then returns nothing, or ReturnsValue when the coroutine
// returns the successful attempt's value and throws otherwise (RetryExecutor::run_value()).
struct ReturnsResult {};
struct ReturnsValue {};
template <typename T, typename Into>
using RunValue =
    std::conditional_t<std::is_same_v<Into, ReturnsResult>, Result<T>,
                       std::conditional_t<std::is_same_v<Into, ReturnsValue>, T, void>>;
template <typename T, typename State>
RunOutcome<T, State> finish_run(State& state, AttemptValue<T>& value, ReturnsResult) noexcept {
    return {&state, &value};
}
template <typename T, typename State>
void finish_run(State& state, AttemptValue<T>& value, Result<T>* into) noexcept {
    fill_result(state, value, *into);
}

// Throws what run_value() throws for a run that did not succeed (`result` its result).
[[noreturn]] void throw_run_failure(const RunResult& result);

template <typename T, typename State>
T finish_run(State& state, AttemptValue<T>& value, ReturnsValue) {
    if (!state.result_succeeded()) {
        RunResult result;
        state.take_result(result);
        throw_run_failure(result);
    }
    state.finish_success();
    if constexpr (!std::is_void_v<T>) {
        return std::move(*value);
    }
}

// The value of a run filled in place into `result`, or what run_value() throws.
template <typename T>
T value_or_throw(Result<T>&& result) {
    if (!result.succeeded()) {
        throw_run_failure(result);
    }
    if constexpr (!std::is_void_v<T>) {
        return std::move(*result.value);
    }
}
// The result a completion carries: the one returned, or the caller's.
inline RunResult* completed_result(ReturnsResult, RunResult& returned) noexcept {
    return &returned;
}
inline RunResult* completed_result(RunResult* into) noexcept {
    return into;
}

}  // namespace rebound::asio::detail
