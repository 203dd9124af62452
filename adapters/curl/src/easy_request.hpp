// The parts of a libcurl easy handle set up for one HttpRequest: its options, its header list and
// the callbacks that collect the response (private to rebound::curl).
#pragma once

#include <curl/curl.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rebound/curl/http_client.hpp"
#include "rebound/duration.hpp"
#include "rebound/error_exception.hpp"
#include "rebound/http/classification.hpp"
#include "rebound/http/header.hpp"

namespace rebound::curl::detail {

// curl_global_init is not thread-safe and must run once per process before any handle.
void initialise_curl_once();

struct EasyDeleter {
    void operator()(CURL* easy) const noexcept { curl_easy_cleanup(easy); }
};
struct ListDeleter {
    void operator()(curl_slist* list) const noexcept { curl_slist_free_all(list); }
};
using Easy = std::unique_ptr<CURL, EasyDeleter>;
using HeaderList = std::unique_ptr<curl_slist, ListDeleter>;

// A new easy handle; throws std::bad_alloc when curl cannot make one.
Easy make_easy();

// The request's headers as curl takes them; throws std::bad_alloc.
HeaderList header_list(const HttpRequest& request);

// Throws std::invalid_argument, naming the field, for a limit of 0 or less.
void check_limits(const TransferLimits& limits);

// Where a transfer's response goes: the response being collected, and whether its body went over
// the limit (the write callback then ends the transfer).
struct ResponseSink {
    HttpResponse response;
    std::size_t max_body_size = TransferLimits::kDefaultMaxBodySize;
    bool body_too_large = false;

    // Empties it for the next attempt on the same handle.
    void clear() {
        response = HttpResponse{};
        body_too_large = false;
    }
};

// Sets the request's URL, method, headers and body, the limits (connect timeout, largest body),
// and collects the response into `sink`. The handle keeps pointers into `request`, `headers` and
// `sink`, which must outlive its use.
void set_request(CURL* easy, const HttpRequest& request, curl_slist* headers, ResponseSink& sink,
                 const TransferLimits& limits);

// The time limit of one transfer: the attempt's (attempt_time_limit), else the default for a
// policy without one (TransferLimits::default_timeout).
std::optional<Duration> transfer_limit(std::optional<Duration> attempt_limit,
                                       const TransferLimits& limits) noexcept;

// Views of header fields, for the classification (valid while `fields` lives).
std::vector<http::Header> header_views(
    const std::vector<std::pair<std::string, std::string>>& fields);

// Whether `request` may be repeated (http::is_idempotent: its method, an Idempotency-Key, or the
// handler's declared idempotence).
bool is_idempotent(const HttpRequest& request, bool declared_idempotent);

// A request that may not be repeated goes on a new connection: on a reused connection that
// closes before any answer, libcurl sends the request again by itself, and a POST the server
// had applied would be applied twice.
void set_connection_reuse(CURL* easy, const HttpRequest& request, bool declared_idempotent);

// CURLOPT_TIMEOUT_MS for a time limit: 0 (none) without one, at least 1 ms with one (0 would
// mean no limit to curl).
long timeout_ms(std::optional<Duration> limit) noexcept;

// What curl reported of a finished transfer of `request`: its code, how far it got, the
// response's status, headers and body (from the sink set_request collected into), and whether
// the body went over the limit.
AttemptOutcome finished_transfer(CURL* easy, CURLcode code, const HttpRequest& request,
                                 const ResponseSink& sink);

// The error of a classified attempt that failed (classify_attempt): curl's message for a failed
// transfer, the limit for a body over it.
Error attempt_error(const http::Classification& classified, const AttemptOutcome& outcome,
                    const TransferLimits& limits);

}  // namespace rebound::curl::detail
