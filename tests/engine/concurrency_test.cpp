// Run under ThreadSanitizer in CI (ctest label `concurrency`).
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <future>
#include <latch>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "rebound/circuit_breaker.hpp"
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

namespace {

// Runs `body(thread_index)` on `count` threads at once and waits for all of them.
template <typename Body>
void run_threads(int count, Body body) {
    std::vector<std::thread> threads;
    for (int t = 0; t < count; ++t) {
        threads.emplace_back(body, t);
    }
    for (auto& thread : threads) {
        thread.join();
    }
}

}  // namespace

TEST_CASE("four threads draining a striped budget allow exactly the retries above half",
          "[concurrency][budget]") {
    constexpr int kFailuresPerThread = 30000;
    rebound::RetryBudget budget({100000, 1.0});
    std::atomic<int> allowed{0};
    run_threads(4, [&](int) {
        int mine = 0;
        for (int i = 0; i < kFailuresPerThread; ++i) {
            mine += budget.record_failure_and_check() ? 1 : 0;
        }
        allowed.fetch_add(mine);
    });
    // Exactly the takes that left 99999 down to 50001 tokens: an allow at or below the
    // threshold, or a refusal above it, changes the count.
    CHECK(allowed.load() == 49999);
    CHECK(budget.tokens() == 0.0);
    run_threads(4, [&](int) {
        for (int i = 0; i < 25000; ++i) {
            budget.record_success();
        }
    });
    CHECK(budget.tokens() == 100000.0);
}

TEST_CASE("four threads mixing failures and successes on one budget keep exact totals",
          "[concurrency][budget]") {
    rebound::RetryBudget budget({100000, 0.5});
    for (int i = 0; i < 25000; ++i) {
        (void)budget.record_failure_and_check();
    }
    REQUIRE(budget.tokens() == 75000.0);
    std::atomic<int> allowed{0};
    // Per thread 5000 failures and 10000 successes of 0.5: whatever the interleaving the count
    // stays within 55000..95000, above the threshold and below the cap, so every failure is
    // allowed and the final count is exact.
    run_threads(4, [&](int t) {
        int mine = 0;
        for (int i = 0; i < 5000; ++i) {
            if (t % 2 == 0) {
                mine += budget.record_failure_and_check() ? 1 : 0;
                budget.record_success();
                budget.record_success();
            } else {
                budget.record_success();
                budget.record_success();
                mine += budget.record_failure_and_check() ? 1 : 0;
            }
        }
        allowed.fetch_add(mine);
    });
    CHECK(allowed.load() == 20000);
    CHECK(budget.tokens() == 75000.0);
}

TEST_CASE("threads taking and giving back budget tokens around the threshold keep exact totals",
          "[concurrency][budget]") {
    // 100 tokens: start just above the threshold so stripe-local steps, exact steps, refusals
    // and the floor all occur while four threads race.
    rebound::RetryBudget budget({100, 1.0});
    for (int i = 0; i < 48; ++i) {
        (void)budget.record_failure_and_check();
    }
    REQUIRE(budget.tokens() == 52.0);
    std::atomic<int> allowed{0};
    run_threads(4, [&](int) {
        int mine = 0;
        for (int i = 0; i < 20000; ++i) {
            mine += budget.record_failure_and_check() ? 1 : 0;
            budget.record_success();
        }
        allowed.fetch_add(mine);
    });
    // Each thread holds at most one token between its failure and its success, so the count
    // stays within 48..52 and ends back at 52. A retry needs more than 50 left after the take.
    // The first step of all is a failure at 52 tokens: at least one retry was allowed.
    CHECK(budget.tokens() == 52.0);
    CHECK(allowed.load() > 0);
}

TEST_CASE("threads alternating on a full striped budget are always allowed",
          "[concurrency][budget]") {
    rebound::RetryBudget budget({100, 1.0});
    std::atomic<int> allowed{0};
    run_threads(4, [&](int) {
        int mine = 0;
        for (int i = 0; i < 50000; ++i) {
            mine += budget.record_failure_and_check() ? 1 : 0;
            budget.record_success();
        }
        allowed.fetch_add(mine);
    });
    // At most four tokens are out at once: never near the threshold of 50.
    CHECK(allowed.load() == 200000);
    CHECK(budget.tokens() == 100.0);
}

TEST_CASE("budget mode changes racing with stripe steps keep every decision and total exact",
          "[concurrency][budget]") {
    // 1000 tokens, ratio 0.5: stripes of 31.25 tokens, striped floor 750, back to stripes at 875.
    // Two threads only fail (filling their stripes, then switching to exact mode) while two only
    // succeed (switching back at 875). From 875, 120 failures and 240 half-token successes keep
    // the count within 755..995: every failure is allowed, and the end is exactly 875.
    int wrong_rounds = 0;
    for (int round = 0; round < 200; ++round) {
        rebound::RetryBudget budget({1000, 0.5});
        for (int i = 0; i < 125; ++i) {
            (void)budget.record_failure_and_check();
        }
        REQUIRE(budget.tokens() == 875.0);
        std::atomic<int> allowed{0};
        run_threads(4, [&](int t) {
            for (int i = 0; i < (t < 2 ? 60 : 120); ++i) {
                if (t < 2) {
                    allowed.fetch_add(budget.record_failure_and_check() ? 1 : 0);
                } else {
                    budget.record_success();
                }
            }
        });
        if (allowed.load() != 120 || budget.tokens() != 875.0) {
            ++wrong_rounds;
        }
    }
    CHECK(wrong_rounds == 0);
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

TEST_CASE("threads share one breaker through trips and recoveries, every permit accounted for",
          "[concurrency][breaker]") {
    rebound::BreakerSettings settings;
    settings.name = "shared";
    settings.minimum_calls = 20;
    settings.failure_ratio = 0.5;
    settings.window = 100ms;
    settings.open_for = 1ms;
    settings.max_open_for = 4ms;
    settings.half_open_calls = 3;
    const rebound::CircuitBreaker::TimePoint t0{};
    rebound::CircuitBreaker breaker(settings, t0);
    std::atomic<std::int64_t> now_us{0};
    std::atomic<bool> done{false};
    std::atomic<std::uint64_t> refused{0};
    std::atomic<std::uint64_t> admitted{0};
    std::mutex mutex;
    std::map<std::uint64_t, int> half_open_held;  // by generation
    int most_held_at_once = 0;

    const auto worker = [&](int seed) {
        std::uint64_t state =
            static_cast<std::uint64_t>(seed) * std::uint64_t{0x9E3779B97F4A7C15} + 1;
        for (int i = 0; i < 20000; ++i) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            const auto now = t0 + rebound::Duration{now_us.load()};
            const rebound::BreakerPermit permit = breaker.acquire(now);
            if (!permit) {
                refused.fetch_add(1);
                continue;
            }
            admitted.fetch_add(1);
            if (permit.admitted_in == rebound::BreakerState::HalfOpen) {
                const std::lock_guard lock(mutex);
                most_held_at_once =
                    std::max(most_held_at_once, ++half_open_held[permit.generation]);
            }
            // Phases of 200ms, longer than the 100ms window, so that a failing phase fills the
            // window with failures however fast the ticker runs: mostly failures, then mostly
            // successes. (Phases shorter than the window averaged to a share below the ratio,
            // and the breaker tripped only when the first phase happened to be slow.)
            const bool failing = (now_us.load() / 200'000) % 2 == 0;
            const bool fails = failing ? state % 10 < 8 : state % 10 < 1;
            if (permit.admitted_in == rebound::BreakerState::HalfOpen) {
                const std::lock_guard lock(mutex);
                --half_open_held[permit.generation];
            }
            if (state % 50 == 0) {
                breaker.release(permit, now);
            } else if (fails) {
                breaker.record_error(permit, ErrorDescription::of(ErrorCategory::Deadlock), now);
            } else {
                breaker.record_success(permit, 1ms, now);
            }
        }
    };
    std::thread ticker([&] {
        while (!done.load()) {
            now_us.fetch_add(50);
            std::this_thread::yield();
        }
    });
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back(worker, t + 1);
    }
    for (auto& thread : threads) {
        thread.join();
    }
    done.store(true);
    ticker.join();

    const auto snapshot = breaker.snapshot(t0 + rebound::Duration{now_us.load()});
    CHECK(admitted.load() + refused.load() == 80000u);
    CHECK(snapshot.refused == refused.load());
    CHECK(most_held_at_once <= settings.half_open_calls);
    CHECK(snapshot.half_open_permits_in_use == 0);  // every permit's outcome was recorded
    CHECK(snapshot.transitions_to[static_cast<std::size_t>(rebound::BreakerState::Open)] > 0);
}

// Probes held while another probe fails and the breaker re-opens, then half-opens again: threads
// race for probes of each half-open state while those of the earlier one are still out, and
// together never hold more than half_open_calls (counted per state, 3 + 2 were held with
// half_open_calls: 3). Then every probe comes back at once, and each frees its place.
TEST_CASE("probes in flight never exceed half_open_calls across re-opens",
          "[concurrency][breaker]") {
    rebound::BreakerSettings settings;
    settings.name = "flaky";
    settings.trip = rebound::BreakerTrip::Consecutive;
    settings.consecutive_failures = 1;
    settings.open_for = 1ms;
    settings.half_open_calls = 3;
    const rebound::CircuitBreaker::TimePoint t0{};
    const auto at = [&](int ms) { return t0 + std::chrono::milliseconds(ms); };
    const auto failure = ErrorDescription::of(ErrorCategory::Deadlock);
    constexpr int kThreads = 4;
    std::atomic<int> probes_held{0};
    std::atomic<int> most_held{0};

    for (int round = 0; round < 20; ++round) {
        rebound::CircuitBreaker breaker(settings, t0);
        const rebound::BreakerPermit first = breaker.acquire(at(0));
        breaker.record_error(first, failure, at(0));  // open until 1ms
        // Each thread asks for a probe at `when` once all have started, and holds what it got
        // until every thread of the race asked (counted from after the breaker admitted it to
        // before it goes back: never more than the breaker counts).
        const auto race = [&](int when, std::vector<rebound::BreakerPermit>& got) {
            std::latch asked(kThreads);
            std::vector<std::thread> threads;
            for (int t = 0; t < kThreads; ++t) {
                threads.emplace_back([&, t] {
                    asked.arrive_and_wait();  // all at once
                    got[static_cast<std::size_t>(t)] = breaker.acquire(at(when));
                    if (got[static_cast<std::size_t>(t)].admitted) {
                        const int held = probes_held.fetch_add(1) + 1;
                        int most = most_held.load();
                        while (held > most && !most_held.compare_exchange_weak(most, held)) {
                        }
                    }
                });
            }
            for (auto& thread : threads) {
                thread.join();
            }
        };
        std::vector<rebound::BreakerPermit> earlier(kThreads);
        race(1, earlier);  // half-open: three probes
        const auto failed = std::find_if(earlier.begin(), earlier.end(),
                                         [](const auto& permit) { return permit.admitted; });
        REQUIRE(failed != earlier.end());
        probes_held.fetch_sub(1);
        breaker.record_error(*failed, failure, at(1));  // open again until 3ms, two still out
        failed->admitted = false;

        std::vector<rebound::BreakerPermit> later(kThreads);
        race(3, later);  // half-open again: room for one probe beside the two
        // Every probe comes back at once: the earlier ones (ignored outcomes) and the new ones.
        std::vector<std::thread> threads;
        for (auto* permits : {&earlier, &later}) {
            for (const rebound::BreakerPermit& permit : *permits) {
                if (permit.admitted) {
                    threads.emplace_back([&breaker, &probes_held, &at, permit] {
                        probes_held.fetch_sub(1);
                        breaker.record_success(permit, 1ms, at(4));
                    });
                }
            }
        }
        for (auto& thread : threads) {
            thread.join();
        }
        CHECK(breaker.snapshot(at(4)).half_open_permits_in_use == 0);
    }
    CHECK(most_held.load() <= settings.half_open_calls);
}

// More threads than the breaker has stripes of their own: those beyond share one, with
// compare-and-swap. No call may be lost either way.
TEST_CASE("more threads than stripes count every call of a closed breaker",
          "[concurrency][breaker]") {
    rebound::BreakerSettings settings;
    settings.name = "db";
    settings.minimum_calls = 1'000'000;
    settings.window = std::chrono::hours(1);
    rebound::CircuitBreaker breaker(settings, rebound::Clock::TimePoint{});
    constexpr int kThreads = 12;
    constexpr int kCalls = 2000;
    const auto now = rebound::Clock::TimePoint{} + std::chrono::seconds(1);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < kCalls; ++i) {
                const rebound::BreakerPermit permit = breaker.acquire(now);
                breaker.record_success(permit, std::chrono::milliseconds(1), now);
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    const rebound::BreakerSnapshot snapshot = breaker.snapshot(now);
    CHECK(snapshot.state == rebound::BreakerState::Closed);
    CHECK(snapshot.calls_in_window == std::uint64_t{kThreads} * kCalls);
}

// A ratio breaker that trips at half failures over 10 calls or more.
namespace {
rebound::BreakerSettings half_ratio_settings() {
    rebound::BreakerSettings settings;
    settings.name = "db";
    settings.failure_ratio = 0.5;
    settings.minimum_calls = 10;
    settings.window = 10s;
    return settings;
}
}  // namespace

// Two live threads hold different stripes. The failing thread's stripe is over the ratio and the
// succeeding thread's is under it, so the succeeding thread's checks must sum both stripes: the
// success that brings the window to minimum_calls trips the breaker.
TEST_CASE(
    "a success on one thread trips the breaker once another thread's failures reach the ratio",
    "[concurrency][breaker]") {
    rebound::CircuitBreaker breaker(half_ratio_settings(), rebound::Clock::TimePoint{});
    const auto now = rebound::Clock::TimePoint{} + 1s;
    const auto failure = ErrorDescription::of(ErrorCategory::ConnectionLost);
    std::promise<void> failures_recorded;
    std::promise<void> finished;
    std::thread failing([&, finished_future = finished.get_future()] {
        for (int i = 0; i < 5; ++i) {
            breaker.record_error(breaker.acquire(now), failure, now);
        }
        failures_recorded.set_value();
        finished_future.wait();  // keeps this thread's stripe while the other thread records
    });
    failures_recorded.get_future().wait();
    CHECK(breaker.snapshot(now).state == rebound::BreakerState::Closed);  // 5 calls of 10

    // In the failures' bucket the failing stripe's verdict says it is over the ratio; in a later
    // bucket of the same window it has no verdict yet, and its counts must say so.
    const auto later = GENERATE(0s, 1s, 5s);
    const auto success_time = now + later;
    INFO("successes " << later.count() << "s after the failures");
    std::vector<rebound::BreakerState> after_each_success;
    std::thread succeeding([&] {
        for (int i = 0; i < 5; ++i) {
            breaker.record_success(breaker.acquire(success_time), 1ms, success_time);
            after_each_success.push_back(breaker.snapshot(success_time).state);
        }
    });
    succeeding.join();
    finished.set_value();
    failing.join();
    using rebound::BreakerState;
    CHECK(after_each_success == std::vector{BreakerState::Closed, BreakerState::Closed,
                                            BreakerState::Closed, BreakerState::Closed,
                                            BreakerState::Open});
}

// Both stripes stay under the ratio: no trip, however the calls are spread, and the window counts
// every call.
TEST_CASE("two threads each under the failure ratio never trip the breaker",
          "[concurrency][breaker]") {
    rebound::CircuitBreaker breaker(half_ratio_settings(), rebound::Clock::TimePoint{});
    const auto now = rebound::Clock::TimePoint{} + 1s;
    const auto failure = ErrorDescription::of(ErrorCategory::ConnectionLost);
    constexpr int kCalls = 3000;
    const auto run = [&] {
        for (int i = 0; i < kCalls; ++i) {
            const rebound::BreakerPermit permit = breaker.acquire(now);
            if (i % 3 == 0) {
                breaker.record_error(permit, failure, now);
            } else {
                breaker.record_success(permit, 1ms, now);
            }
        }
    };
    std::thread first(run);
    std::thread second(run);
    first.join();
    second.join();
    const rebound::BreakerSnapshot snapshot = breaker.snapshot(now);
    CHECK(snapshot.state == rebound::BreakerState::Closed);
    CHECK(snapshot.calls_in_window == 2 * kCalls);
    CHECK(snapshot.failures_in_window == 2 * kCalls / 3);
}
