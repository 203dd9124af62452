#include "rebound/curl/http_client.hpp"

#include <curl/curl.h>

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "easy_request.hpp"
#include "rebound/attempt_time_limit.hpp"
#include "rebound/curl/transfer_failure.hpp"
#include "rebound/http/header.hpp"

namespace rebound::curl {
namespace {

using detail::Easy;

AttemptOutcome perform(CURL* easy, const HttpRequest& request, detail::ResponseSink& sink,
                       const AttemptInfo& info, const TransferLimits& limits) {
    sink.clear();
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS,
                     detail::timeout_ms(detail::transfer_limit(attempt_time_limit(info), limits)));
    const CURLcode code = curl_easy_perform(easy);
    return detail::finished_transfer(easy, code, request, sink);
}

}  // namespace

http::Classification classify_attempt(const HttpRequest& request, bool declared_idempotent,
                                      const AttemptOutcome& outcome) {
    const std::vector<http::Header> request_headers = detail::header_views(request.headers);
    const http::Request classified{request.method, request_headers, declared_idempotent};
    if (outcome.body_too_large) {
        // The response was not received whole: its status does not decide.
        http::Classification result;
        result.idempotent = http::is_idempotent(classified);
        result.category = ErrorCategory::DataError;
        return result;
    }
    if (outcome.code == CURLE_OK) {
        const std::vector<http::Header> response_headers =
            detail::header_views(outcome.response.headers);
        return http::classify_response(
            classified, http::Response{static_cast<int>(outcome.response.status), response_headers,
                                       outcome.received});
    }
    if (const auto failure = transport_failure_of(outcome.code, outcome.progress)) {
        return http::classify_transport(classified, *failure);
    }
    http::Classification result;
    result.idempotent = http::is_idempotent(classified);
    result.category = ErrorCategory::ClientError;
    return result;
}

// The easy handles no call is using, each with the connections it keeps open.
class HttpClient::Handles {
  public:
    // A handle lent to one call and given back when the call ends, however it ends.
    class Lease {
      public:
        explicit Lease(Handles& handles) : handles_(handles), easy_(handles.take()) {}
        ~Lease() { handles_.give_back(std::move(easy_)); }
        Lease(const Lease&) = delete;
        Lease& operator=(const Lease&) = delete;
        CURL* get() const noexcept { return easy_.get(); }

      private:
        Handles& handles_;
        Easy easy_;
    };

  private:
    // A kept handle, else a new one.
    Easy take() {
        {
            const std::lock_guard lock(mutex_);
            if (!idle_.empty()) {
                Easy easy = std::move(idle_.back());
                idle_.pop_back();
                return easy;
            }
        }
        return detail::make_easy();
    }

    // Keeps `easy` for a later call with its options reset (they point into the finished call)
    // and its connections open; destroys it, closing them, when it cannot be kept.
    void give_back(Easy easy) noexcept {
        curl_easy_reset(easy.get());
        try {
            const std::lock_guard lock(mutex_);
            idle_.push_back(std::move(easy));
        } catch (...) {
            // out of memory or a failed lock: `easy` is cleaned up on the way out
        }
    }

    std::mutex mutex_;
    std::vector<Easy> idle_;
};

HttpClient::HttpClient(const RetryExecutor& executor, TransferLimits limits)
    : executor_(&executor), limits_(limits), handles_(std::make_unique<Handles>()) {
    detail::check_limits(limits_);
    detail::initialise_curl_once();
}

HttpClient::~HttpClient() = default;

CallResult HttpClient::call(std::string_view handler, const HttpRequest& request,
                            const RunOptions& options) const {
    HandlerResolution resolution = executor_->resolve(handler);
    const bool declared_idempotent = resolution.idempotent;
    const Handles::Lease easy(*handles_);
    const detail::HeaderList headers = detail::header_list(request);
    detail::ResponseSink sink;
    // The options every attempt shares; the handle keeps pointers into `request`, `headers` and
    // `sink`, which outlive the call.
    detail::set_request(easy.get(), request, headers.get(), sink, limits_);
    detail::set_connection_reuse(easy.get(), request, declared_idempotent);

    CallResult result;
    result.run = executor_->run(
        std::move(resolution), handler,
        [&](const AttemptInfo& info) -> std::optional<Error> {
            const AttemptOutcome outcome = perform(easy.get(), request, sink, info, limits_);
            if (outcome.response.status != 0) {
                result.response = outcome.response;
            }
            const http::Classification classified =
                classify_attempt(request, declared_idempotent, outcome);
            if (!classified.failed()) {
                return std::nullopt;
            }
            return detail::attempt_error(classified, outcome, limits_);
        },
        options);
    return result;
}

}  // namespace rebound::curl
