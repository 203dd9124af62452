// RetryExecutor: runs a unit of work under the policy of a named handler (docs/semantics.md).
//
//   rebound::RetryExecutor executor({.listeners = {&metrics}, .resolver = resolver});
//   rebound::RunResult r = executor.run("ApproveCase", [&](const rebound::AttemptInfo& a) {
//       approve(case_id, a.attempt_timeout, a.stop);  // throws on failure
//   }, {.command_id = command_id, .stop = stop_token});
//
// Every attempt runs the whole work from the start. The work reports failure by throwing (see
// ExceptionClassifier for how exceptions become errors) or by returning an engaged
// std::optional<rebound::Error>; returning nothing or an empty optional is success. After a
// failure the executor classifies the error, asks decide(), tells the caller's on_failure hook,
// and either stops or waits through the sleeper and starts the next attempt (the steps of a
// RetryRun, retry_run.hpp, which the asynchronous executor shares). The policy is
// resolved once per run: a reload never changes the policy of a run in progress.
//
// Clock: the executor reads the clock only when something needs the time: a policy with a
// deadline (time left, step 6 of the decision), ExecutorOptions::measure_elapsed, the policy's
// circuit breaker, or a listener that wants durations (RetryListener::wants_durations(): one read
// at each attempt's start and end). A run under a policy without a deadline or breaker, and
// without such a listener, reads no clock at all.
//
// Cost: after the work, a run allocates nothing of its own (the policy, the stop token and the
// last error are reference-counted; listeners may allocate, see their headers), except for a
// failure whose description its rebound::Error does not carry, which keeps it in a block of its
// own (failure.hpp).
//
// Thread safety: one executor may run work from many threads at once, provided its clock,
// sleeper, random source, listeners and sink are thread-safe (the defaults are).
#pragma once

#include <any>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "rebound/clock.hpp"
#include "rebound/dead_letter_sink.hpp"
#include "rebound/decision.hpp"
#include "rebound/error_exception.hpp"
#include "rebound/exception_classifier.hpp"
#include "rebound/failure.hpp"
#include "rebound/function_ref.hpp"
#include "rebound/policy_set.hpp"
#include "rebound/random_source.hpp"
#include "rebound/retry_listener.hpp"
#include "rebound/retry_outcome.hpp"
#include "rebound/sleeper.hpp"

namespace rebound {

class RetryRun;
class HedgedRun;
class HedgeLatencies;

// What one attempt gets.
struct AttemptInfo {
    int attempt = 1;  // 1-based
    // Time left before the policy's deadline at the start of this attempt; absent without one.
    std::optional<Duration> time_left{};
    std::optional<Duration> attempt_timeout{};  // the policy's attempt_timeout
    std::stop_token stop{};                     // the run's cancellation token
    std::string_view command_id{};              // empty when the caller gave none
    std::string_view handler{};
};

// Passed to RunOptions::on_failure after every failed attempt, once the decision is known and
// before any wait: the place to roll back a transaction or release a connection.
struct FailureEvent {
    std::string_view handler;
    int attempt = 0;
    const Failure& failure;
    const Decision& decision;
};

// Plugs a caller's classification into the executor (the ODBC adapter maps its exceptions and
// SQLSTATEs here). Both functions must be thread-safe and must not throw.
class FailureClassifier {
  public:
    virtual ~FailureClassifier() = default;
    // Describes an exception, or returns nullopt to leave it to the ExceptionClassifier. Called
    // while the exception is being handled, so `throw;` inside a try block inspects it without
    // the cost of std::rethrow_exception. Views must live as long as the exception or `this`.
    virtual std::optional<ErrorDescription> classify_exception(
        const std::exception_ptr& /*exception*/) const noexcept {
        return std::nullopt;
    }
    // Completes any description (thrown or returned) before the decision, e.g. a category from
    // vendor and SQLSTATE. Views must live as long as the input's or `this`.
    virtual ErrorDescription refine(const ErrorDescription& description) const noexcept {
        return description;
    }
};

// Finds the policy of a handler at the start of a run. The result's binding_key is not used.
using PolicyResolver = std::function<HandlerResolution(std::string_view handler)>;

struct ExecutorOptions {
    Clock* clock = nullptr;                           // default_clock() when null
    Sleeper* sleeper = nullptr;                       // default_sleeper() when null
    RandomSource* random = nullptr;                   // default_random_source() when null
    const ExceptionClassifier* exceptions = nullptr;  // ExceptionClassifier::builtin() when null
    const FailureClassifier* classifier = nullptr;    // optional hook, asked first
    std::vector<RetryListener*> listeners{};          // called in order
    DeadLetterSink* dead_letter_sink = nullptr;       // for on_exhausted: dead_letter
    // Measure RunResult::elapsed for every run, also under policies without a deadline (which
    // otherwise read no clock).
    bool measure_elapsed = false;
    // For run(handler, ...): when empty, every handler gets the built-in policy.
    PolicyResolver resolver{};
    // Where hedged runs read learned hedge delays and record attempt latencies
    // (hedge_latencies.hpp); null: no timed hedge under a learned delay.
    HedgeLatencies* hedge_latencies = nullptr;
};

struct RunOptions {
    std::string_view command_id{};  // passed to the work, listeners and the sink; never a metric
    std::stop_token stop{};         // cancels waits; the work should watch it too
    std::any item{};                // the work item, for the dead-letter sink
    FunctionRef<void(const FailureEvent&)> on_failure{};  // optional; may throw to abort the run
};

// Kept small (a waiting asynchronous run keeps room for one in each coroutine that will hold it,
// docs/async.md): the small fields first, so that they share a word.
struct RunResult {
    RetryOutcome outcome = RetryOutcome::Succeeded;
    ResolvedVia via = ResolvedVia::Builtin;
    int attempts = 0;  // attempts started
    // From the start of the first attempt to the end of the run. Present when the run read the
    // clock: the policy has a deadline, or ExecutorOptions::measure_elapsed is set.
    std::optional<Duration> elapsed{};
    std::shared_ptr<const Policy> policy{};
    Failure last_error{};    // empty (tests false) after success on the first attempt
    Decision last_decision;  // the decision after the last failed attempt

    bool succeeded() const noexcept { return outcome == RetryOutcome::Succeeded; }
};

class RetryExecutor {
  public:
    explicit RetryExecutor(ExecutorOptions options = {});

    // Runs `work` under the policy the resolver gives `handler`.
    template <typename Work>
    RunResult run(std::string_view handler, Work&& work, const RunOptions& options = {}) const {
        return run(resolve(handler), handler, std::forward<Work>(work), options);
    }

    // Runs `work` under an already resolved policy (a null policy means the built-in one). A
    // policy with `hedge` is refused at the start with std::invalid_argument ("hedging needs an
    // asynchronous executor"): hedges run concurrently (rebound::asio runs them).
    // `Work` is invocable with `const AttemptInfo&` (or with nothing) and returns void or
    // std::optional<Error>. The resolution is taken by value: pass an rvalue to spare the run
    // one reference count on the policy.
    template <typename Work>
    // NOLINTNEXTLINE(performance-unnecessary-value-param): moved into run_attempts
    RunResult run(HandlerResolution resolution, std::string_view handler, Work&& work,
                  const RunOptions& options = {}) const {
        const auto attempt = [&work](const AttemptInfo& info) -> std::optional<Error> {
            if constexpr (std::is_invocable_v<Work&, const AttemptInfo&>) {
                return as_attempt_result(work, info);
            } else {
                static_assert(std::is_invocable_v<Work&>,
                              "work must be invocable with const AttemptInfo& or with nothing");
                return as_attempt_result([&work](const AttemptInfo&) { return work(); }, info);
            }
        };
        return run_attempts(std::move(resolution), handler, attempt, options);
    }

    HandlerResolution resolve(std::string_view handler) const;

    // The sleeper the runs wait through (ExecutorOptions::sleeper, else default_sleeper()), for a
    // driver that waits out a run's delays itself, such as the ODBC TransactionalRunner.
    Sleeper& sleeper() const noexcept { return *sleeper_; }

    // Begins a run for a driver of its own, such as the asynchronous executor of rebound::asio
    // (defined in retry_run.hpp, which such a driver includes). `handler` and `options` must
    // outlive the returned run.
    RetryRun begin(HandlerResolution resolution, std::string_view handler,
                   const RunOptions& options) const noexcept;

  private:
    friend class RetryRun;
    friend class HedgedRun;
    class HedgedRun;

    template <typename Callable>
    static std::optional<Error> as_attempt_result(Callable&& callable, const AttemptInfo& info) {
        using Result = std::invoke_result_t<Callable&, const AttemptInfo&>;
        if constexpr (std::is_void_v<Result>) {
            std::invoke(callable, info);
            return std::nullopt;
        } else {
            static_assert(std::is_same_v<std::remove_cvref_t<Result>, std::optional<Error>>,
                          "work must return void or std::optional<rebound::Error>");
            return std::invoke(callable, info);
        }
    }

    RunResult run_attempts(HandlerResolution resolution, std::string_view handler,
                           FunctionRef<std::optional<Error>(const AttemptInfo&)> attempt,
                           const RunOptions& options) const;
    // `*unmatched`: the type of an exception nothing classified (no FailureClassifier answer,
    // no ExceptionClassifier type, no category after refine), else null.
    Failure classify_current(const std::type_info** unmatched) const noexcept;
    Failure classify_returned(Error error) const noexcept;
    // Whether `type` is reported for the first time (false after that, or with no listener).
    bool first_unclassified(const std::type_info& type) const noexcept;
    // Whether any listener is registered: a run builds no event otherwise.
    bool listening() const noexcept { return !listeners_.empty(); }
    void notify(void (RetryListener::*method)(const RetryEvent&) noexcept,
                const RetryEvent& event) const noexcept;

    Clock* clock_;
    Sleeper* sleeper_;
    RandomSource* random_;
    const ExceptionClassifier* exceptions_;
    const FailureClassifier* classifier_;
    std::vector<RetryListener*> listeners_;
    DeadLetterSink* dead_letter_sink_;
    bool measure_elapsed_;
    // A listener hears every attempt, or measure_elapsed reads the clock at the first:
    // RetryRun::may_defer() in one test.
    bool observes_first_attempt_ = false;
    // A listener wants durations: runs read the clock at each attempt's start and end.
    bool times_events_ = false;
    PolicyResolver resolver_;
    HedgeLatencies* hedge_latencies_;
    // The exception types already reported unclassified; null without listeners. Shared by
    // copies of the executor.
    struct UnclassifiedTypes;
    std::shared_ptr<UnclassifiedTypes> unclassified_;
};

}  // namespace rebound
