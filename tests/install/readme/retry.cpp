#include <cstdio>
#include <rebound/retry_executor.hpp>
using namespace std::chrono_literals;

int calls = 0;
void fetch() {  // fails twice with a retryable error, then succeeds
    if (++calls < 3)
        throw rebound::Error(rebound::ErrorCategory::ConnectionLost, "reset");
}

int main() {
    const auto policy = rebound::PolicyBuilder("fetch")
                            .max_attempts(4)
                            .backoff(rebound::Backoff::exponential(10ms, 2.0, 100ms))
                            .jitter(rebound::Jitter::equal())
                            .retry_on(rebound::Matcher::transient())
                            .build();
    const rebound::RunResult r = rebound::RetryExecutor().run({.policy = policy}, "fetch", fetch);
    std::printf("%s after %d attempts\n", rebound::to_string(r.outcome).data(), r.attempts);
    return r.succeeded() ? 0 : 1;
}
