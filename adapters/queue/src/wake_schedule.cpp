#include "wake_schedule.hpp"

#include <algorithm>
#include <functional>

namespace rebound::queue::detail {

void WakeSchedule::add(TimePoint due) {
    {
        const std::lock_guard lock(mutex_);
        if (due_.size() >= kCapacity) {
            return;
        }
        const bool earliest = due_.empty() || due < due_.front();
        due_.push_back(due);
        std::push_heap(due_.begin(), due_.end(), std::greater<>{});
        if (!earliest) {
            return;  // the sleepers already wake no later than the current earliest
        }
        ++generation_;
    }
    changed_.notify_all();
}

void WakeSchedule::wait_until(TimePoint deadline, const std::stop_token& stop) {
    std::unique_lock lock(mutex_);
    while (!stop.stop_requested()) {
        const TimePoint now = std::chrono::steady_clock::now();
        if (!due_.empty() && due_.front() <= now) {
            // Everything past is served by the one claim this thread makes next.
            while (!due_.empty() && due_.front() <= now) {
                std::pop_heap(due_.begin(), due_.end(), std::greater<>{});
                due_.pop_back();
            }
            return;
        }
        if (now >= deadline) {
            return;
        }
        const TimePoint until = due_.empty() ? deadline : std::min(deadline, due_.front());
        const std::uint64_t seen = generation_;
        changed_.wait_until(lock, stop, until, [&] { return generation_ != seen; });
    }
}

}  // namespace rebound::queue::detail
