// The state of one run of the asynchronous executor (retry_executor.hpp): its RetryRun and,
// until the run begins, what it begins from. Internal, not part of the API (docs/public-api.md).
#pragma once

// A standard header before Asio's (see retry_executor.hpp).
#include <cstdlib>

#include <memory>
#include <new>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "rebound/asio/internal/run_canceller.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/retry_run.hpp"

namespace rebound::asio::detail {

// Whether a run under `policy` is a hedged run (hedged_driver.hpp).
inline bool hedges(const Policy& policy) noexcept {
    return policy.spec().hedge.has_value();
}

// Whether a run needs a RunCanceller: it has a stop token, or its policy an attempt_timeout.
inline bool needs_canceller(const Policy& policy, const RunOptions& options) noexcept {
    return options.stop.stop_possible() || policy.spec().attempt_timeout.has_value();
}
// The same for a run that takes no RunOptions.
inline bool needs_canceller(const Policy& policy) noexcept {
    return policy.spec().attempt_timeout.has_value();
}

// The options of a run that takes none (RetryExecutor::run(const Policy&, ...)), which its
// RetryRun refers to: default ones, alive as long as default_executor().
const RunOptions& no_run_options() noexcept;

// What a run begins from, in its two forms: the part the run keeps for as long as it lasts
// (Kept) and the part it gives its RetryRun when it begins (Pending), with the steps of
// RunState that differ between the forms.
//
// A run that owns its resolution (RetryExecutor::run() by handler name, resolution or
// std::shared_ptr): it keeps its options, which its RetryRun refers to, and gives the resolution
// and the handler name.
struct ResolvedOrigin {
    struct Kept {
        RunOptions options;
    };
    struct Pending {
        const rebound::RetryExecutor* engine;
        HandlerResolution resolution;
        std::string_view handler;
    };

    static const Policy& policy(const Kept& /*kept*/, const Pending& pending) noexcept {
        return *pending.resolution.policy_or_builtin();
    }
    static std::shared_ptr<const Policy> shared_policy(const Kept& /*kept*/,
                                                       const Pending& pending) noexcept {
        return pending.resolution.policy_or_builtin();
    }
    static const RunOptions& options(const Kept& kept) noexcept { return kept.options; }
    static bool may_defer(const Kept& kept, const Pending& pending) noexcept {
        return RetryRun::may_defer(*pending.engine, policy(kept, pending), kept.options);
    }
    static AttemptInfo first_attempt(const Kept& kept, const Pending& pending) noexcept {
        return RetryRun::first_attempt(policy(kept, pending), pending.handler, kept.options);
    }
    static RetryRun begin(const Kept& kept, Pending&& pending) noexcept {
        return pending.engine->begin(std::move(pending.resolution), pending.handler, kept.options);
    }
    static void first_success(const Kept& /*kept*/, Pending&& pending, RunResult& result) noexcept {
        RetryRun::first_success(std::move(pending.resolution), result);
    }
};

// A run under a policy the caller keeps alive (RetryExecutor::run(const Policy&, ...)): two
// pointers, without RunOptions, handler name or resolution to move into the coroutine frame and
// destroy, and without a reference count on the policy. The run's RunResult::policy points to
// that policy without owning it (an aliasing std::shared_ptr with no owner).
struct PolicyOrigin {
    struct Kept {
        const rebound::RetryExecutor* engine;
        const Policy* policy;
    };
    struct Pending {};

    static const Policy& policy(const Kept& kept, const Pending& /*pending*/) noexcept {
        return *kept.policy;
    }
    static std::shared_ptr<const Policy> shared_policy(const Kept& kept,
                                                       const Pending& /*pending*/) noexcept {
        return std::shared_ptr<const Policy>(std::shared_ptr<const Policy>(), kept.policy);
    }
    static const RunOptions& options(const Kept& /*kept*/) noexcept { return no_run_options(); }
    // No stop token: the run's options are no_run_options().
    static bool may_defer(const Kept& kept, const Pending& /*pending*/) noexcept {
        return RetryRun::may_defer(*kept.engine, *kept.policy);
    }
    static AttemptInfo first_attempt(const Kept& kept, const Pending& /*pending*/) noexcept {
        return RetryRun::first_attempt(*kept.policy, std::string_view{}, no_run_options());
    }
    static RetryRun begin(const Kept& kept, Pending&& pending) noexcept {
        HandlerResolution resolution;
        resolution.policy = shared_policy(kept, pending);
        resolution.via = ResolvedVia::Code;
        return kept.engine->begin(std::move(resolution), std::string_view{}, no_run_options());
    }
    static void first_success(const Kept& kept, Pending&& pending, RunResult& result) noexcept {
        RetryRun::first_success(shared_policy(kept, pending), ResolvedVia::Code, result);
    }
};

// A run's state: what it begins from (Origin) and its RetryRun, which refers to it. Until the
// run begins it holds only what RetryExecutor::begin() takes, so that the moves from the
// initiating function into the coroutine frame are cheap; the run is then built in place in the
// frame, where it stays (a RetryRun is large and its move is not cheap). One union for both, so
// that the frame holds neither the resolution nor the handler name beside the run. A union
// rather than a std::variant: the variant's visits in the moves and destructors and its checked
// accesses cost about 40 instructions per run (3.5%; callgrind, a run that succeeds at once).
//
// The fast path: when RetryRun::may_defer() allows it (and there is no canceller), the first
// attempt runs before the run is begun, and a run that succeeds at once never builds one. The
// steps such a run does not take are out of line for a run under a policy by reference
// (retry_executor.cpp), whose run is the cheapest.
template <typename Origin>
class RunState {
  public:
    using Kept = typename Origin::Kept;
    using Pending = typename Origin::Pending;

    // A run that owns its resolution: moves from `resolution` and `options` (references, so
    // that they move once).
    RunState(const rebound::RetryExecutor& engine, HandlerResolution&& resolution,
             std::string_view handler,
             RunOptions&& options) noexcept requires std::is_same_v<Origin, ResolvedOrigin>
        : kept_{std::move(options)}, start_{{&engine, std::move(resolution), handler}} {}
    // A run under a policy by reference.
    RunState(const rebound::RetryExecutor& engine,
             const Policy& policy) noexcept requires std::is_same_v<Origin, PolicyOrigin>
        : kept_{&engine, &policy}, start_{} {}
    // Only a state not yet begun is moved (into the coroutine frame).
    RunState(RunState&& other) noexcept
        : kept_(std::move(other.kept_)), start_{std::move(other.start_.from)} {}
    RunState(const RunState&) = delete;
    RunState& operator=(const RunState&) = delete;
    RunState& operator=(RunState&&) = delete;
    // Inline, with the end of a begun run out of line, for the run that succeeds at once.
    [[gnu::always_inline]] ~RunState() {
        if (begun_) {
            end_run();
        } else {
            start_.~Start();
        }
    }

    // The run's first step (once, in the coroutine frame): Attempt with the run deferred when
    // it may be (no canceller), else the run's start_attempt() (may throw what on_failure
    // throws) or, when the canceller already stopped it, its cancel(). A deferred first attempt
    // has an AttemptInfo (attempt()) only when `with_info`. The deferred first attempt inline
    // (always: GCC otherwise leaves it out of the run's coroutine, which a run that succeeds at
    // once pays for).
    [[gnu::always_inline]] RunStep start(RunCanceller* canceller, bool with_info) {
        if (canceller == nullptr && Origin::may_defer(kept_, start_.from)) {
            if (with_info) {
                defer_with_info();
            }
            return RunStep::Attempt;
        }
        return begin_and_start(canceller);
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
    // RetryRun::first_success() after a deferred first attempt. Inline, with a begun run's
    // result out of line, for the run that succeeds at once.
    bool result_succeeded() const noexcept { return !begun_ || run_.result().succeeded(); }
    [[gnu::always_inline]] void take_result(RunResult& result) noexcept {
        if (begun_) {
            take_run_result(result);
        } else {
            Origin::first_success(kept_, std::move(start_.from), result);
        }
    }
    // For a run that succeeded and gives only its value (run_value()): what take_result() does
    // beyond the result, recording the success of a deferred first attempt with the budget.
    void finish_success() const noexcept {
        if (!begun_) {
            Origin::policy(kept_, start_.from).record_success();
        }
    }

    const RunOptions& options() const noexcept { return Origin::options(kept_); }
    // The policy the run will use (before it starts); not owned under a policy by reference.
    std::shared_ptr<const Policy> policy() const noexcept {
        return Origin::shared_policy(kept_, start_.from);
    }
    // Whether the run needs a RunCanceller (before it starts).
    bool needs_canceller() const noexcept {
        return detail::needs_canceller(Origin::policy(kept_, start_.from), options());
    }
    // Whether the run's policy hedges: it is then given up for a hedged run (hedged_driver.hpp),
    // which takes its resolution, handler name and options (before it starts; a run that owns
    // its resolution).
    bool hedges() const noexcept { return detail::hedges(Origin::policy(kept_, start_.from)); }
    HandlerResolution take_resolution() noexcept { return std::move(start_.from.resolution); }
    std::string_view handler() const noexcept { return start_.from.handler; }
    RunOptions take_options() noexcept { return std::move(kept_.options); }

  private:
    struct Start {
        [[no_unique_address]] Pending from;
        std::optional<AttemptInfo> first{};  // the deferred first attempt
    };

    void defer_with_info() noexcept;
    RunStep begin_and_start(RunCanceller* canceller);
    void end_run() noexcept;
    void take_run_result(RunResult& result) noexcept;
    // Builds the run: the origin's RetryExecutor::begin() initialises the union's RetryRun in
    // place.
    void begin() noexcept;

    Kept kept_;
    union {
        Start start_;
        RetryRun run_;
    };
    bool begun_ = false;
};

template <typename Origin>
void RunState<Origin>::defer_with_info() noexcept {
    start_.first.emplace(Origin::first_attempt(kept_, start_.from));
}

template <typename Origin>
RunStep RunState<Origin>::begin_and_start(RunCanceller* canceller) {
    begin();
    return canceller != nullptr && !canceller->begin() ? run_.cancel() : run_.start_attempt();
}

template <typename Origin>
void RunState<Origin>::end_run() noexcept {
    run_.~RetryRun();
}

template <typename Origin>
void RunState<Origin>::take_run_result(RunResult& result) noexcept {
    result = run_.take_result();
}

template <typename Origin>
void RunState<Origin>::begin() noexcept {
    Pending from = std::move(start_.from);
    start_.~Start();
    ::new (&run_) RetryRun(Origin::begin(kept_, std::move(from)));
    begun_ = true;
}

// Out of line for a run under a policy by reference (retry_executor.cpp).
extern template void RunState<PolicyOrigin>::defer_with_info() noexcept;
extern template RunStep RunState<PolicyOrigin>::begin_and_start(RunCanceller* canceller);
extern template void RunState<PolicyOrigin>::end_run() noexcept;
extern template void RunState<PolicyOrigin>::take_run_result(RunResult& result) noexcept;
extern template void RunState<PolicyOrigin>::begin() noexcept;

}  // namespace rebound::asio::detail
