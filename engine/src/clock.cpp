#include "rebound/clock.hpp"

namespace rebound {

Clock& default_clock() noexcept {
    static SteadyClock clock;
    return clock;
}

}  // namespace rebound
