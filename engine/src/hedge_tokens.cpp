#include "rebound/hedge_tokens.hpp"

#include <algorithm>
#include <cmath>

namespace rebound {
namespace {

constexpr std::int64_t kMilli = 1000;

}  // namespace

HedgeTokens::HedgeTokens(const HedgeTokenSettings& settings) noexcept
    : settings_(settings),
      max_milli_(static_cast<std::int64_t>(std::max(settings.burst, 1)) * kMilli),
      gain_milli_(std::max<std::int64_t>(
          std::llround(settings.max_extra_load * static_cast<double>(kMilli)), 0)),
      milli_(max_milli_) {}

HedgeTokens::HedgeTokens(const HedgeTokenSettings& settings, double initial) noexcept
    : HedgeTokens(settings) {
    const double wanted = std::isfinite(initial) ? initial * static_cast<double>(kMilli) : 0.0;
    milli_.store(
        static_cast<std::int64_t>(std::clamp(wanted, 0.0, static_cast<double>(max_milli_))));
}

void HedgeTokens::add_capped(std::int64_t milli) noexcept {
    std::int64_t current = milli_.load(std::memory_order_relaxed);
    while (current < max_milli_ &&
           !milli_.compare_exchange_weak(current, std::min(current + milli, max_milli_),
                                         std::memory_order_relaxed)) {
    }
}

void HedgeTokens::run_started() noexcept {
    add_capped(gain_milli_);
}

bool HedgeTokens::try_take() noexcept {
    std::int64_t current = milli_.load(std::memory_order_relaxed);
    while (current >= kMilli) {
        if (milli_.compare_exchange_weak(current, current - kMilli, std::memory_order_relaxed)) {
            return true;
        }
    }
    return false;
}

void HedgeTokens::give_back() noexcept {
    add_capped(kMilli);
}

double HedgeTokens::tokens() const noexcept {
    return static_cast<double>(milli_.load(std::memory_order_relaxed)) /
           static_cast<double>(kMilli);
}

}  // namespace rebound
