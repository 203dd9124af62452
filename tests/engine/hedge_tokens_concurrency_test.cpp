// HedgeTokens from many threads at once (label concurrency: under ThreadSanitizer in CI).
#include <atomic>
#include <catch2/catch.hpp>
#include <latch>
#include <thread>
#include <vector>

#include "rebound/hedge_tokens.hpp"

TEST_CASE("threads starting runs and hedges never take more than the tokens earned",
          "[concurrency][hedge]") {
    constexpr int kThreads = 4;
    constexpr int kRunsPerThread = 20000;
    rebound::HedgeTokens tokens({10, 0.05});
    std::atomic<int> hedges{0};
    std::latch start(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
            start.arrive_and_wait();
            for (int run = 0; run < kRunsPerThread; ++run) {
                tokens.run_started();
                // Every run tries two hedges; a suppressed one takes nothing.
                for (int hedge = 0; hedge < 2; ++hedge) {
                    if (tokens.try_take()) {
                        hedges.fetch_add(1, std::memory_order_relaxed);
                    }
                }
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    // Over R runs, hedges started <= burst + max_extra_load * R. Nothing earned is lost but what
    // runs earned while the tokens were full (at the start, before the first hedges took them).
    const double runs = kThreads * kRunsPerThread;
    CHECK(hedges.load() <= 10 + 0.05 * runs);
    CHECK(hedges.load() + tokens.tokens() >= 10 + 0.05 * runs - 0.05 * kThreads - 1e-6);
    CHECK(tokens.tokens() >= 0.0);
    CHECK(tokens.tokens() < 1.0);
}
