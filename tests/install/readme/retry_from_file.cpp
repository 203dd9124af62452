#include <cstdio>
#include <rebound/dsl/load.hpp>
#include <rebound/retry_executor.hpp>

int calls = 0;
void fetch() {  // fails twice with a retryable error, then succeeds
    if (++calls < 3)
        throw rebound::Error(rebound::ErrorCategory::ConnectionLost, "reset");
}

int main() {
    const auto policies = rebound::dsl::load_file_or_throw("retry.yaml");  // throws on any error
    const rebound::RunResult r =
        rebound::RetryExecutor().run(policies->resolve("fetch"), "fetch", fetch);
    std::printf("%s after %d attempts\n", rebound::to_string(r.outcome).data(), r.attempts);
    return r.succeeded() ? 0 : 1;
}
