// Run under ThreadSanitizer in CI (ctest label `concurrency`).
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include "rebound/decision.hpp"
#include "rebound/sleeper.hpp"

using namespace std::chrono_literals;
using rebound::ErrorCategory;
using rebound::ErrorDescription;

TEST_CASE("two threads hammering one budget keep exact token accounting", "[concurrency][budget]") {
    constexpr int kFailuresPerThread = 50000;
    rebound::RetryBudget budget({100000, 1.0});
    std::atomic<int> allowed{0};
    const auto fail_many = [&] {
        for (int i = 0; i < kFailuresPerThread; ++i) {
            if (budget.record_failure_and_check()) {
                allowed.fetch_add(1, std::memory_order_relaxed);
            }
        }
    };
    std::thread a(fail_many);
    std::thread b(fail_many);
    a.join();
    b.join();
    // 100000 tokens, threshold 50000: exactly the failures that left more than 50000 were allowed.
    CHECK(budget.tokens() == 0.0);
    CHECK(allowed.load() == 49999);

    const auto succeed_many = [&] {
        for (int i = 0; i < kFailuresPerThread; ++i) {
            budget.record_success();
        }
    };
    std::thread c(succeed_many);
    std::thread d(succeed_many);
    c.join();
    d.join();
    CHECK(budget.tokens() == 100000.0);
}

TEST_CASE("mixed successes and failures from two threads sum exactly", "[concurrency][budget]") {
    rebound::RetryBudget budget({1000, 0.5});
    // Start from the middle so neither cap nor floor is reached: drain 400 tokens first.
    for (int i = 0; i < 400; ++i) {
        (void)budget.record_failure_and_check();
    }
    std::thread failures([&] {
        for (int i = 0; i < 200; ++i) {
            (void)budget.record_failure_and_check();
        }
    });
    std::thread successes([&] {
        for (int i = 0; i < 400; ++i) {
            budget.record_success();
        }
    });
    failures.join();
    successes.join();
    CHECK(budget.tokens() == 600.0);
}

TEST_CASE("many threads decide on one shared policy", "[concurrency][decision]") {
    const auto policy = rebound::PolicyBuilder("shared")
                            .max_attempts(5)
                            .retry_on(rebound::Matcher::transient())
                            .budget({100, 0.1})
                            .route(1s, "fast")
                            .route(10s, "slow")
                            .build();
    std::atomic<int> retries{0};
    std::atomic<std::int64_t> longest_delay_us{0};
    std::vector<std::thread> threads;
    // Catch2 assertions are not thread-safe: workers only record, the test thread checks.
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            rebound::SeededRandomSource random(static_cast<std::uint64_t>(t));
            for (int i = 0; i < 5000; ++i) {
                rebound::AttemptContext context;
                context.attempt = 1 + i % 5;
                const auto d = rebound::decide(
                    *policy, ErrorDescription::of(ErrorCategory::Deadlock), context, random);
                if (d.retry) {
                    retries.fetch_add(1, std::memory_order_relaxed);
                    std::int64_t seen = longest_delay_us.load();
                    while (d.delay.count() > seen &&
                           !longest_delay_us.compare_exchange_weak(seen, d.delay.count())) {
                    }
                }
                policy->record_success();
            }
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    CHECK(retries.load() > 0);
    CHECK(longest_delay_us.load() > 0);
    CHECK(longest_delay_us.load() <= std::chrono::microseconds(30s).count());
    CHECK(policy->budget()->tokens() <= 100.0);
}

TEST_CASE("the thread-local random source is usable from many threads", "[concurrency]") {
    std::vector<std::thread> threads;
    std::vector<std::uint64_t> firsts(4);
    for (std::size_t t = 0; t < firsts.size(); ++t) {
        threads.emplace_back([&firsts, t] { firsts[t] = rebound::default_random_source().next(); });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    // Seeded from the OS per thread: four equal first draws would mean a shared or fixed seed.
    CHECK_FALSE((firsts[0] == firsts[1] && firsts[1] == firsts[2] && firsts[2] == firsts[3]));
}

TEST_CASE("a thread sleeper wakes at once when its stop token is triggered", "[concurrency]") {
    std::stop_source stop;
    std::atomic<bool> completed{true};
    std::thread sleeper(
        [&] { completed = rebound::default_sleeper().sleep_for(1h, stop.get_token()); });
    std::this_thread::sleep_for(10ms);
    stop.request_stop();
    sleeper.join();  // would hang for an hour without the wake-up
    CHECK_FALSE(completed.load());
    CHECK(rebound::default_sleeper().sleep_for(1ms, std::stop_token{}));
    CHECK_FALSE(rebound::default_sleeper().sleep_for(1ms, stop.get_token()));
}
