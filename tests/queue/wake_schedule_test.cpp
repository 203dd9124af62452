// WakeSchedule (adapters/queue/src/wake_schedule.hpp): the idle worker threads of a pool wake for
// the retries the pool wrote (docs/queue.md, "Waking for due retries"). Run under
// ThreadSanitizer in CI (label concurrency).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <stop_token>
#include <thread>
#include <vector>

#include "wake_schedule.hpp"

namespace rebound::testing {
namespace {

using namespace std::chrono_literals;
using Schedule = queue::detail::WakeSchedule;
using SteadyClock = std::chrono::steady_clock;

// Waits up to 10 s for `condition`.
template <typename Condition>
bool eventually(Condition condition) {
    const auto limit = SteadyClock::now() + 10s;
    while (!condition()) {
        if (SteadyClock::now() > limit) {
            return false;
        }
        std::this_thread::sleep_for(5ms);
    }
    return true;
}

TEST_CASE("wake schedule: an added due time wakes one sleeper, stop wakes the others",
          "[queue][wake]") {
    Schedule schedule;
    std::atomic<int> returned{0};
    std::vector<std::jthread> sleepers;
    for (int i = 0; i < 3; ++i) {
        sleepers.emplace_back([&](std::stop_token stop) {
            schedule.wait_until(SteadyClock::now() + 60s, stop);
            returned.fetch_add(1);
        });
    }
    std::this_thread::sleep_for(50ms);  // asleep (a due time added earlier wakes one just as well)
    const auto added = SteadyClock::now();
    schedule.add(added + 50ms);
    REQUIRE(eventually([&] { return returned.load() >= 1; }));
    CHECK(SteadyClock::now() - added >= 50ms);
    std::this_thread::sleep_for(200ms);
    CHECK(returned.load() == 1);  // the other two still sleep towards their 60 s deadline
    const auto stopping = SteadyClock::now();
    for (std::jthread& sleeper : sleepers) {
        sleeper.request_stop();
    }
    sleepers.clear();
    CHECK(returned.load() == 3);
    CHECK(SteadyClock::now() - stopping < 10s);
}

TEST_CASE("wake schedule: due times already past are taken together, at once", "[queue][wake]") {
    Schedule schedule;
    const std::stop_source never;
    schedule.add(SteadyClock::now() - 20ms);
    schedule.add(SteadyClock::now() - 10ms);
    const auto first = SteadyClock::now();
    schedule.wait_until(first + 60s, never.get_token());
    CHECK(SteadyClock::now() - first < 10s);
    // Both were taken by that one wake: the next wait lasts until its own deadline.
    const auto second = SteadyClock::now();
    schedule.wait_until(second + 100ms, never.get_token());
    CHECK(SteadyClock::now() - second >= 100ms);
}

TEST_CASE("wake schedule: a deadline earlier than every due time ends the wait", "[queue][wake]") {
    Schedule schedule;
    const std::stop_source never;
    schedule.add(SteadyClock::now() + 60s);
    const auto start = SteadyClock::now();
    schedule.wait_until(start + 50ms, never.get_token());
    const auto waited = SteadyClock::now() - start;
    CHECK(waited >= 50ms);
    CHECK(waited < 10s);
}

}  // namespace
}  // namespace rebound::testing
