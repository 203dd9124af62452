#include "rebound/asio/internal/run_canceller.hpp"

#include <asio/cancellation_type.hpp>
#include <asio/dispatch.hpp>
#include <asio/post.hpp>
#include <system_error>

namespace rebound::asio::detail {

RunCanceller::RunCanceller(const ::asio::any_io_executor& executor)
    : strand_(::asio::make_strand(executor)), timer_(strand_) {}

void RunCanceller::StopForwarder::operator()() const noexcept {
    if (std::shared_ptr<RunCanceller> self = canceller.lock()) {
        ::asio::post(self->strand_, [self] { self->stop(); });
    }
}

void RunCanceller::watch(const std::stop_token& stop, ::asio::cancellation_slot caller) {
    if (caller.is_connected()) {
        caller.assign([self = shared_from_this()](::asio::cancellation_type type) {
            if ((type & ::asio::cancellation_type::terminal) != ::asio::cancellation_type::none) {
                ::asio::dispatch(self->strand_, [self] { self->stop(); });
            }
        });
    }
    if (stop.stop_possible()) {
        // Runs the forwarder at once when the stop was requested already.
        stop_callback_.emplace(stop, StopForwarder{weak_from_this()});
    }
}

void RunCanceller::release(::asio::cancellation_slot caller) noexcept {
    if (caller.is_connected()) {
        caller.clear();
    }
    stop_callback_.reset();
}

bool RunCanceller::begin() noexcept {
    running_ = true;
    return !stopped_;
}

void RunCanceller::arm(std::optional<Duration> timeout) {
    ++attempt_;
    timed_out_ = false;
    if (!timeout) {
        return;
    }
    timer_.expires_after(*timeout);
    timer_.async_wait([self = shared_from_this(), attempt = attempt_](std::error_code error) {
        if (!error && attempt == self->attempt_ && self->running_ && !self->stopped_) {
            self->timed_out_ = true;
            self->signal_.emit(::asio::cancellation_type::terminal);
        }
    });
}

RunCanceller::AttemptEnd RunCanceller::disarm() noexcept {
    ++attempt_;       // a timer handler already queued is stale from here on
    timer_.cancel();  // reports no error for a timer (Asio's deadline timer service)
    if (stopped_) {
        return AttemptEnd::Stopped;
    }
    if (timed_out_) {
        timed_out_ = false;
        return AttemptEnd::TimedOut;
    }
    return AttemptEnd::Completed;
}

void RunCanceller::finish() noexcept {
    running_ = false;
    ++attempt_;
    timer_.cancel();
}

void RunCanceller::stop() {
    if (stopped_) {
        return;
    }
    stopped_ = true;
    if (running_) {
        signal_.emit(::asio::cancellation_type::terminal);
    }
}

}  // namespace rebound::asio::detail
