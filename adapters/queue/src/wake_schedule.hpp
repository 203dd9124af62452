// WakeSchedule: when the idle worker threads of one pool wake for the retries the pool itself
// scheduled (docs/queue.md, "Waking for due retries").
//
// A thread that finds nothing to claim sleeps until its own deadline: the poll interval, or
// sooner the time the database says the next ready message falls due (QueueStore::next_due_in).
// A retry written after that query is unknown to the sleepers, so the thread that writes it adds
// its due time here, and one sleeping thread wakes at that time instead of at its deadline.
// Due times pile up only while every thread is busy; the next thread to wait takes all that are
// past at once (one claim serves them all), and at most kCapacity are kept (the rest are found by
// the database query or the poll). Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <stop_token>
#include <vector>

namespace rebound::queue::detail {

class WakeSchedule {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;

    // A message this pool made ready falls due at `due`.
    void add(TimePoint due);

    // Sleeps until `deadline`, until an added due time (which this thread then takes), or until
    // `stop` is requested, whichever comes first.
    void wait_until(TimePoint deadline, const std::stop_token& stop);

  private:
    static constexpr std::size_t kCapacity = 4096;

    std::mutex mutex_;
    std::condition_variable_any changed_;
    std::vector<TimePoint> due_;  // a min-heap (std::greater)
    std::uint64_t generation_ = 0;
};

}  // namespace rebound::queue::detail
