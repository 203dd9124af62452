// RetryBudget: gRPC-style retry throttling shared by every use of one compiled policy.
//
// The budget holds tokens, starting at max_tokens. Every failed attempt that reaches the budget
// step takes one token; every success gives back token_ratio, capped at max_tokens. A retry is
// allowed only while, after taking the token, more than max_tokens / 2 remain. Tokens are kept
// as integer thousandths (token_ratio has at most three decimals).
//
// Concurrency contract (safe from many threads, lock-free, never blocks):
// - Linearizable: every record_failure_and_check and record_success takes effect at one atomic
//   step, and behaves exactly as the single-threaded algorithm would on the token count at that
//   step: a failure sets tokens = max(tokens - 1, 0) and is allowed if and only if the result is
//   above max_tokens / 2; a success sets tokens = min(tokens + token_ratio, max_tokens). No retry
//   is ever allowed at or below the threshold, none is refused above it, and once all threads
//   have finished the count is exactly what the same operations in that order give.
// - One thread alone gets exactly the results of the single-threaded algorithm.
// - tokens() is a snapshot: the exact count at one moment during the call, unless the stripes
//   keep changing through four tries under concurrent use; then an estimate off by at most the
//   debt moved meanwhile. Exact whenever no operation runs concurrently.
// - Limits: at most 65535 threads changing the mode of one budget at the same instant.
// - Allocation: none by the budget. A thread's first step on any budget registers a thread-exit
//   hook with the C library, which records it once per thread (glibc with calloc).
//
// How the contract is met, and why it scales: retry_budget.cpp.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace rebound {

struct BudgetSettings {
    int max_tokens = 0;        // 1..100000
    double token_ratio = 0.0;  // 0.001..1000
    friend bool operator==(const BudgetSettings&, const BudgetSettings&) = default;
};

class alignas(64) RetryBudget {
  public:
    // Preconditions: `settings` passed validation.
    explicit RetryBudget(const BudgetSettings& settings) noexcept;
    // A budget that starts with `initial_tokens` (clamped to [0, max_tokens]) instead of full:
    // the budget of a reload, scaled from the one it replaces (docs/resilience.md).
    RetryBudget(const BudgetSettings& settings, double initial_tokens) noexcept;
    RetryBudget(const RetryBudget&) = delete;
    RetryBudget& operator=(const RetryBudget&) = delete;

    // Records a failed attempt (takes one token) and says whether a retry may follow.
    bool record_failure_and_check() noexcept;

    // Records a successful attempt (gives back token_ratio, capped at max_tokens).
    void record_success() noexcept;

    // Current tokens, for metrics and tests (a snapshot under concurrency, see above).
    double tokens() const noexcept;

    static constexpr std::size_t kStripes = 8;

  private:
    // A stripe word packs: debt in milli-tokens (low bits), the number of exact-path operations
    // holding the stripe closed, and an epoch bumped by every close (so a stripe closed and
    // reopened in between is never mistaken for an unchanged one).
    struct alignas(64) Stripe {
        std::atomic<std::uint64_t> word{0};
    };

    bool striped() const noexcept { return stripe_capacity_ > 0; }
    bool fast_failure(std::atomic<std::uint64_t>& stripe) noexcept;
    bool fast_success(std::atomic<std::uint64_t>& stripe) noexcept;
    bool consistent_snapshot(std::int64_t& milli_tokens) const noexcept;
    std::uint64_t enter_exact_mode(std::uint64_t state) noexcept;
    void leave_exact_mode() noexcept;
    void reopen_all_stripes() noexcept;

    std::int64_t max_milli_tokens_;
    std::int64_t milli_token_ratio_;
    std::int64_t stripe_capacity_;  // milli-tokens of debt one stripe may hold; 0: no stripes
    std::int64_t fast_floor_;       // global above this: a stripe-local failure is surely allowed
    std::int64_t leave_level_;      // tokens from which a success goes back to striped mode
    // Value (global in striped mode, tokens in exact mode), the mode, an epoch of mode changes.
    alignas(64) std::atomic<std::uint64_t> state_;
    std::array<Stripe, kStripes> stripes_;
};

}  // namespace rebound
