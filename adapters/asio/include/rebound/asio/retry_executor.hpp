// The asynchronous executor: runs an asynchronous operation under a policy on an Asio executor
// (docs/async.md; the contract is docs/semantics.md, The asynchronous executor).
//
//   rebound::asio::RetryExecutor executor({.listeners = {&metrics}, .resolver = resolver});
//   rebound::asio::Result<Reply> r = co_await executor.run("FetchQuote",
//       [&](const rebound::AttemptInfo&) -> asio::awaitable<Reply> { co_return co_await fetch(); },
//       asio::use_awaitable, {.stop = stop_token});
//   if (r.succeeded()) use(*r.value);
//
// The work is invocable with `const rebound::AttemptInfo&` (or with nothing) and returns an
// `asio::awaitable<T>`; an initiating function takes part by being called with
// `asio::use_awaitable` inside it. An attempt fails when its coroutine throws: a
// std::system_error (asio::system_error) is described by its error code (error_code.hpp), other
// exceptions as by the blocking executor; a T of std::optional<rebound::Error> that holds an
// error fails the attempt too.
//
// The run is itself an asynchronous operation with the completion signature
// `void(std::exception_ptr, Result<T>)`: it takes any completion token (asio::use_awaitable,
// asio::experimental::deferred, a callback). The exception is null unless RunOptions::on_failure
// threw, which aborts the run as in the blocking executor. The run's executor is the completion
// handler's associated executor (bind one to a plain callback with asio::bind_executor); its
// steps run on a strand of it, and each attempt runs as a coroutine spawned on that strand.
//
// Steps (the RetryRun of the blocking executor, retry_run.hpp, so decisions, breaker permits,
// budget, listeners and metrics are the same): start attempt -> record the outcome and decide ->
// wait on a timer | done. No thread sleeps, and nothing recurses from one attempt to the next.
//
// Cancellation: terminal per-operation cancellation of the run (the completion handler's
// cancellation slot) and RunOptions::stop both end the run at once with outcome cancelled and the
// last error kept: a wait's timer is cancelled; an attempt in progress receives terminal
// cancellation and the run completes without waiting for it (a late result is ignored). An
// attempt that ends with operation_aborted on its own also ends the run as cancelled.
//
// attempt_timeout: an attempt still running when the policy's attempt_timeout passes receives
// terminal cancellation and fails with statement_timeout for the decision; the run goes on at once.
//
// Lifetimes: the executor, and the views in RunOptions (command_id, on_failure's callable) and
// the handler name, must outlive the run. The run holds the work (moved in) until it completes.
// Cost: one allocation for the run's state, one coroutine frame per attempt (Asio recycles
// them), none per wait.
#pragma once

#include <asio/any_io_executor.hpp>
#include <asio/associated_cancellation_slot.hpp>
#include <asio/associated_executor.hpp>
#include <asio/async_result.hpp>
#include <asio/awaitable.hpp>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/cancellation_type.hpp>
#include <asio/co_spawn.hpp>
#include <asio/dispatch.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>
#include <exception>
#include <memory>
#include <optional>
#include <stop_token>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include "rebound/asio/error_code.hpp"
#include "rebound/asio/virtual_time.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/retry_run.hpp"

namespace rebound::asio {

// What a run completes with: the blocking executor's RunResult and, after a success, the value
// of the successful attempt.
template <typename T>
struct Result : RunResult {
    std::optional<T> value{};
};
template <>
struct Result<void> : RunResult {};

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

template <typename Work>
auto start_work(Work& work, const AttemptInfo& info) {
    if constexpr (std::is_invocable_v<Work&, const AttemptInfo&>) {
        return work(info);
    } else {
        static_assert(std::is_invocable_v<Work&>,
                      "work must be invocable with const AttemptInfo& or with nothing");
        return work();
    }
}

template <typename Awaitable>
struct AwaitableValue {
    static_assert(sizeof(Awaitable) == 0,
                  "work must return asio::awaitable<T> (on asio::any_io_executor)");
};
template <typename T>
struct AwaitableValue<::asio::awaitable<T, ::asio::any_io_executor>> {
    using type = T;
};

template <typename Work>
using WorkValue = typename AwaitableValue<decltype(start_work(
    std::declval<std::decay_t<Work>&>(), std::declval<const AttemptInfo&>()))>::type;

// Whether the attempt ended with operation_aborted (a cancellation, not a failure).
bool is_cancellation(const std::exception_ptr& exception) noexcept;

// The failure of an attempt cut short by attempt_timeout.
Failure attempt_timeout_failure(const RetryRun& run) noexcept;

// The state of one run, shared by the handlers of its timer, its attempts, its cancellation slot
// and its stop callback; every step runs on `strand_`.
template <typename T, typename Work, typename Handler>
class Operation : public std::enable_shared_from_this<Operation<T, Work, Handler>> {
  public:
    using Strand = ::asio::strand<::asio::any_io_executor>;

    Operation(const rebound::RetryExecutor& engine, VirtualTime* virtual_time, Handler handler,
              HandlerResolution resolution, std::string_view name, Work work, RunOptions options)
        : handler_(std::move(handler)),
          strand_(::asio::make_strand(
              ::asio::any_io_executor(::asio::get_associated_executor(*handler_)))),
          timer_(strand_),
          virtual_time_(virtual_time),
          options_(std::move(options)),
          run_(engine.begin(std::move(resolution), name, options_)),
          work_(std::move(work)) {}

    Operation(const Operation&) = delete;
    Operation& operator=(const Operation&) = delete;
    Operation(Operation&&) = delete;
    Operation& operator=(Operation&&) = delete;
    ~Operation() = default;

    void start() {
        auto slot = ::asio::get_associated_cancellation_slot(*handler_);
        if (slot.is_connected()) {
            slot.assign([self = this->shared_from_this()](::asio::cancellation_type type) {
                if ((type & ::asio::cancellation_type::terminal) !=
                    ::asio::cancellation_type::none) {
                    ::asio::dispatch(self->strand_, [self] { self->stop(); });
                }
            });
        }
        if (options_.stop.stop_possible()) {
            stop_callback_.emplace(options_.stop, StopForwarder{this->weak_from_this()});
        }
        // Never complete inside the initiating function: the first step is posted.
        ::asio::post(strand_, [self = this->shared_from_this(), phase = phase_] {
            if (phase == self->phase_) {  // else cancelled before it began
                self->guarded([&] { return self->run_.start_attempt(); });
            }
        });
    }

  private:
    // Posts a stop request (from whichever thread set the token) to the run's strand.
    struct StopForwarder {
        std::weak_ptr<Operation> operation;
        void operator()() const noexcept {
            if (auto self = operation.lock()) {
                ::asio::post(self->strand_, [self] { self->stop(); });
            }
        }
    };

    // Takes the step `next()` returns; on_failure may throw there, which aborts the run.
    template <typename Next>
    void guarded(Next&& next) {
        RunStep step = RunStep::Done;
        try {
            step = next();
        } catch (...) {
            complete(std::current_exception());
            return;
        }
        take(step);
    }

    void take(RunStep step) {
        ++phase_;  // every handler of an earlier step is stale from here on
        step_ = step;
        switch (step) {
            case RunStep::Attempt:
                launch_attempt();
                return;
            case RunStep::Wait:
                wait();
                return;
            case RunStep::Done:
                complete(nullptr);
                return;
        }
    }

    void launch_attempt() {
        const std::uint64_t phase = phase_;
        std::optional<::asio::awaitable<T>> attempt;
        try {
            attempt.emplace(start_work(work_, run_.attempt()));
        } catch (...) {
            Failure failure = run_.classify_current();
            guarded([&] { return run_.failed(std::move(failure)); });
            return;
        }
        // A cancellation state lives in its slot's storage: an attempt cut short that has not
        // finished yet keeps its signal, and the next attempt gets a fresh one.
        if (!attempt_signal_ || attempt_signal_.use_count() > 1) {
            attempt_signal_ = std::make_shared<::asio::cancellation_signal>();
        }
        if (const std::optional<Duration> timeout = run_.attempt().attempt_timeout) {
            timer_.expires_after(*timeout);
            timer_.async_wait([self = this->shared_from_this(), phase](std::error_code error) {
                if (!error && phase == self->phase_) {
                    self->attempt_signal_->emit(::asio::cancellation_type::terminal);
                    self->guarded(
                        [&] { return self->run_.failed(attempt_timeout_failure(self->run_)); });
                }
            });
        }
        auto self = this->shared_from_this();
        auto slot = attempt_signal_->slot();
        if constexpr (std::is_void_v<T>) {
            ::asio::co_spawn(
                strand_, std::move(*attempt),
                ::asio::bind_cancellation_slot(
                    slot, [self, phase, signal = attempt_signal_](std::exception_ptr error) {
                        self->attempt_done(phase, std::move(error));
                    }));
        } else {
            ::asio::co_spawn(
                strand_, std::move(*attempt),
                ::asio::bind_cancellation_slot(slot, [self, phase, signal = attempt_signal_](
                                                         std::exception_ptr error, T value) {
                    if (!error && phase == self->phase_) {
                        self->value_.emplace(std::move(value));
                    }
                    self->attempt_done(phase, std::move(error));
                }));
        }
    }

    void attempt_done(std::uint64_t phase, std::exception_ptr error) {
        if (phase != phase_) {
            return;  // cut short by attempt_timeout or a cancellation: the run moved on
        }
        timer_.cancel();  // the attempt timeout
        if (!error) {
            if constexpr (std::is_same_v<T, std::optional<Error>>) {
                if (value_ && *value_) {
                    Failure failure = run_.classify_returned(std::move(**value_));
                    value_.reset();
                    guarded([&] { return run_.failed(std::move(failure)); });
                    return;
                }
            }
            take(run_.succeeded());
            return;
        }
        if (is_cancellation(error)) {
            take(run_.cancel());
            return;
        }
        Failure failure;
        try {
            std::rethrow_exception(error);
        } catch (...) {
            failure = run_.classify_current();
        }
        guarded([&] { return run_.failed(std::move(failure)); });
    }

    void wait() {
        const std::uint64_t phase = phase_;
        auto resume = [self = this->shared_from_this(), phase](std::error_code) {
            if (phase == self->phase_) {
                self->guarded([&] { return self->run_.waited(); });
            }
        };
        if (virtual_time_ != nullptr) {
            virtual_time_->pass(run_.delay());
            ::asio::post(strand_, [resume = std::move(resume)] { resume(std::error_code{}); });
            return;
        }
        timer_.expires_after(run_.delay());
        timer_.async_wait(std::move(resume));
    }

    void stop() {
        if (step_ == RunStep::Done) {
            return;
        }
        if (step_ == RunStep::Attempt) {
            attempt_signal_->emit(::asio::cancellation_type::terminal);
        }
        timer_.cancel();
        take(run_.cancel());
    }

    void complete(std::exception_ptr error) {
        step_ = RunStep::Done;
        ++phase_;
        timer_.cancel();
        stop_callback_.reset();
        auto slot = ::asio::get_associated_cancellation_slot(*handler_);
        if (slot.is_connected()) {
            slot.clear();
        }
        Result<T> result;
        static_cast<RunResult&>(result) = run_.take_result();
        if constexpr (!std::is_void_v<T>) {
            if (result.succeeded()) {
                result.value = std::move(value_);
            }
        }
        Handler handler = std::move(*handler_);
        handler_.reset();
        const auto executor = ::asio::get_associated_executor(handler);
        ::asio::dispatch(
            executor, [handler = std::move(handler), error, result = std::move(result)]() mutable {
                std::move(handler)(error, std::move(result));
            });
    }

    std::optional<Handler> handler_;
    Strand strand_;
    ::asio::steady_timer timer_;
    std::shared_ptr<::asio::cancellation_signal> attempt_signal_;
    VirtualTime* virtual_time_;
    RunOptions options_;
    RetryRun run_;
    Work work_;
    std::conditional_t<std::is_void_v<T>, bool, std::optional<T>> value_{};
    std::optional<std::stop_callback<StopForwarder>> stop_callback_;
    std::uint64_t phase_ = 0;
    // Before the first step, a cancellation has only the (not yet armed) timer to cancel.
    RunStep step_ = RunStep::Wait;
};

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
        return run(engine_.resolve(handler), handler, std::forward<Work>(work),
                   std::forward<CompletionToken>(token), std::move(options));
    }

    // Runs `work` under `policy` (a null policy means the built-in one).
    template <typename Work, typename CompletionToken>
    auto run(std::shared_ptr<const Policy> policy, Work&& work, CompletionToken&& token,
             RunOptions options = {}) const {
        HandlerResolution resolution;
        resolution.policy = std::move(policy);
        resolution.via = ResolvedVia::Code;
        return run(std::move(resolution), std::string_view{}, std::forward<Work>(work),
                   std::forward<CompletionToken>(token), std::move(options));
    }

    // Runs `work` under an already resolved policy.
    template <typename Work, typename CompletionToken>
    auto run(HandlerResolution resolution, std::string_view handler, Work&& work,
             CompletionToken&& token, RunOptions options = {}) const {
        using T = detail::WorkValue<Work>;
        return ::asio::async_initiate<CompletionToken, void(std::exception_ptr, Result<T>)>(
            [this](auto completion, HandlerResolution resolved, std::string_view name,
                   std::decay_t<Work> moved_work, RunOptions run_options) {
                using Operation =
                    detail::Operation<T, std::decay_t<Work>, std::decay_t<decltype(completion)>>;
                std::make_shared<Operation>(engine_, virtual_time_, std::move(completion),
                                            std::move(resolved), name, std::move(moved_work),
                                            std::move(run_options))
                    ->start();
            },
            token, std::move(resolution), handler, std::decay_t<Work>(std::forward<Work>(work)),
            std::move(options));
    }

    // The blocking executor with the same options: a run of either makes the same decisions.
    const rebound::RetryExecutor& blocking() const noexcept { return engine_; }

  private:
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

}  // namespace rebound::asio
