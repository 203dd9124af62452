// Runs HTTP requests through libcurl under a retry policy with the blocking executor
// (docs/protocols.md). Each attempt is one curl_easy_perform on a handle kept for the call, so
// a healthy connection is reused between attempts. The attempt's timeout is the policy's
// attempt_timeout, shortened to the time left before the deadline. Failures classify with
// rebound::http: transport failures by how far the request got, responses by status and
// Retry-After; the handler's declared idempotence makes POST and PATCH retryable after an
// ambiguous failure, as an Idempotency-Key header does.
#pragma once

#include <chrono>
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

// One attempt as curl reported it.
struct AttemptOutcome {
    CURLcode code = CURLE_OK;
    TransferProgress progress;
    HttpResponse response;
    std::chrono::system_clock::time_point received;
};

// The classification of one attempt (`failed()` is false for a 2xx or 3xx response): a response
// by its status and headers, a transport failure by how far the request got, any other CURLcode
// as `client_error`.
http::Classification classify_attempt(const HttpRequest& request, bool declared_idempotent,
                                      const AttemptOutcome& outcome);

struct CallResult {
    RunResult run;
    HttpResponse response;  // of the last attempt that got a response
};

class HttpClient {
  public:
    // The executor must outlive the client.
    explicit HttpClient(const RetryExecutor& executor);

    // Sends `request` under the policy of `handler`, retrying as it says.
    CallResult call(std::string_view handler, const HttpRequest& request,
                    const RunOptions& options = {}) const;

  private:
    const RetryExecutor* executor_;
};

}  // namespace rebound::curl
