// The parts of a libcurl easy handle set up for one HttpRequest: its options, its header list and
// the callbacks that collect the response (private to rebound::curl).
#pragma once

#include <curl/curl.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rebound/curl/http_client.hpp"
#include "rebound/duration.hpp"
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

// Sets the request's URL, method, headers and body, and collects the response into `response`.
// The handle keeps pointers into `request`, `headers` and `response`, which must outlive its use.
void set_request(CURL* easy, const HttpRequest& request, curl_slist* headers,
                 HttpResponse& response);

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

// What curl reported of a finished transfer of `request`: its code, how far it got and the
// response's status (the headers and body are in the response set_request collected into).
AttemptOutcome finished_transfer(CURL* easy, CURLcode code, const HttpRequest& request,
                                 const HttpResponse& response);

}  // namespace rebound::curl::detail
