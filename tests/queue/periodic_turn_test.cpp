// PeriodicTurn (adapters/queue/src/periodic_turn.hpp): one thread of a pool settles the expired
// leases per period (docs/queue.md, "Lease expiry"). Run under ThreadSanitizer in CI (label
// concurrency).
#include <catch2/catch.hpp>

#include <atomic>
#include <barrier>
#include <chrono>
#include <thread>
#include <vector>

#include "periodic_turn.hpp"

namespace rebound::testing {
namespace {

using namespace std::chrono_literals;
using Turn = queue::detail::PeriodicTurn;
using TimePoint = Turn::TimePoint;

TEST_CASE("periodic turn: the first call takes it, then one call per period", "[queue][turn]") {
    Turn turn(250ms);
    const TimePoint start{1000s};
    CHECK(turn.take(start));
    CHECK_FALSE(turn.take(start));
    CHECK_FALSE(turn.take(start + 249ms));
    CHECK(turn.take(start + 250ms));
    CHECK_FALSE(turn.take(start + 250ms));
    // The period counts from the turn taken, not from when it was due.
    CHECK(turn.take(start + 900ms));
    CHECK_FALSE(turn.take(start + 1149ms));
    CHECK(turn.take(start + 1150ms));
}

TEST_CASE("periodic turn: an earlier time than the last turn's does not take it", "[queue][turn]") {
    Turn turn(1s);
    CHECK(turn.take(TimePoint{50s}));
    CHECK_FALSE(turn.take(TimePoint{49s}));
    CHECK_FALSE(turn.take(TimePoint{0s}));
    CHECK(turn.take(TimePoint{51s}));
}

TEST_CASE("periodic turn: of many threads asking at once, exactly one takes each turn",
          "[queue][turn]") {
    constexpr int kThreads = 8;
    constexpr int kRounds = 200;
    Turn turn(1s);
    std::atomic<int> taken[kRounds] = {};
    std::barrier round_start(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
            for (int round = 0; round < kRounds; ++round) {
                round_start.arrive_and_wait();
                // Every thread asks twice within the round's period.
                const TimePoint now{std::chrono::seconds(10 + round)};
                for (const TimePoint at : {now, now + 500ms}) {
                    if (turn.take(at)) {
                        taken[round].fetch_add(1, std::memory_order_relaxed);
                    }
                }
            }
        });
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    int rounds_with_one_turn = 0;
    for (const std::atomic<int>& count : taken) {
        rounds_with_one_turn += count.load() == 1 ? 1 : 0;
    }
    CHECK(rounds_with_one_turn == kRounds);
}

}  // namespace
}  // namespace rebound::testing
