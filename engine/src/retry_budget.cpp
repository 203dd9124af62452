#include "rebound/retry_budget.hpp"

#include <algorithm>
#include <cmath>

namespace rebound {
namespace {
constexpr std::int64_t kMilli = 1000;
}  // namespace

RetryBudget::RetryBudget(const BudgetSettings& settings) noexcept
    : max_milli_tokens_(static_cast<std::int64_t>(settings.max_tokens) * kMilli),
      milli_token_ratio_(std::llround(settings.token_ratio * static_cast<double>(kMilli))),
      milli_tokens_(max_milli_tokens_) {}

bool RetryBudget::record_failure_and_check() noexcept {
    std::int64_t current = milli_tokens_.load(std::memory_order_relaxed);
    std::int64_t next = 0;
    do {
        next = std::max<std::int64_t>(current - kMilli, 0);
    } while (!milli_tokens_.compare_exchange_weak(current, next, std::memory_order_acq_rel,
                                                  std::memory_order_relaxed));
    return next > max_milli_tokens_ / 2;
}

void RetryBudget::record_success() noexcept {
    std::int64_t current = milli_tokens_.load(std::memory_order_relaxed);
    std::int64_t next = 0;
    do {
        next = std::min(current + milli_token_ratio_, max_milli_tokens_);
    } while (!milli_tokens_.compare_exchange_weak(current, next, std::memory_order_acq_rel,
                                                  std::memory_order_relaxed));
}

double RetryBudget::tokens() const noexcept {
    return static_cast<double>(milli_tokens_.load(std::memory_order_acquire)) /
           static_cast<double>(kMilli);
}

}  // namespace rebound
