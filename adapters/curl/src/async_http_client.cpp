#include "rebound/curl/async_http_client.hpp"

#include <curl/curl.h>
#include <unistd.h>

#include <array>
#include <asio/dispatch.hpp>
#include <asio/error.hpp>
#include <asio/posix/stream_descriptor.hpp>
#include <asio/post.hpp>
#include <asio/redirect_error.hpp>
#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <chrono>
#include <new>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "easy_request.hpp"
#include "rebound/attempt_time_limit.hpp"
#include "rebound/hedged_run.hpp"

namespace rebound::curl {
namespace {

std::optional<Duration> shorter(std::optional<Duration> a, std::optional<Duration> b) {
    if (!a) {
        return b;
    }
    return b && *b < *a ? b : a;
}

// One transfer: the easy handle, what it points into (a copy of the request, the header list,
// the response being collected), and how its awaiting coroutine is woken. Shared by the
// coroutine and the multi handle: either may be done with it first.
struct Transfer {
    Transfer(const ::asio::any_io_executor& waiter, HttpRequest request_to_own,
             const TransferLimits& limits)
        : request(std::move(request_to_own)),
          easy(detail::make_easy()),
          headers(detail::header_list(request)),
          signal(waiter, std::chrono::steady_clock::time_point::max()) {
        detail::set_request(easy.get(), request, headers.get(), sink, limits);
    }

    HttpRequest request;
    detail::Easy easy;
    detail::HeaderList headers;
    detail::ResponseSink sink;
    AttemptOutcome outcome;
    // Expires (on the awaiting coroutine's executor) when the transfer is done.
    ::asio::steady_timer signal;
    bool done = false;    // the outcome is set (read on the waiter's executor)
    bool active = false;  // added to the multi handle (read on the multi's strand)
};

}  // namespace

// The curl multi handle and the Asio objects that drive it; every member is used on `strand_`.
// Handlers hold it by shared_ptr, so it outlives the client until they have run; once shut down
// (the client destroyed) they do nothing.
class AsyncHttpClient::Multi : public std::enable_shared_from_this<AsyncHttpClient::Multi> {
  public:
    explicit Multi(const ::asio::any_io_executor& executor)
        : strand_(::asio::make_strand(executor)), timer_(strand_) {
        detail::initialise_curl_once();
        multi_ = curl_multi_init();
        if (multi_ == nullptr) {
            throw std::bad_alloc();
        }
        curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &Multi::on_socket);
        curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
        curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &Multi::on_timer);
        curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
    }

    Multi(const Multi&) = delete;
    Multi& operator=(const Multi&) = delete;
    Multi(Multi&&) = delete;
    Multi& operator=(Multi&&) = delete;
    ~Multi() { shut_down(); }

    const ::asio::strand<::asio::any_io_executor>& strand() const noexcept { return strand_; }

    // Starts `transfer`; a multi handle that cannot take it finishes it at once.
    void add(const std::shared_ptr<Transfer>& transfer) {
        CURL* const easy = transfer->easy.get();
        curl_easy_setopt(easy, CURLOPT_PRIVATE, transfer.get());
        curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, &Multi::on_close_socket);
        curl_easy_setopt(easy, CURLOPT_CLOSESOCKETDATA, this);
        if (multi_ == nullptr || curl_multi_add_handle(multi_, easy) != CURLM_OK) {
            finish(transfer, CURLE_FAILED_INIT);
            return;
        }
        transfer->active = true;
        transfers_.emplace(easy, transfer);
    }

    // Takes a cancelled transfer out of the multi handle; its coroutine has gone.
    void remove(const std::shared_ptr<Transfer>& transfer) {
        if (transfer->active) {
            transfer->active = false;
            curl_multi_remove_handle(multi_, transfer->easy.get());
            transfers_.erase(transfer->easy.get());
        }
    }

    // Ends every transfer and closes the connections (the client's destructor).
    void shut_down() noexcept {
        if (multi_ == nullptr) {
            return;
        }
        for (auto& [easy, transfer] : transfers_) {
            transfer->active = false;
            curl_multi_remove_handle(multi_, easy);
        }
        transfers_.clear();
        // Closes the cached connections (on_socket forgets their sockets, on_close_socket closes
        // them).
        curl_multi_cleanup(multi_);
        multi_ = nullptr;
        timer_.cancel();
        while (!sockets_.empty()) {
            forget(sockets_.begin());  // curl's to close, not Asio's
        }
    }

  private:
    // A socket curl uses, watched for the directions curl asked for, from the first time curl
    // asks until CURL_POLL_REMOVE (curl tells that before it closes a socket, and when a
    // connection goes idle in its cache): then the descriptor leaves Asio's reactor without being
    // closed, so a number curl closes and reuses never meets a stale registration. A socket curl
    // closes through on_close_socket while still watched is closed by Asio.
    struct Socket {
        Socket(const ::asio::strand<::asio::any_io_executor>& strand, curl_socket_t fd)
            : descriptor(strand, fd) {}
        ::asio::posix::stream_descriptor descriptor;
        int interest = 0;  // CURL_POLL_IN / CURL_POLL_OUT bits
        bool reading = false;
        bool writing = false;
        bool closed = false;
    };

    static int on_socket(CURL* /*easy*/, curl_socket_t fd, int what, void* self, void* /*socket*/) {
        return static_cast<Multi*>(self)->watch(fd, what);
    }

    static int on_timer(CURLM* /*multi*/, long timeout_ms, void* self) {
        static_cast<Multi*>(self)->set_timer(timeout_ms);
        return 0;
    }

    static int on_close_socket(void* self, curl_socket_t fd) {
        static_cast<Multi*>(self)->close_socket(fd);
        return 0;
    }

    int watch(curl_socket_t fd, int what) {
        auto found = sockets_.find(fd);
        if (what == CURL_POLL_REMOVE) {
            if (found != sockets_.end()) {
                forget(found);
            }
            return 0;
        }
        if (found == sockets_.end()) {
            try {
                found = sockets_.emplace(fd, std::make_shared<Socket>(strand_, fd)).first;
            } catch (...) {
                return -1;  // curl fails the transfers on this socket
            }
        }
        found->second->interest = what;
        arm(found->second);
        return 0;
    }

    // Waits for each direction curl wants and no wait is pending for yet.
    void arm(const std::shared_ptr<Socket>& socket) {
        if ((socket->interest & CURL_POLL_IN) != 0 && !socket->reading) {
            socket->reading = true;
            socket->descriptor.async_wait(
                ::asio::posix::stream_descriptor::wait_read,
                [self = shared_from_this(), socket](std::error_code error) {
                    socket->reading = false;
                    self->ready(socket, error, CURL_POLL_IN, CURL_CSELECT_IN);
                });
        }
        if ((socket->interest & CURL_POLL_OUT) != 0 && !socket->writing) {
            socket->writing = true;
            socket->descriptor.async_wait(
                ::asio::posix::stream_descriptor::wait_write,
                [self = shared_from_this(), socket](std::error_code error) {
                    socket->writing = false;
                    self->ready(socket, error, CURL_POLL_OUT, CURL_CSELECT_OUT);
                });
        }
    }

    // A wait ended: tells curl the socket is ready (or in error), then waits again for what curl
    // still wants.
    void ready(const std::shared_ptr<Socket>& socket, std::error_code error, int direction,
               int select) {
        if (socket->closed || multi_ == nullptr) {
            return;
        }
        if (error != ::asio::error::operation_aborted && (socket->interest & direction) != 0) {
            act(socket->descriptor.native_handle(), error ? CURL_CSELECT_ERR : select);
        }
        if (!socket->closed && multi_ != nullptr) {
            arm(socket);
        }
    }

    void set_timer(long timeout_ms) {
        if (timeout_ms < 0) {
            timer_.cancel();
            return;
        }
        // Never act inside curl's callback: the timer's handler does, even for 0 ms.
        timer_.expires_after(std::chrono::milliseconds(timeout_ms));
        timer_.async_wait([self = shared_from_this()](std::error_code error) {
            if (!error && self->multi_ != nullptr) {
                self->act(CURL_SOCKET_TIMEOUT, 0);
            }
        });
    }

    void close_socket(curl_socket_t fd) {
        const auto found = sockets_.find(fd);
        if (found == sockets_.end()) {
            ::close(fd);  // not watched (any more)
            return;
        }
        found->second->closed = true;
        std::error_code ignored;
        found->second->descriptor.close(ignored);
        sockets_.erase(found);
    }

    // Stops watching a socket: its pending waits end with operation_aborted and do nothing.
    void forget(std::unordered_map<curl_socket_t, std::shared_ptr<Socket>>::iterator found) {
        found->second->closed = true;
        found->second->descriptor.release();
        sockets_.erase(found);
    }

    void act(curl_socket_t fd, int select) {
        int running = 0;
        curl_multi_socket_action(multi_, fd, select, &running);
        int left = 0;
        while (CURLMsg* message = curl_multi_info_read(multi_, &left)) {
            if (message->msg != CURLMSG_DONE) {
                continue;
            }
            const auto found = transfers_.find(message->easy_handle);
            if (found == transfers_.end()) {
                continue;
            }
            const std::shared_ptr<Transfer> transfer = found->second;
            transfers_.erase(found);
            transfer->active = false;
            const CURLcode code = message->data.result;
            // The message is invalid once the handle is removed: everything is read first.
            finish(transfer, code);
            curl_multi_remove_handle(multi_, transfer->easy.get());
        }
    }

    // Records the outcome and wakes the transfer's coroutine on its own executor.
    static void finish(const std::shared_ptr<Transfer>& transfer, CURLcode code) {
        AttemptOutcome outcome = detail::finished_transfer(transfer->easy.get(), code,
                                                           transfer->request, transfer->sink);
        ::asio::post(transfer->signal.get_executor(),
                     [transfer, outcome = std::move(outcome)]() mutable {
                         transfer->outcome = std::move(outcome);
                         transfer->done = true;
                         // Expired whether or not the coroutine waits yet.
                         transfer->signal.expires_at(std::chrono::steady_clock::time_point::min());
                     });
    }

    ::asio::strand<::asio::any_io_executor> strand_;
    ::asio::steady_timer timer_;
    CURLM* multi_ = nullptr;
    std::unordered_map<curl_socket_t, std::shared_ptr<Socket>> sockets_;
    std::unordered_map<CURL*, std::shared_ptr<Transfer>> transfers_;
};

AsyncHttpClient::AsyncHttpClient(::asio::any_io_executor executor, Options options)
    : multi_(std::make_shared<Multi>(std::move(executor))), options_(options) {
    detail::check_limits(options_.limits);
    if (options_.timeout && *options_.timeout <= Duration::zero()) {
        throw std::invalid_argument("rebound::curl: timeout must be positive (nullopt for none)");
    }
}

AsyncHttpClient::~AsyncHttpClient() {
    multi_->shut_down();
}

::asio::awaitable<AttemptOutcome> AsyncHttpClient::perform(HttpRequest request,
                                                           std::optional<Duration> timeout,
                                                           bool declared_idempotent) const {
    auto transfer = std::make_shared<Transfer>(co_await ::asio::this_coro::executor,
                                               std::move(request), options_.limits);
    curl_easy_setopt(transfer->easy.get(), CURLOPT_TIMEOUT_MS,
                     detail::timeout_ms(shorter(detail::transfer_limit(timeout, options_.limits),
                                                options_.timeout)));
    detail::set_connection_reuse(transfer->easy.get(), transfer->request, declared_idempotent);
    ::asio::dispatch(multi_->strand(), [multi = multi_, transfer] { multi->add(transfer); });
    std::error_code error;
    co_await transfer->signal.async_wait(::asio::redirect_error(::asio::use_awaitable, error));
    const auto cancellation = (co_await ::asio::this_coro::cancellation_state).cancelled();
    if (!transfer->done || cancellation != ::asio::cancellation_type::none) {
        // Cancelled: curl lets go of the transfer before anything else runs on the multi's
        // strand, and a late outcome is dropped (the run that awaited it may have ended).
        ::asio::dispatch(multi_->strand(), [multi = multi_, transfer] { multi->remove(transfer); });
        throw ::asio::system_error(::asio::error::operation_aborted);
    }
    co_return std::move(transfer->outcome);
}

::asio::awaitable<std::optional<Error>> AsyncHttpClient::attempt(HttpRequest request,
                                                                 AttemptInfo info,
                                                                 bool declared_idempotent,
                                                                 HttpResponse& response) const {
    const AttemptOutcome outcome =
        co_await perform(request, attempt_time_limit(info), declared_idempotent);
    if (outcome.response.status != 0) {
        response = outcome.response;
    }
    const http::Classification classified = classify_attempt(request, declared_idempotent, outcome);
    if (!classified.failed()) {
        co_return std::nullopt;
    }
    co_return detail::attempt_error(classified, outcome, options_.limits);
}

namespace {

bool hedges(const HandlerResolution& resolution) {
    return resolution.policy_or_builtin()->spec().hedge.has_value();
}

// The responses of a hedged call's attempts, a slot each: several transfers are in flight at
// once, and the call keeps the winner's.
struct HedgedResponses {
    std::array<HttpResponse, HedgedRun::kMaxAttempts> slots{};
    int last = 0;  // the last attempt whose response arrived

    // The winner's response; without a winner, the last one that arrived.
    HttpResponse take(int winner) {
        const int number = winner != 0 ? winner : last;
        return number != 0 ? std::move(slots[static_cast<std::size_t>(number) - 1])
                           : HttpResponse{};
    }
};

// One attempt of a hedged call, into its own slot. A cancelled attempt (a loser) throws before
// it touches `responses`, which may be gone by then.
::asio::awaitable<std::optional<Error>> attempt_into(const AsyncHttpClient& client,
                                                     HttpRequest request, AttemptInfo info,
                                                     bool declared_idempotent,
                                                     HedgedResponses& responses) {
    HttpResponse& own = responses.slots[static_cast<std::size_t>(info.attempt) - 1];
    std::optional<Error> failure =
        co_await client.attempt(std::move(request), info, declared_idempotent, own);
    if (own.status != 0) {
        responses.last = info.attempt;
    }
    co_return failure;
}

}  // namespace

::asio::awaitable<CallResult> AsyncHttpClient::call(const rebound::asio::RetryExecutor& executor,
                                                    std::string_view handler, HttpRequest request,
                                                    RunOptions options) const {
    HandlerResolution resolution = executor.blocking().resolve(handler);
    if (hedges(resolution)) {
        HedgedCallResult hedged = co_await hedged_call(executor, std::move(resolution), handler,
                                                       std::move(request), std::move(options));
        co_return std::move(static_cast<CallResult&>(hedged));
    }
    co_return co_await plain_call(executor, std::move(resolution), handler, std::move(request),
                                  std::move(options));
}

::asio::awaitable<HedgedCallResult> AsyncHttpClient::call_hedged(
    const rebound::asio::RetryExecutor& executor, std::string_view handler, HttpRequest request,
    RunOptions options) const {
    HandlerResolution resolution = executor.blocking().resolve(handler);
    if (hedges(resolution)) {
        co_return co_await hedged_call(executor, std::move(resolution), handler, std::move(request),
                                       std::move(options));
    }
    HedgedCallResult result;
    static_cast<CallResult&>(result) = co_await plain_call(executor, std::move(resolution), handler,
                                                           std::move(request), std::move(options));
    co_return result;
}

::asio::awaitable<CallResult> AsyncHttpClient::plain_call(
    const rebound::asio::RetryExecutor& executor, HandlerResolution resolution,
    std::string_view handler, HttpRequest request, RunOptions options) const {
    const bool declared_idempotent = resolution.idempotent;
    CallResult result;
    rebound::asio::Result<std::optional<Error>> run = co_await executor.run(
        std::move(resolution), handler,
        [this, &request, &result, declared_idempotent](const AttemptInfo& info) {
            return attempt(request, info, declared_idempotent, result.response);
        },
        ::asio::use_awaitable, std::move(options));
    result.run = std::move(run);
    co_return result;
}

// Each attempt is a transfer of its own on the multi handle; the executor's hedged run cancels
// the losers (Asio terminal cancellation), and perform() then takes their transfers out at once.
::asio::awaitable<HedgedCallResult> AsyncHttpClient::hedged_call(
    const rebound::asio::RetryExecutor& executor, HandlerResolution resolution,
    std::string_view handler, HttpRequest request, RunOptions options) const {
    const bool declared_idempotent = resolution.idempotent;
    HedgedResponses responses;
    rebound::asio::HedgedResult<std::optional<Error>> run = co_await executor.run_hedged(
        std::move(resolution), handler,
        [this, &request, &responses, declared_idempotent](const AttemptInfo& info) {
            return attempt_into(*this, request, info, declared_idempotent, responses);
        },
        ::asio::use_awaitable, std::move(options));
    HedgedCallResult result;
    result.hedge = run.hedge;
    result.response = responses.take(run.hedge.winner);
    result.run = std::move(static_cast<RunResult&>(run));
    co_return result;
}

}  // namespace rebound::curl
