// RetryBudget: gRPC-style retry throttling shared by every use of one compiled policy.
//
// The budget holds tokens, starting at max_tokens. Every failed attempt that reaches the budget
// step takes one token; every success gives back token_ratio, capped at max_tokens. A retry is
// allowed only while, after taking the token, more than max_tokens / 2 remain. Tokens are kept
// as integer thousandths (token_ratio has at most three decimals).
//
// Concurrency contract (safe from many threads, lock-free, never allocates, never blocks):
// - Linearizable: every record_failure_and_check and record_success takes effect at one atomic
//   step, and behaves exactly as the single-threaded algorithm would on the token count at that
//   step: a failure sets tokens = max(tokens - 1, 0) and is allowed if and only if the result is
//   above max_tokens / 2; a success sets tokens = min(tokens + token_ratio, max_tokens). No retry
//   is ever allowed at or below the threshold, none is refused above it, and once all threads
//   have finished the count is exactly what the same operations in that order give.
// - One thread alone gets exactly the results of the single-threaded algorithm.
// - Limits of the proof: at most 65535 threads changing the mode of one budget at the same
//   instant, and no stripe step stalled across 2^24 mode entries (its stripe's epoch wraps).
// - tokens() is a snapshot: the exact count at one moment during the call, unless the stripes
//   keep changing through four tries under concurrent use; then an estimate off by at most the
//   debt moved meanwhile. Exact whenever no operation runs concurrently.
//
// Design (why it scales): two modes, switched by one atomic state word.
// - Striped mode, while tokens are well above the threshold: tokens = global - sum(debt[i]),
//   global is fixed, and each thread uses one of kStripes cache-line-sized stripes holding a debt
//   (tokens taken and not yet given back). A failure adds one token to its own stripe's debt if
//   global - kStripes * stripe_capacity > max / 2 (then it is surely allowed); a success pays
//   ratio off its own stripe's debt if that cannot pass the cap. Threads on different stripes
//   write different cache lines; a success at max_tokens writes nothing.
// - Exact mode: the state word holds tokens itself, updated by compare-and-swap exactly as the
//   single-threaded algorithm. Entered when a step cannot be done on the stripe: it closes every
//   stripe (freezing the debts), then switches the state to exact with tokens = global - debts.
//   Left by a success that brings tokens halfway from the striped floor to max: the state goes
//   back to striped with global = tokens + debts, then the stripes reopen.
// A stripe step reads its stripe, then the state, then compare-and-swaps the stripe: success
// means the stripe stayed open and unchanged, so the mode did not change and global kept the
// value read, which makes the step exact. Stripe capacity: (max - max / 2) / (2 * kStripes),
// so the striped floor lies halfway between the threshold and max. A thread takes the lowest
// free stripe on first use and frees it when it exits (beyond kStripes live threads, the rest
// share stripes in turn). Freeing at exit needs a thread-exit hook, which the C library records
// once per thread on the thread's first budget step (glibc allocates that record with calloc);
// no later step allocates. Budgets too small for one token per stripe (max_tokens < 32) stay
// in exact mode. Costs: a stripe step or an exact step is one atomic read-modify-write; a
// change of mode is about 2 * kStripes + 1.
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
