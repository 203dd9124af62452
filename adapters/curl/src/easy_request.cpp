#include "easy_request.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/curl/transfer_failure.hpp"
#include "rebound/http/classification.hpp"
#include "rebound/http/header.hpp"

namespace rebound::curl::detail {
namespace {

// Appends to the body up to the limit; past it, ends the transfer (a count other than the one
// given makes curl stop with CURLE_WRITE_ERROR) before anything more is kept.
std::size_t append_body(char* data, std::size_t size, std::size_t count, void* target) {
    auto* sink = static_cast<ResponseSink*>(target);
    const std::size_t bytes = size * count;
    std::string& body = sink->response.body;
    if (bytes > sink->max_body_size - body.size()) {
        sink->body_too_large = true;
        body.clear();
        body.shrink_to_fit();
        return 0;  // bytes > 0 here
    }
    body.append(data, bytes);
    return bytes;
}

// One header line; a new status line (after a 100 Continue or a redirect) starts over.
std::size_t append_header(char* data, std::size_t size, std::size_t count, void* target) {
    HttpResponse* response = &static_cast<ResponseSink*>(target)->response;
    const std::string_view line(data, size * count);
    if (line.starts_with("HTTP/")) {
        response->headers.clear();
    } else if (const std::optional<http::Header> header = http::split_header_line(line)) {
        response->headers.emplace_back(std::string(header->name), std::string(header->value));
    }
    return size * count;
}

bool has_request_body(const HttpRequest& request) {
    return !request.body.empty() || request.method == "POST" || request.method == "PUT" ||
           request.method == "PATCH";
}

}  // namespace

void initialise_curl_once() {
    static const CURLcode initialised = curl_global_init(CURL_GLOBAL_DEFAULT);
    (void)initialised;
}

Easy make_easy() {
    initialise_curl_once();
    Easy easy(curl_easy_init());
    if (!easy) {
        throw std::bad_alloc();
    }
    return easy;
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

void check_limits(const TransferLimits& limits) {
    if (limits.max_body_size == 0) {
        throw std::invalid_argument("rebound::curl: max_body_size must be at least 1 byte");
    }
    if (limits.connect_timeout <= Duration::zero()) {
        throw std::invalid_argument("rebound::curl: connect_timeout must be positive");
    }
    if (limits.default_timeout && *limits.default_timeout <= Duration::zero()) {
        throw std::invalid_argument(
            "rebound::curl: default_timeout must be positive (nullopt for none)");
    }
}

void set_request(CURL* easy, const HttpRequest& request, curl_slist* headers, ResponseSink& sink,
                 const TransferLimits& limits) {
    sink.max_body_size = limits.max_body_size;
    curl_easy_setopt(easy, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &sink);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, append_header);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, &sink);
    curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms(limits.connect_timeout));
    if (request.method != "HEAD") {
        // A Content-Length over the limit ends the transfer before the body is read
        // (CURLE_FILESIZE_EXCEEDED); a body of unknown length is stopped by append_body.
        curl_easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE,
                         static_cast<curl_off_t>(std::min<std::size_t>(
                             limits.max_body_size,
                             static_cast<std::size_t>(std::numeric_limits<curl_off_t>::max()))));
    }
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

std::vector<http::Header> header_views(
    const std::vector<std::pair<std::string, std::string>>& fields) {
    std::vector<http::Header> views;
    views.reserve(fields.size());
    for (const auto& [name, value] : fields) {
        views.push_back({name, value});
    }
    return views;
}

bool is_idempotent(const HttpRequest& request, bool declared_idempotent) {
    const std::vector<http::Header> headers = header_views(request.headers);
    return http::is_idempotent(http::Request{request.method, headers, declared_idempotent});
}

void set_connection_reuse(CURL* easy, const HttpRequest& request, bool declared_idempotent) {
    curl_easy_setopt(easy, CURLOPT_FRESH_CONNECT,
                     is_idempotent(request, declared_idempotent) ? 0L : 1L);
}

long timeout_ms(std::optional<Duration> limit) noexcept {
    if (!limit) {
        return 0L;
    }
    return std::max(1L, static_cast<long>(
                            std::chrono::duration_cast<std::chrono::milliseconds>(*limit).count()));
}

std::optional<Duration> transfer_limit(std::optional<Duration> attempt_limit,
                                       const TransferLimits& limits) noexcept {
    return attempt_limit ? attempt_limit : limits.default_timeout;
}

AttemptOutcome finished_transfer(CURL* easy, CURLcode code, const HttpRequest& request,
                                 const ResponseSink& sink) {
    AttemptOutcome outcome;
    outcome.code = code;
    outcome.received = std::chrono::system_clock::now();
    outcome.progress = transfer_progress(easy, static_cast<curl_off_t>(request.body.size()));
    outcome.response = sink.response;
    outcome.body_too_large =
        code == CURLE_FILESIZE_EXCEEDED || (code == CURLE_WRITE_ERROR && sink.body_too_large);
    if (outcome.body_too_large) {
        outcome.response.body.clear();
    }
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &outcome.response.status);
    return outcome;
}

Error attempt_error(const http::Classification& classified, const AttemptOutcome& outcome,
                    const TransferLimits& limits) {
    ErrorDescription description = classified.error();
    std::string message;
    if (outcome.body_too_large) {
        message = "response body larger than max_body_size (" +
                  std::to_string(limits.max_body_size) + " bytes); HTTP status " +
                  std::to_string(outcome.response.status);
        description.message = message;
    } else if (outcome.code != CURLE_OK) {
        description.message = curl_easy_strerror(outcome.code);  // a static string
    }
    return Error(description);  // copies the message
}

}  // namespace rebound::curl::detail
