// RetryBudget: gRPC-style retry throttling shared by every use of one compiled policy.
//
// The budget holds tokens, starting at max_tokens. Every failed attempt that reaches the budget
// step takes one token; every success gives back token_ratio, capped at max_tokens. A retry is
// allowed only while, after taking the token, more than max_tokens / 2 remain. Tokens are kept
// as integer thousandths (token_ratio has at most three decimals), updated with lock-free
// compare-and-swap: safe from many threads, never blocks, never allocates.
#pragma once

#include <atomic>
#include <cstdint>

namespace rebound {

struct BudgetSettings {
    int max_tokens = 0;        // 1..100000
    double token_ratio = 0.0;  // 0.001..1000
    friend bool operator==(const BudgetSettings&, const BudgetSettings&) = default;
};

class RetryBudget {
  public:
    // Preconditions: `settings` passed validation.
    explicit RetryBudget(const BudgetSettings& settings) noexcept;
    RetryBudget(const RetryBudget&) = delete;
    RetryBudget& operator=(const RetryBudget&) = delete;

    // Records a failed attempt (takes one token) and says whether a retry may follow.
    bool record_failure_and_check() noexcept;

    // Records a successful attempt (gives back token_ratio, capped at max_tokens).
    void record_success() noexcept;

    // Current tokens, for metrics and tests.
    double tokens() const noexcept;

  private:
    std::int64_t max_milli_tokens_;
    std::int64_t milli_token_ratio_;
    std::atomic<std::int64_t> milli_tokens_;
};

}  // namespace rebound
