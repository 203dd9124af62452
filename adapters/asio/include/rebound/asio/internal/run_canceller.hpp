// RunCanceller: what a run of the asynchronous executor (retry_executor.hpp) needs when something
// other than its caller's per-operation cancellation can interrupt it: RunOptions::stop, set from
// any thread, or the policy's attempt_timeout (docs/async.md, Waits, cancellation and timeouts).
//
// A run without either is one coroutine awaiting its work inline, and the caller's terminal
// cancellation reaches the attempt or the wait through the coroutine's own cancellation state.
// With a RunCanceller, the run's coroutine is spawned on `strand()` with its cancellation slot
// bound to `slot()`, and the canceller emits terminal cancellation there:
// - on a stop request (from any thread, carried to the strand);
// - on the caller's terminal cancellation (from the caller's executor, carried to the strand);
// - when an armed attempt's timeout passes.
// Nothing is emitted before the run's coroutine began() or after it finish()ed, so the coroutine
// never sees a cancellation Asio would turn into an exception before it starts.
//
// Shared (std::shared_ptr) by the run's completion and the handlers it leaves pending. Every
// member function except the constructor, watch() and release() must run on the strand.
// Internal, not part of the API (docs/public-api.md).
#pragma once

// A standard header before Asio's: Asio chooses how it allocates coroutine frames
// (std::aligned_alloc or operator new) by a macro of libstdc++'s configuration, and a frame the
// library allocates may be freed in the caller's translation unit, which has seen the standard
// library first as nearly every one does.
#include <cstdlib>

#include <asio/any_io_executor.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>

#include "rebound/duration.hpp"

namespace rebound::asio::detail {

class RunCanceller : public std::enable_shared_from_this<RunCanceller> {
  public:
    using Strand = ::asio::strand<::asio::any_io_executor>;

    // How an attempt ended, as far as the canceller knows.
    enum class AttemptEnd : std::uint8_t {
        Completed,  // by itself
        TimedOut,   // its attempt_timeout passed: it was cancelled and fails with statement_timeout
        Stopped,    // the run was stopped or cancelled: the run ends as cancelled
    };

    explicit RunCanceller(const ::asio::any_io_executor& executor);

    RunCanceller(const RunCanceller&) = delete;
    RunCanceller& operator=(const RunCanceller&) = delete;
    RunCanceller(RunCanceller&&) = delete;
    RunCanceller& operator=(RunCanceller&&) = delete;
    ~RunCanceller() = default;

    const Strand& strand() const noexcept { return strand_; }
    // The slot to bind to the run's coroutine.
    ::asio::cancellation_slot slot() noexcept { return signal_.slot(); }

    // Carries stop requests of `stop` and terminal cancellation through `caller` (either may be
    // unconnected) to the strand. Call once, on the caller's side, before the run is spawned.
    void watch(const std::stop_token& stop, ::asio::cancellation_slot caller);
    // Undoes watch(); called by the run's completion on the caller's executor.
    void release(::asio::cancellation_slot caller) noexcept;

    // The run's coroutine starts: false when a stop came before (the run ends as cancelled).
    bool begin() noexcept;
    // An attempt starts; with a timeout, its timer is armed.
    void arm(std::optional<Duration> timeout);
    // The attempt ended (cancelled after a timeout or a stop, or by itself).
    AttemptEnd disarm() noexcept;
    // Whether the run was stopped or cancelled.
    bool stopped() const noexcept { return stopped_; }
    // The run's coroutine ends: nothing is emitted any more.
    void finish() noexcept;

  private:
    // Carries a stop request from whichever thread set the token to the strand.
    struct StopForwarder {
        std::weak_ptr<RunCanceller> canceller;
        void operator()() const noexcept;
    };

    void stop();

    Strand strand_;
    ::asio::cancellation_signal signal_;
    ::asio::steady_timer timer_;
    std::optional<std::stop_callback<StopForwarder>> stop_callback_;
    std::uint64_t attempt_ = 0;  // which armed attempt a timer handler belongs to
    bool running_ = false;
    bool stopped_ = false;
    bool timed_out_ = false;
};

}  // namespace rebound::asio::detail
