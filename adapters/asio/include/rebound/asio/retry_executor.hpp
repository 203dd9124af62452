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
// RunCanceller (run_canceller.hpp) that emits the cancellation there.
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
#include "rebound/asio/result.hpp"
#include "rebound/asio/run_canceller.hpp"
#include "rebound/asio/virtual_time.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/retry_run.hpp"

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

namespace detail {

using AttemptToken = ::asio::use_awaitable_t<::asio::any_io_executor>;

// Starts one attempt of `work` in whichever form it takes (see the top of this header); `info`
// is read only by the forms that take it (kUsesAttemptInfo). The initiating-function forms are
// tried first: telling them apart must not instantiate a generic lambda's body with the wrong
// arguments.
template <typename Work>
auto start_work(Work& work, const AttemptInfo* info) {
    if constexpr (std::is_invocable_v<Work&, const AttemptInfo&, AttemptToken>) {
        return work(*info, AttemptToken{});
    } else if constexpr (std::is_invocable_v<Work&, AttemptToken>) {
        return work(AttemptToken{});
    } else if constexpr (std::is_invocable_v<Work&, const AttemptInfo&>) {
        return work(*info);
    } else {
        static_assert(std::is_invocable_v<Work&>,
                      "work must be invocable with const AttemptInfo& or with nothing (returning "
                      "asio::awaitable<T>), or with a completion token (an initiating function)");
        return work();
    }
}

// Whether start_work() passes `work` the AttemptInfo: a run of work that takes none builds none
// for a deferred first attempt. Asks in start_work()'s order, and no further than it does (a
// generic initiating function must not be instantiated with an AttemptInfo for its token).
template <typename Work>
constexpr bool takes_attempt_info() {
    if constexpr (std::is_invocable_v<Work&, const AttemptInfo&, AttemptToken>) {
        return true;
    } else if constexpr (std::is_invocable_v<Work&, AttemptToken>) {
        return false;
    } else {
        return std::is_invocable_v<Work&, const AttemptInfo&>;
    }
}
template <typename Work>
constexpr bool kUsesAttemptInfo = takes_attempt_info<Work>();

template <typename Awaitable>
struct AwaitableValue {
    static_assert(sizeof(Awaitable) == 0,
                  "work must return asio::awaitable<T> (on asio::any_io_executor), or start an "
                  "asynchronous operation with the completion token it is given");
};
template <typename T>
struct AwaitableValue<::asio::awaitable<T, ::asio::any_io_executor>> {
    using type = T;
};

template <typename Work>
using WorkValue = typename AwaitableValue<decltype(start_work(
    std::declval<std::decay_t<Work>&>(), std::declval<const AttemptInfo*>()))>::type;

// The value of the attempt in progress (std::monostate for void).
template <typename T>
using AttemptValue = std::optional<std::conditional_t<std::is_void_v<T>, std::monostate, T>>;

using AttemptEnd = RunCanceller::AttemptEnd;

// A run's options and its RetryRun, which refers to them. Until the run begins it holds only
// what RetryExecutor::begin() takes, so that the moves from the initiating function into the
// coroutine frame are cheap; the run is then built in place in the frame, where it stays (a
// RetryRun is large and its move is not cheap). One union for both, so that the frame holds
// neither the resolution nor the handler name beside the run. A union rather than a
// std::variant: the variant's visits in the moves and destructors and its checked accesses cost
// about 40 instructions per run (3.5%; callgrind, a run that succeeds at once).
//
// The fast path: when RetryRun::may_defer() allows it (and there is no canceller), the first
// attempt runs before the run is begun, and a run that succeeds at once never builds one.
class RunState {
  public:
    // Moves from `resolution` and `options` (references, so that they move once).
    RunState(const rebound::RetryExecutor& engine, HandlerResolution&& resolution,
             std::string_view handler, RunOptions&& options) noexcept
        : options_(std::move(options)), start_{&engine, std::move(resolution), handler} {}
    // Only a RunState not yet begun is moved (into the coroutine frame).
    RunState(RunState&& other) noexcept
        : options_(std::move(other.options_)), start_(std::move(other.start_)) {}
    RunState(const RunState&) = delete;
    RunState& operator=(const RunState&) = delete;
    RunState& operator=(RunState&&) = delete;
    ~RunState() {
        if (begun_) {
            run_.~RetryRun();
        } else {
            start_.~Start();
        }
    }

    // The run's first step (once, in the coroutine frame): Attempt with the run deferred when
    // it may be (no canceller), else the run's start_attempt() (may throw what on_failure
    // throws) or, when the canceller already stopped it, its cancel(). A deferred first attempt
    // has an AttemptInfo (attempt()) only when `with_info`.
    RunStep start(RunCanceller* canceller, bool with_info) {
        const Policy& policy = *start_.resolution.policy_or_builtin();
        if (canceller == nullptr && RetryRun::may_defer(*start_.engine, policy, options_)) {
            if (with_info) {
                start_.first.emplace(RetryRun::first_attempt(policy, start_.handler, options_));
            }
            return RunStep::Attempt;
        }
        begin();
        return canceller != nullptr && !canceller->begin() ? run_.cancel() : run_.start_attempt();
    }
    // The attempt to run (after a step Attempt; for a deferred first attempt, one started
    // `with_info`).
    const AttemptInfo& attempt() const noexcept { return begun_ ? run_.attempt() : *start_.first; }
    // The run, after a step that is not that of a deferred first attempt.
    RetryRun& run() noexcept { return run_; }
    // The run, for the outcome of the attempt that just ended: a deferred first attempt
    // begins it and starts its first attempt now (RetryRun::may_defer()).
    RetryRun& attempted_run() noexcept {
        if (!begun_) {
            begin();
            [[maybe_unused]] const RunStep step = run_.start_attempt();  // Attempt, no throw
        }
        return run_;
    }
    // The attempt that just ended succeeded: Done.
    RunStep succeeded() noexcept { return begun_ ? run_.succeeded() : RunStep::Done; }
    // The result once the run is Done, moved into `result` (default-constructed):
    // RetryRun::first_success() after a deferred first attempt.
    bool result_succeeded() const noexcept { return !begun_ || run_.result().succeeded(); }
    void take_result(RunResult& result) noexcept {
        if (begun_) {
            result = run_.take_result();
        } else {
            RetryRun::first_success(std::move(start_.resolution), result);
        }
    }

    const RunOptions& options() const noexcept { return options_; }
    // Whether the run's policy hedges: it is then given up for a hedged run (hedged_driver.hpp),
    // which takes its resolution and options (before it starts).
    bool hedges() const noexcept { return hedges(start_.resolution); }
    static bool hedges(const HandlerResolution& resolution) noexcept {
        return resolution.policy_or_builtin()->spec().hedge.has_value();
    }
    HandlerResolution take_resolution() noexcept { return std::move(start_.resolution); }
    std::string_view handler() const noexcept { return start_.handler; }
    RunOptions take_options() noexcept { return std::move(options_); }
    // The policy the run will use (before it starts).
    std::shared_ptr<const Policy> policy() const noexcept {
        return start_.resolution.policy_or_builtin();
    }
    // Whether the run needs a RunCanceller: it has a stop token, or its policy an
    // attempt_timeout (before it starts).
    bool needs_canceller() const noexcept { return needs_canceller(start_.resolution, options_); }
    static bool needs_canceller(const HandlerResolution& resolution,
                                const RunOptions& options) noexcept {
        return options.stop.stop_possible() ||
               resolution.policy_or_builtin()->spec().attempt_timeout.has_value();
    }

  private:
    struct Start {
        const rebound::RetryExecutor* engine;
        HandlerResolution resolution;
        std::string_view handler;
        std::optional<AttemptInfo> first{};  // the deferred first attempt
    };

    // Builds the run: RetryExecutor::begin()'s result initialises the union's RetryRun in place.
    void begin() noexcept {
        Start start = std::move(start_);
        start_.~Start();
        ::new (&run_)
            RetryRun(start.engine->begin(std::move(start.resolution), start.handler, options_));
        begun_ = true;
    }

    RunOptions options_;
    union {
        Start start_;
        RetryRun run_;
    };
    bool begun_ = false;
};

// The options of a run that takes none (RetryExecutor::run(const Policy&, ...)), which its
// RetryRun refers to: default ones, alive as long as default_executor().
const RunOptions& no_run_options() noexcept;

// The state of a run under a policy the caller keeps alive (RetryExecutor::run(const Policy&,
// ...)): RunState's steps, without RunOptions, handler name or resolution to move into the
// coroutine frame and destroy, and without a reference count on the policy. The run's
// RunResult::policy points to that policy without owning it (an aliasing std::shared_ptr with no
// owner).
class PolicyRunState {
  public:
    PolicyRunState(const rebound::RetryExecutor& engine, const Policy& policy) noexcept
        : engine_(&engine), policy_(&policy) {}
    // Only a PolicyRunState not yet begun is moved (into the coroutine frame).
    PolicyRunState(PolicyRunState&& other) noexcept
        : engine_(other.engine_), policy_(other.policy_) {}
    PolicyRunState(const PolicyRunState&) = delete;
    PolicyRunState& operator=(const PolicyRunState&) = delete;
    PolicyRunState& operator=(PolicyRunState&&) = delete;
    // Inline, with the end of a begun run out of line, for the run that succeeds at once.
    [[gnu::always_inline]] ~PolicyRunState() {
        if (begun_) {
            end_run();
        } else {
            first_.~optional();
        }
    }

    // As RunState::start(): the deferred first attempt inline (always: GCC otherwise leaves it
    // out of the run's coroutine, which a run that succeeds at once pays for), the rest out of
    // line.
    [[gnu::always_inline]] RunStep start(RunCanceller* canceller, bool with_info) {
        // No stop token: the run's options are no_run_options().
        if (canceller == nullptr && RetryRun::may_defer(*engine_, *policy_)) {
            if (with_info) {
                defer_with_info();
            }
            return RunStep::Attempt;
        }
        return begin_and_start(canceller);
    }
    const AttemptInfo& attempt() const noexcept { return begun_ ? run_.attempt() : *first_; }
    RetryRun& run() noexcept { return run_; }
    RetryRun& attempted_run() noexcept {
        if (!begun_) {
            begin();
            [[maybe_unused]] const RunStep step = run_.start_attempt();  // Attempt, no throw
        }
        return run_;
    }
    RunStep succeeded() noexcept { return begun_ ? run_.succeeded() : RunStep::Done; }
    bool result_succeeded() const noexcept { return !begun_ || run_.result().succeeded(); }
    // Inline, with a begun run's result out of line, for the run that succeeds at once.
    [[gnu::always_inline]] void take_result(RunResult& result) noexcept {
        if (begun_) {
            take_run_result(result);
        } else {
            RetryRun::first_success(policy(), ResolvedVia::Code, result);
        }
    }
    // For a run that succeeded and gives only its value (run_value()): what take_result() does
    // beyond the result, recording the success of a deferred first attempt with the budget.
    void finish_success() const noexcept {
        if (!begun_) {
            policy_->record_success();
        }
    }

    const RunOptions& options() const noexcept { return no_run_options(); }
    // The policy, not owned.
    std::shared_ptr<const Policy> policy() const noexcept {
        return std::shared_ptr<const Policy>(std::shared_ptr<const Policy>(), policy_);
    }
    bool needs_canceller() const noexcept { return needs_canceller(*policy_); }
    // Whether `policy` hedges: the run is then a hedged run (hedged_driver.hpp).
    static bool hedges(const Policy& policy) noexcept { return policy.spec().hedge.has_value(); }
    static bool needs_canceller(const Policy& policy) noexcept {
        return policy.spec().attempt_timeout.has_value();
    }

  private:
    void defer_with_info() noexcept;
    void end_run() noexcept;
    void take_run_result(RunResult& result) noexcept;
    RunStep begin_and_start(RunCanceller* canceller);
    // Builds the run in place, as RunState::begin() does.
    void begin() noexcept;

    const rebound::RetryExecutor* engine_;
    const Policy* policy_;
    union {
        std::optional<AttemptInfo> first_{};  // the deferred first attempt
        RetryRun run_;
    };
    bool begun_ = false;
};

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

}  // namespace detail

class RetryExecutor;
namespace detail {
// A run under a policy with `hedge`, and its forms for the entries that take the policy by
// reference (hedged_driver.hpp, included at the end).
template <typename T, typename Work, typename R>
::asio::awaitable<R> run_hedged(const rebound::RetryExecutor& engine, VirtualTime* virtual_time,
                                HandlerResolution resolution, std::string_view handler,
                                RunOptions options, Work work);
inline HandlerResolution code_resolution(const Policy& policy) noexcept;
template <typename T>
::asio::awaitable<void> fill_hedged(Result<T>& into, ::asio::awaitable<Result<T>> run);
template <typename T>
::asio::awaitable<T> value_of_hedged(::asio::awaitable<Result<T>> run);
template <typename T, typename R, typename Work, typename Handler>
void spawn_hedged(const rebound::RetryExecutor& engine, VirtualTime* virtual_time, Handler handler,
                  HandlerResolution resolution, std::string_view name, RunOptions options,
                  Work work);
template <typename T, typename Work, typename Handler>
void spawn_hedged_into(const rebound::RetryExecutor& engine, VirtualTime* virtual_time,
                       Handler handler, const Policy& policy, Work work, Result<T>* into);
// RetryExecutor::run_value() of a run that needs a canceller (defined below RetryExecutor).
template <typename T, typename Work>
::asio::awaitable<T> value_of_spawned_run(const RetryExecutor& executor, const Policy& policy,
                                          Work work);
}  // namespace detail

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
    // std::shared_ptr to keep the policy longer. Always inline: a call of its own would cost such
    // a run about 10 instructions more (callgrind, bench/async_bench.cpp's case).
    template <typename Work, typename CompletionToken>
    [[gnu::always_inline]] auto run(const Policy& policy, Work&& work,
                                    CompletionToken&& token) const {
        using T = detail::WorkValue<Work>;
        using StoredWork = std::decay_t<Work>;
        if constexpr (std::is_same_v<std::decay_t<CompletionToken>, detail::AttemptToken>) {
            if (detail::PolicyRunState::hedges(policy)) {
                return detail::run_hedged<T, StoredWork, Result<T>>(
                    engine_, virtual_time_, detail::code_resolution(policy), {}, {},
                    StoredWork(std::forward<Work>(work)));
            }
            if (!detail::PolicyRunState::needs_canceller(policy)) {
                return detail::run_loop<T, StoredWork>(
                    virtual_time_, detail::PolicyRunState(engine_, policy),
                    StoredWork(std::forward<Work>(work)), nullptr);
            }
        }
        return ::asio::async_initiate<CompletionToken, void(std::exception_ptr, Result<T>)>(
            [this, &policy](auto completion, detail::PolicyRunState moved_state,
                            StoredWork moved_work) {
                if (detail::PolicyRunState::hedges(policy)) {
                    detail::spawn_hedged<T, Result<T>>(
                        engine_, virtual_time_, std::move(completion),
                        detail::code_resolution(policy), {}, {}, std::move(moved_work));
                    return;
                }
                spawn<T>(std::move(completion), std::move(moved_state), std::move(moved_work));
            },
            token, detail::PolicyRunState(engine_, policy), StoredWork(std::forward<Work>(work)));
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
            if (detail::PolicyRunState::hedges(policy)) {
                return detail::fill_hedged<T>(
                    result, detail::run_hedged<T, StoredWork, Result<T>>(
                                engine_, virtual_time_, detail::code_resolution(policy), {}, {},
                                StoredWork(std::forward<Work>(work))));
            }
            if (!detail::PolicyRunState::needs_canceller(policy)) {
                return detail::run_loop<T, StoredWork>(
                    virtual_time_, detail::PolicyRunState(engine_, policy),
                    StoredWork(std::forward<Work>(work)), nullptr, &result);
            }
        }
        return ::asio::async_initiate<CompletionToken, void(std::exception_ptr)>(
            [this, &result, &policy](auto completion, detail::PolicyRunState moved_state,
                                     StoredWork moved_work) {
                if (detail::PolicyRunState::hedges(policy)) {
                    detail::spawn_hedged_into<T>(engine_, virtual_time_, std::move(completion),
                                                 policy, std::move(moved_work), &result);
                    return;
                }
                spawn<T>(std::move(completion), std::move(moved_state), std::move(moved_work),
                         &result);
            },
            token, detail::PolicyRunState(engine_, policy), StoredWork(std::forward<Work>(work)));
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
        if (detail::PolicyRunState::hedges(policy)) {
            return detail::value_of_hedged<T>(detail::run_hedged<T, StoredWork, Result<T>>(
                engine_, virtual_time_, detail::code_resolution(policy), {}, {},
                StoredWork(std::forward<Work>(work))));
        }
        if (!detail::PolicyRunState::needs_canceller(policy)) {
            return detail::run_loop<T, StoredWork>(
                virtual_time_, detail::PolicyRunState(engine_, policy),
                StoredWork(std::forward<Work>(work)), nullptr, detail::ReturnsValue{});
        }
        // A canceller's strand: the run in place through run()'s spawn, then its value.
        return detail::value_of_spawned_run<T>(*this, policy, StoredWork(std::forward<Work>(work)));
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
    // Starts a run. The run's state is built where it is passed on (the coroutine's parameter,
    // or the initiation's argument), so that it is moved once into the coroutine frame.
    template <typename Work, typename CompletionToken>
    auto launch(HandlerResolution&& resolution, std::string_view handler, RunOptions&& options,
                Work&& work, CompletionToken&& token) const {
        using T = detail::WorkValue<Work>;
        using StoredWork = std::decay_t<Work>;
        if constexpr (std::is_same_v<std::decay_t<CompletionToken>, detail::AttemptToken>) {
            if (detail::RunState::hedges(resolution)) {
                return detail::run_hedged<T, StoredWork, Result<T>>(
                    engine_, virtual_time_, std::move(resolution), handler, std::move(options),
                    StoredWork(std::forward<Work>(work)));
            }
            // The caller's coroutine awaits the run's: nothing to post, spawn or forward.
            if (!detail::RunState::needs_canceller(resolution, options)) {
                return detail::run_loop<T, StoredWork>(
                    virtual_time_,
                    detail::RunState(engine_, std::move(resolution), handler, std::move(options)),
                    StoredWork(std::forward<Work>(work)), nullptr);
            }
        }
        return ::asio::async_initiate<CompletionToken, void(std::exception_ptr, Result<T>)>(
            [this](auto completion, detail::RunState moved_state, StoredWork moved_work) {
                if (moved_state.hedges()) {
                    detail::spawn_hedged<T, Result<T>>(
                        engine_, virtual_time_, std::move(completion),
                        moved_state.take_resolution(), moved_state.handler(),
                        moved_state.take_options(), std::move(moved_work));
                    return;
                }
                spawn<T>(std::move(completion), std::move(moved_state), std::move(moved_work));
            },
            token, detail::RunState(engine_, std::move(resolution), handler, std::move(options)),
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

    ErrorCodeClassifier classifier_;
    rebound::RetryExecutor engine_;
    VirtualTime* virtual_time_;
};

namespace detail {
template <typename T, typename Work>
::asio::awaitable<T> value_of_spawned_run(const RetryExecutor& executor, const Policy& policy,
                                          Work work) {
    Result<T> result;
    co_await executor.run(policy, std::move(work), result, ::asio::use_awaitable);
    co_return value_or_throw(std::move(result));
}
}  // namespace detail

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

#include "rebound/asio/internal/hedged_driver.hpp"  // IWYU pragma: export
