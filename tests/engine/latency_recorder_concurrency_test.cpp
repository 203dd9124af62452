// Run under ThreadSanitizer in CI (ctest label `concurrency`): the latency recorder of learned
// hedge delays recorded into and read from many threads at once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "rebound/handler_latencies.hpp"
#include "rebound/latency_recorder.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;
using rebound::Duration;
using rebound::LatencyRecorder;

namespace {

const LatencyRecorder::TimePoint kOrigin{std::chrono::hours(7)};
constexpr int kThreads = 4;

// Thread t's i-th latency: every thread a different mix of 1us to ~10s.
Duration latency_of(int thread, int i) {
    return Duration{1 + ((i * 7919 + thread * 104729) % 10'000'000)};
}

}  // namespace

TEST_CASE("threads recording at once into one bucket lose nothing", "[concurrency][latency]") {
    constexpr int kPerThread = 50000;
    LatencyRecorder recorder(30s, kOrigin);
    std::atomic<bool> done{false};
    // Catch2's assertions are for the test's own thread: the reader counts what it saw wrong.
    std::atomic<int> reads{0};
    std::atomic<int> wrong{0};
    std::thread reader([&] {
        std::uint64_t last = 0;
        while (!done.load()) {
            const std::uint64_t now_count = recorder.count(kOrigin + 2s);
            // Within one bucket the window only gains latencies.
            bool right = now_count >= last;
            last = now_count;
            if (const auto median = recorder.quantile(0.5, kOrigin + 2s)) {
                right = right && *median >= 1us && *median <= 10s;
            }
            wrong.fetch_add(right ? 0 : 1);
            reads.fetch_add(1);
        }
    });
    std::vector<std::thread> writers;
    for (int t = 0; t < kThreads; ++t) {
        writers.emplace_back([&recorder, t] {
            for (int i = 0; i < kPerThread; ++i) {
                recorder.record(latency_of(t, i), kOrigin + 2s);
            }
        });
    }
    for (std::thread& writer : writers) {
        writer.join();
    }
    done.store(true);
    reader.join();
    CHECK(reads.load() > 0);
    CHECK(wrong.load() == 0);

    std::vector<Duration> all;
    for (int t = 0; t < kThreads; ++t) {
        for (int i = 0; i < kPerThread; ++i) {
            all.push_back(latency_of(t, i));
        }
    }
    std::sort(all.begin(), all.end());
    CHECK(recorder.count(kOrigin + 2s) == all.size());
    for (const double q : {0.01, 0.5, 0.9, 0.99, 0.999}) {
        const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(all.size())));
        const double exact = static_cast<double>(all[rank - 1].count());
        const double estimate = static_cast<double>(recorder.quantile(q, kOrigin + 2s)->count());
        CHECK(std::abs(estimate - exact) <= 0.05 * exact);
    }
}

TEST_CASE("threads moving through buckets together keep the window exact",
          "[concurrency][latency]") {
    // window 1s: buckets of 100ms. Every thread records kPerBucket latencies in each bucket; a
    // barrier keeps them in the same bucket, so each bucket's slot was emptied ahead of time by
    // a record of the bucket before, and nothing is lost.
    constexpr int kBucketsCrossed = 35;
    constexpr int kPerBucket = 300;
    LatencyRecorder recorder(1s, kOrigin);
    std::barrier step(kThreads + 1);
    std::vector<std::thread> writers;
    for (int t = 0; t < kThreads; ++t) {
        writers.emplace_back([&, t] {
            for (int bucket = 0; bucket < kBucketsCrossed; ++bucket) {
                const auto now = kOrigin + bucket * 100ms + 50ms;
                for (int i = 0; i < kPerBucket; ++i) {
                    recorder.record(Duration{std::chrono::milliseconds(bucket + 1)}, now);
                }
                step.arrive_and_wait();  // the bucket is done
                step.arrive_and_wait();  // the main thread has checked it
            }
        });
    }
    for (int bucket = 0; bucket < kBucketsCrossed; ++bucket) {
        step.arrive_and_wait();
        const auto now = kOrigin + bucket * 100ms + 50ms;
        const int buckets_in_window = std::min(bucket + 1, 10);
        CHECK(recorder.count(now) ==
              static_cast<std::uint64_t>(buckets_in_window * kThreads * kPerBucket));
        // The oldest latency in the window is that of the oldest bucket in it.
        const double oldest = static_cast<double>(std::max(bucket - 9, 0) + 1) * 1000.0;
        CHECK(std::abs(static_cast<double>(recorder.quantile(0.0, now)->count()) - oldest) <=
              0.05 * oldest);
        step.arrive_and_wait();
    }
    for (std::thread& writer : writers) {
        writer.join();
    }
}

TEST_CASE("threads making and using handlers' recorders at once", "[concurrency][latency]") {
    constexpr int kPerThread = 20000;
    rebound::testing::ManualClock clock;
    rebound::HandlerLatencies latencies(clock);
    rebound::HedgeSettings hedge;
    hedge.learned = rebound::LearnedHedgeDelay{0.9, 0ms, 1s};
    hedge.warmup = 1;
    const std::vector<std::string> handlers{"a", "b", "c"};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kPerThread; ++i) {
                const std::string& handler = handlers[static_cast<std::size_t>(i + t) % 3];
                (void)latencies.hedge_delay(handler, hedge);  // makes the recorder if needed
                latencies.record(handler, latency_of(t, i % 1000));
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    std::uint64_t total = 0;
    for (const std::string& handler : handlers) {
        REQUIRE(latencies.recorder(handler) != nullptr);
        total += latencies.recorder(handler)->count(clock.now());
    }
    // Every record follows a hedge_delay of its handler on its own thread: none was dropped.
    CHECK(total == static_cast<std::uint64_t>(kThreads) * kPerThread);
}
