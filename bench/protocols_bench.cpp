// HTTP and gRPC failure classification (docs/protocols.md), Retry-After parsing included, against
// the C library's strptime + timegm reading the same date (what hand-written code often uses).
// Goal (issue 15): <= 200 ns per HTTP classification including Retry-After.
#include <benchmark/benchmark.h>

#include <chrono>
#include <ctime>
#include <vector>

#include "rebound/grpc/classification.hpp"
#include "rebound/http/classification.hpp"

namespace {

namespace http = rebound::http;

const std::chrono::system_clock::time_point kReceived =
    std::chrono::sys_days{std::chrono::year{2026} / 10 / 21} + std::chrono::hours(7);

// A typical response header block: the hint is not the first header.
std::vector<http::Header> response_headers(std::string_view retry_after) {
    return {{"Content-Type", "application/json"},
            {"Date", "Wed, 21 Oct 2026 07:00:00 GMT"},
            {"Content-Length", "42"},
            {"Retry-After", retry_after}};
}

void http_status(benchmark::State& state, std::string_view method, int status,
                 std::string_view retry_after) {
    const std::vector<http::Header> headers = response_headers(retry_after);
    const http::Request request{method, {}, false};
    for (auto _ : state) {
        const http::Classification c =
            http::classify_response(request, http::Response{status, headers, kReceived});
        benchmark::DoNotOptimize(c);
    }
}

void BM_http_503_retry_after_seconds(benchmark::State& state) {
    http_status(state, "GET", 503, "120");
}
void BM_http_429_retry_after_imf_date(benchmark::State& state) {
    http_status(state, "GET", 429, "Wed, 21 Oct 2026 07:28:00 GMT");
}
void BM_http_503_retry_after_rfc850_date(benchmark::State& state) {
    http_status(state, "POST", 503, "Wednesday, 21-Oct-26 07:28:00 GMT");
}
void BM_http_503_retry_after_asctime_date(benchmark::State& state) {
    http_status(state, "GET", 503, "Wed Oct 21 07:28:00 2026");
}
void BM_http_502_post_garbage_hint(benchmark::State& state) {
    http_status(state, "POST", 502, "soon");
}

void BM_http_transport_wait_post(benchmark::State& state) {
    const std::vector<http::Header> headers{{"Content-Type", "application/json"},
                                            {"Idempotency-Key", "8e03978e-40d5"}};
    const http::Request request{"POST", headers, false};
    for (auto _ : state) {
        benchmark::DoNotOptimize(http::classify_transport(request, http::TransportFailure::Wait));
    }
}

void BM_grpc_unavailable_pushback(benchmark::State& state) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(
            rebound::grpc::classify(rebound::GrpcStatus::Unavailable, std::string_view("250")));
    }
}

// Baseline: the date alone through strptime and timegm.
void BM_baseline_strptime_imf_date(benchmark::State& state) {
    const char* text = "Wed, 21 Oct 2026 07:28:00 GMT";
    for (auto _ : state) {
        std::tm tm{};
        const char* end = strptime(text, "%a, %d %b %Y %H:%M:%S GMT", &tm);
        benchmark::DoNotOptimize(end);
        benchmark::DoNotOptimize(timegm(&tm));
    }
}

}  // namespace

BENCHMARK(BM_http_503_retry_after_seconds);
BENCHMARK(BM_http_429_retry_after_imf_date);
BENCHMARK(BM_http_503_retry_after_rfc850_date);
BENCHMARK(BM_http_503_retry_after_asctime_date);
BENCHMARK(BM_http_502_post_garbage_hint);
BENCHMARK(BM_http_transport_wait_post);
BENCHMARK(BM_grpc_unavailable_pushback);
BENCHMARK(BM_baseline_strptime_imf_date);
BENCHMARK_MAIN();
