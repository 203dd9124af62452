// LatenessHistogram, the queue's retry lateness summary (docs/metrics.md): counts, sum and
// percentiles, and exact totals when threads record at once (run under ThreadSanitizer in CI).
#include <catch2/catch.hpp>

#include <thread>
#include <vector>

#include "rebound/queue/lateness_histogram.hpp"

using rebound::queue::LatenessHistogram;

TEST_CASE("the lateness summary counts and sums what it records", "[queue][lateness]") {
    LatenessHistogram histogram;
    CHECK(histogram.count() == 0);
    CHECK(histogram.sum_microseconds() == 0);
    CHECK(histogram.percentile(0.5) == 0);
    histogram.record(1'000);
    histogram.record(3'000);
    histogram.record(-5);  // a retry that started before its due time counts as on time
    CHECK(histogram.count() == 3);
    CHECK(histogram.sum_microseconds() == 4'000);
    // Percentiles are bucket upper bounds, at most 12.5% above the value.
    CHECK(histogram.percentile(0.99) >= 3'000);
    CHECK(histogram.percentile(0.99) <= 3'375);
    CHECK(histogram.percentile(0.0) == 0);
}

TEST_CASE("the lateness summary loses no record when threads record at once", "[queue][lateness]") {
    LatenessHistogram histogram;
    constexpr int kPerThread = 20'000;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&histogram, t] {
            for (int i = 0; i < kPerThread; ++i) {
                histogram.record(t + 1);
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    CHECK(histogram.count() == 4 * kPerThread);
    CHECK(histogram.sum_microseconds() == static_cast<std::uint64_t>((1 + 2 + 3 + 4) * kPerThread));
}
