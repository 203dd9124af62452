#include "rebound/sleeper.hpp"

#include <condition_variable>
#include <mutex>

namespace rebound {

bool ThreadSleeper::sleep_for(Duration delay, std::stop_token stop) {
    if (stop.stop_requested()) {
        return false;
    }
    if (delay <= Duration::zero()) {
        return true;
    }
    std::mutex mutex;
    std::condition_variable_any wake;
    std::unique_lock lock(mutex);
    // The predicate is only the stop request: the wait ends at the timeout or on request_stop().
    wake.wait_for(lock, stop, delay, [] { return false; });
    return !stop.stop_requested();
}

Sleeper& default_sleeper() noexcept {
    static ThreadSleeper sleeper;
    return sleeper;
}

}  // namespace rebound
