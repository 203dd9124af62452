// Runs HTTP requests through libcurl under a retry policy with the blocking executor
// (docs/protocols.md). Each attempt is one curl_easy_perform. The client keeps the easy handles
// of finished calls and gives them to later calls, so a call reuses the open (keep-alive)
// connections of an earlier one instead of connecting again; a request that is not idempotent
// always gets a new connection (see HttpClient). The attempt's timeout is the policy's
// attempt_timeout, shortened to the time left before the deadline, or TransferLimits'
// default_timeout when the policy has neither; connecting and the response body have limits of
// their own (TransferLimits). Failures classify with
// rebound::http: transport failures by how far the request got, responses by status and
// Retry-After; the handler's declared idempotence makes POST and PATCH retryable after an
// ambiguous failure, as an Idempotency-Key header does.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rebound/curl/transfer_failure.hpp"
#include "rebound/duration.hpp"
#include "rebound/http/classification.hpp"
#include "rebound/retry_executor.hpp"

namespace rebound::curl {

struct HttpRequest {
    std::string method = "GET";
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
};

struct HttpResponse {
    long status = 0;  // 0 when no status line arrived
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
};

// Limits every transfer of a client has, whatever the policy says (docs/protocols.md,
// "Limits"). The defaults keep a call against a server that never answers, or answers without
// end, from holding a thread or the process's memory for ever.
struct TransferLimits {
    static constexpr std::size_t kDefaultMaxBodySize = std::size_t{64} << 20;  // 64 MiB
    static constexpr Duration kDefaultConnectTimeout = std::chrono::seconds(10);
    static constexpr Duration kDefaultTimeout = std::chrono::seconds(60);

    // The largest response body kept, in bytes. A larger one (by its Content-Length, or as it
    // arrives) ends the transfer and fails the attempt with `data_error`, which is not retried
    // by default. The body kept never exceeds it (while a body of unknown length grows, its
    // string's reallocation may briefly hold about twice as much).
    std::size_t max_body_size = kDefaultMaxBodySize;
    // How long name resolution, the TCP connect and the TLS handshake may take together
    // (CURLOPT_CONNECTTIMEOUT_MS); then the attempt fails as `connect` (connection_failure).
    Duration connect_timeout = kDefaultConnectTimeout;
    // A transfer's time limit when the policy gives none (neither `deadline` nor
    // `attempt_timeout`); the policy's limit replaces it otherwise. nullopt: no limit, and a
    // server that accepts and never answers holds the call for ever.
    std::optional<Duration> default_timeout = kDefaultTimeout;
};

// One attempt as curl reported it.
struct AttemptOutcome {
    CURLcode code = CURLE_OK;
    TransferProgress progress;
    HttpResponse response;
    std::chrono::system_clock::time_point received;
    // The body was over TransferLimits::max_body_size (the transfer stopped; `response.body`
    // is empty).
    bool body_too_large = false;
};

// The classification of one attempt (`failed()` is false for a 2xx or 3xx response): a body
// over the limit as `data_error` (whatever the status), a response by its status and headers, a
// transport failure by how far the request got, any other CURLcode as `client_error`.
http::Classification classify_attempt(const HttpRequest& request, bool declared_idempotent,
                                      const AttemptOutcome& outcome);

struct CallResult {
    RunResult run;
    HttpResponse response;  // of the last attempt that got a response
};

// Safe to call from many threads at once. Each call takes an easy handle that no other call
// is using (a kept one, else a new one) and gives it back when it ends; a handle keeps its open
// connections (libcurl's connection cache) between calls, so the client holds at most as many
// handles, and about as many connections per server, as calls were ever in flight at once.
// A request that is not idempotent (http::is_idempotent, with the handler's declared
// idempotence) is sent on a new connection, never on a kept one: libcurl sends a request again
// by itself when a kept connection turns out closed before any answer, which for such a request
// could apply it twice.
class HttpClient {
  public:
    // The executor must outlive the client. Throws std::invalid_argument for limits of 0.
    explicit HttpClient(const RetryExecutor& executor, TransferLimits limits = {});
    ~HttpClient();
    HttpClient(const HttpClient&) = delete;
    HttpClient& operator=(const HttpClient&) = delete;

    // Sends `request` under the policy of `handler`, retrying as it says.
    CallResult call(std::string_view handler, const HttpRequest& request,
                    const RunOptions& options = {}) const;

  private:
    class Handles;

    const RetryExecutor* executor_;
    TransferLimits limits_;
    std::unique_ptr<Handles> handles_;
};

}  // namespace rebound::curl
