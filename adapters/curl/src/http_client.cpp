#include "rebound/curl/http_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "rebound/curl/transfer_failure.hpp"
#include "rebound/http/header.hpp"

namespace rebound::curl {
namespace {

// curl_global_init is not thread-safe and must run once per process before any handle.
void initialise_curl_once() {
    static const CURLcode initialised = curl_global_init(CURL_GLOBAL_DEFAULT);
    (void)initialised;
}

struct EasyDeleter {
    void operator()(CURL* easy) const noexcept { curl_easy_cleanup(easy); }
};
struct ListDeleter {
    void operator()(curl_slist* list) const noexcept { curl_slist_free_all(list); }
};
using Easy = std::unique_ptr<CURL, EasyDeleter>;
using HeaderList = std::unique_ptr<curl_slist, ListDeleter>;

std::size_t append_body(char* data, std::size_t size, std::size_t count, void* target) {
    static_cast<std::string*>(target)->append(data, size * count);
    return size * count;
}

// One header line; a new status line (after a 100 Continue or a redirect) starts over.
std::size_t append_header(char* data, std::size_t size, std::size_t count, void* target) {
    auto* response = static_cast<HttpResponse*>(target);
    const std::string_view line(data, size * count);
    if (line.starts_with("HTTP/")) {
        response->headers.clear();
    } else if (const std::optional<http::Header> header = http::split_header_line(line)) {
        response->headers.emplace_back(std::string(header->name), std::string(header->value));
    }
    return size * count;
}

HeaderList header_list(const HttpRequest& request) {
    curl_slist* list = nullptr;
    for (const auto& [name, value] : request.headers) {
        curl_slist* const next = curl_slist_append(list, (name + ": " + value).c_str());
        if (next == nullptr) {
            curl_slist_free_all(list);
            throw std::bad_alloc();
        }
        list = next;
    }
    return HeaderList(list);
}

bool has_request_body(const HttpRequest& request) {
    return !request.body.empty() || request.method == "POST" || request.method == "PUT" ||
           request.method == "PATCH";
}

// Sets the options every attempt shares; the handle keeps pointers into `request`, `headers`
// and `response`, which outlive the call. `fresh_connection`: never send on a kept connection.
void prepare(CURL* easy, const HttpRequest& request, curl_slist* headers, HttpResponse& response,
             bool fresh_connection) {
    curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(easy, CURLOPT_FRESH_CONNECT, fresh_connection ? 1L : 0L);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &response.body);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, append_header);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, &response);
    if (request.method == "HEAD") {
        curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
    } else if (request.method != "GET") {
        curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    }
    if (has_request_body(request)) {
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, request.body.data());
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE,
                         static_cast<curl_off_t>(request.body.size()));
    }
}

// The attempt's time limit: attempt_timeout, shortened to the time left; none without either.
std::optional<Duration> attempt_limit(const AttemptInfo& info) {
    std::optional<Duration> limit = info.attempt_timeout;
    if (info.time_left) {
        limit = limit ? std::min(*limit, *info.time_left) : *info.time_left;
    }
    return limit;
}

AttemptOutcome perform(CURL* easy, const HttpRequest& request, HttpResponse& response,
                       const AttemptInfo& info) {
    response = HttpResponse{};
    const std::optional<Duration> limit = attempt_limit(info);
    // 0 means no limit to curl, so a limit that has run out becomes 1 ms.
    const long timeout_ms =
        limit ? std::max(1L,
                         static_cast<long>(
                             std::chrono::duration_cast<std::chrono::milliseconds>(*limit).count()))
              : 0L;
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, timeout_ms);
    AttemptOutcome outcome;
    outcome.code = curl_easy_perform(easy);
    outcome.received = std::chrono::system_clock::now();
    outcome.progress = transfer_progress(easy, static_cast<curl_off_t>(request.body.size()));
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &response.status);
    outcome.response = response;
    return outcome;
}

std::vector<http::Header> views_of(const std::vector<std::pair<std::string, std::string>>& fields) {
    std::vector<http::Header> views;
    views.reserve(fields.size());
    for (const auto& [name, value] : fields) {
        views.push_back({name, value});
    }
    return views;
}

}  // namespace

http::Classification classify_attempt(const HttpRequest& request, bool declared_idempotent,
                                      const AttemptOutcome& outcome) {
    const std::vector<http::Header> request_headers = views_of(request.headers);
    const http::Request classified{request.method, request_headers, declared_idempotent};
    if (outcome.code == CURLE_OK) {
        const std::vector<http::Header> response_headers = views_of(outcome.response.headers);
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
        Easy easy(curl_easy_init());
        if (!easy) {
            throw std::bad_alloc();
        }
        return easy;
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

HttpClient::HttpClient(const RetryExecutor& executor)
    : executor_(&executor), handles_(std::make_unique<Handles>()) {
    initialise_curl_once();
}

HttpClient::~HttpClient() = default;

CallResult HttpClient::call(std::string_view handler, const HttpRequest& request,
                            const RunOptions& options) const {
    HandlerResolution resolution = executor_->resolve(handler);
    const bool declared_idempotent = resolution.idempotent;
    const std::vector<http::Header> request_headers = views_of(request.headers);
    const bool idempotent =
        http::is_idempotent(http::Request{request.method, request_headers, declared_idempotent});
    const Handles::Lease easy(*handles_);
    const HeaderList headers = header_list(request);
    HttpResponse response;
    prepare(easy.get(), request, headers.get(), response, !idempotent);

    CallResult result;
    result.run = executor_->run(
        std::move(resolution), handler,
        [&](const AttemptInfo& info) -> std::optional<Error> {
            const AttemptOutcome outcome = perform(easy.get(), request, response, info);
            if (outcome.response.status != 0) {
                result.response = outcome.response;
            }
            const http::Classification classified =
                classify_attempt(request, declared_idempotent, outcome);
            if (!classified.failed()) {
                return std::nullopt;
            }
            ErrorDescription description = classified.error();
            if (outcome.code != CURLE_OK) {
                description.message = curl_easy_strerror(outcome.code);  // a static string
            }
            return Error(description);
        },
        options);
    return result;
}

}  // namespace rebound::curl
