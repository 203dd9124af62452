#include "rebound/retry_budget.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "thread_stripe.hpp"

// Design and proof of the contract in retry_budget.hpp.
//
// Why it scales: two modes, switched by one atomic state word.
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
//
// Limits of the proof: at most 65535 threads changing the mode of one budget at the same
// instant, and no stripe step stalled across 2^24 mode entries (its stripe's epoch wraps).

namespace rebound {

static_assert(RetryBudget::kStripes == detail::kThreadStripes);
namespace {

constexpr std::int64_t kMilli = 1000;

// State word: bits 0..31 value (striped mode: global, exact mode: the count), bit 32 exact mode,
// bits 33..63 epoch, bumped by every change of mode.
constexpr std::uint64_t kValueMask = (std::uint64_t{1} << 32) - 1;
constexpr std::uint64_t kExactMode = std::uint64_t{1} << 32;
constexpr std::uint64_t kModeEpochUnit = std::uint64_t{1} << 33;

// Stripe word: bits 0..23 debt (milli-tokens), bits 24..39 closers, bits 40..63 epoch, bumped by
// every close. At most 65535 threads may hold one budget's stripes closed at once; the epoch
// wraps harmlessly (a stripe-local step would have to stall through 2^24 closes of its stripe).
constexpr std::uint64_t kDebtMask = (std::uint64_t{1} << 24) - 1;
constexpr std::uint64_t kCloserUnit = std::uint64_t{1} << 24;
constexpr std::uint64_t kCloserMask = ((std::uint64_t{1} << 16) - 1) << 24;
constexpr std::uint64_t kCloseStep = (std::uint64_t{1} << 40) + kCloserUnit;

// How many times tokens() retries for a consistent snapshot before settling for an estimate.
constexpr int kSnapshotAttempts = 4;

std::int64_t value_of(std::uint64_t state) noexcept {
    return static_cast<std::int64_t>(state & kValueMask);
}

bool in_exact_mode(std::uint64_t state) noexcept {
    return (state & kExactMode) != 0;
}

std::uint64_t with_value(std::uint64_t state, std::int64_t value) noexcept {
    return (state & ~kValueMask) | static_cast<std::uint64_t>(value);
}

// The state after a change of mode: new epoch, the other mode, `value`.
std::uint64_t switched(std::uint64_t state, std::int64_t value) noexcept {
    const std::uint64_t epoch = (state & ~(kValueMask | kExactMode)) + kModeEpochUnit;
    return with_value(epoch | (~state & kExactMode), value);
}

std::int64_t debt_of(std::uint64_t word) noexcept {
    return static_cast<std::int64_t>(word & kDebtMask);
}

bool is_closed(std::uint64_t word) noexcept {
    return (word & kCloserMask) != 0;
}

// Stripe capacity: together the stripes hold at most half of the tokens above the threshold, so
// the striped floor lies halfway between the threshold and max. Below one token per stripe, no
// stripes (budgets under 32 tokens).
std::int64_t stripe_capacity_for(std::int64_t max_milli_tokens) noexcept {
    const std::int64_t above_threshold = max_milli_tokens - max_milli_tokens / 2;
    const std::int64_t capacity = std::min<std::int64_t>(
        above_threshold / static_cast<std::int64_t>(2 * RetryBudget::kStripes),
        static_cast<std::int64_t>(kDebtMask));
    return capacity >= kMilli ? capacity : 0;
}

}  // namespace

RetryBudget::RetryBudget(const BudgetSettings& settings) noexcept
    : max_milli_tokens_(static_cast<std::int64_t>(settings.max_tokens) * kMilli),
      milli_token_ratio_(std::llround(settings.token_ratio * static_cast<double>(kMilli))),
      stripe_capacity_(stripe_capacity_for(max_milli_tokens_)),
      fast_floor_(max_milli_tokens_ / 2 + static_cast<std::int64_t>(kStripes) * stripe_capacity_),
      // Halfway between the fast floor and max: hysteresis, so a count hovering at the floor
      // does not switch modes on every operation. Unreachable without stripes.
      leave_level_(stripe_capacity_ > 0 ? (fast_floor_ + max_milli_tokens_ + 1) / 2
                                        : max_milli_tokens_ + 1),
      state_(stripe_capacity_ > 0 ? static_cast<std::uint64_t>(max_milli_tokens_)
                                  : kExactMode | static_cast<std::uint64_t>(max_milli_tokens_)) {}

RetryBudget::RetryBudget(const BudgetSettings& settings, double initial_tokens) noexcept
    : RetryBudget(settings) {
    const double wanted = std::isfinite(initial_tokens) ? initial_tokens * kMilli : 0.0;
    const auto milli =
        static_cast<std::int64_t>(std::clamp(wanted, 0.0, static_cast<double>(max_milli_tokens_)));
    // Striped mode needs the count at or above the level from which successes return to it;
    // below it the budget starts in exact mode, with its stripes closed as enter_exact_mode
    // leaves them.
    if (striped() && milli >= leave_level_) {
        state_.store(static_cast<std::uint64_t>(milli));
        return;
    }
    if (striped()) {
        for (Stripe& stripe : stripes_) {
            stripe.word.store(kCloseStep);
        }
    }
    state_.store(kExactMode | static_cast<std::uint64_t>(milli));
}

bool RetryBudget::record_failure_and_check() noexcept {
    if (striped() && fast_failure(stripes_[detail::this_thread_stripe().index].word)) {
        return true;
    }
    std::uint64_t state = state_.load();
    for (;;) {
        if (!in_exact_mode(state)) {
            state = enter_exact_mode(state);
            continue;
        }
        const std::int64_t next = std::max<std::int64_t>(value_of(state) - kMilli, 0);
        if (state_.compare_exchange_weak(state, with_value(state, next))) {
            return next > max_milli_tokens_ / 2;
        }
    }
}

void RetryBudget::record_success() noexcept {
    if (striped()) {
        if (fast_success(stripes_[detail::this_thread_stripe().index].word)) {
            return;
        }
        std::int64_t tokens_now = 0;
        // Full in striped mode: the success changes nothing, so it writes nothing. (In exact
        // mode the exact path below writes nothing either, and switches back to stripes.)
        if (consistent_snapshot(tokens_now) && tokens_now == max_milli_tokens_ &&
            !in_exact_mode(state_.load())) {
            return;
        }
    }
    std::uint64_t state = state_.load();
    for (;;) {
        if (!in_exact_mode(state)) {
            state = enter_exact_mode(state);
            continue;
        }
        const std::int64_t next = std::min(value_of(state) + milli_token_ratio_, max_milli_tokens_);
        if (next == value_of(state) ||
            state_.compare_exchange_weak(state, with_value(state, next))) {
            if (next >= leave_level_) {
                leave_exact_mode();
            }
            return;
        }
    }
}

double RetryBudget::tokens() const noexcept {
    std::int64_t milli_tokens = 0;
    for (int attempt = 0; attempt < kSnapshotAttempts; ++attempt) {
        if (consistent_snapshot(milli_tokens)) {
            return static_cast<double>(milli_tokens) / static_cast<double>(kMilli);
        }
    }
    const std::uint64_t state = state_.load();
    milli_tokens = value_of(state);
    if (!in_exact_mode(state)) {
        for (const Stripe& stripe : stripes_) {
            milli_tokens -= debt_of(stripe.word.load());
        }
    }
    return static_cast<double>(milli_tokens) / static_cast<double>(kMilli);
}

// Correctness of the stripe-local steps: in striped mode global never changes, and entering
// exact mode closes every stripe before it switches the state, keeping them closed until it is
// left. The stripe word is read before the state and compare-and-swapped after: if the swap
// succeeds, the stripe stayed open and untouched in between, so the state did not leave striped
// mode and global kept the value read. Every debt is at most stripe_capacity_, so at the swap
// tokens = global - sum(debts) >= global - kStripes * stripe_capacity_.
bool RetryBudget::fast_failure(std::atomic<std::uint64_t>& stripe) noexcept {
    std::uint64_t word = stripe.load();
    while (!is_closed(word) && debt_of(word) + kMilli <= stripe_capacity_) {
        const std::uint64_t state = state_.load();
        // After the swap tokens >= global - kStripes * capacity > max / 2: allowed, no floor.
        // (Striped mode starts with global >= leave_level_ > fast_floor_ and global does not
        // change in it, so the second test only guards this proof against later changes.)
        if (in_exact_mode(state) || value_of(state) <= fast_floor_) {
            return false;
        }
        if (stripe.compare_exchange_weak(word, word + static_cast<std::uint64_t>(kMilli))) {
            return true;
        }
    }
    return false;
}

bool RetryBudget::fast_success(std::atomic<std::uint64_t>& stripe) noexcept {
    std::uint64_t word = stripe.load();
    while (!is_closed(word) && debt_of(word) >= milli_token_ratio_) {
        const std::uint64_t state = state_.load();
        // tokens <= global - this stripe's debt: paying ratio back cannot pass the cap.
        if (in_exact_mode(state) ||
            value_of(state) - debt_of(word) + milli_token_ratio_ > max_milli_tokens_) {
            return false;
        }
        if (stripe.compare_exchange_weak(word,
                                         word - static_cast<std::uint64_t>(milli_token_ratio_))) {
            return true;
        }
    }
    return false;
}

// Reads every stripe, the state, then every stripe again: if no stripe word changed, every
// debt held its value while the state was read, so the count at that moment is known.
bool RetryBudget::consistent_snapshot(std::int64_t& milli_tokens) const noexcept {
    std::array<std::uint64_t, kStripes> words{};
    std::int64_t debt = 0;
    for (std::size_t i = 0; i < kStripes; ++i) {
        words[i] = stripes_[i].word.load();
        debt += debt_of(words[i]);
    }
    const std::uint64_t state = state_.load();
    if (in_exact_mode(state)) {
        milli_tokens = value_of(state);  // the debts are folded into the count
        return true;
    }
    for (std::size_t i = 0; i < kStripes; ++i) {
        if (stripes_[i].word.load() != words[i]) {
            return false;
        }
    }
    milli_tokens = value_of(state) - debt;
    return true;
}

// `state`: a striped-mode state read before the call. Closes every stripe (freezing its debt),
// then switches to exact mode with count = global - debts, which holds as long as the state is
// unchanged. On success the stripes stay closed: exact mode holds them until it is left.
// Returns the current state.
std::uint64_t RetryBudget::enter_exact_mode(std::uint64_t state) noexcept {
    std::int64_t debt = 0;
    for (Stripe& stripe : stripes_) {
        debt += debt_of(stripe.word.fetch_add(kCloseStep));
    }
    const std::uint64_t exact = switched(state, value_of(state) - debt);
    if (state_.compare_exchange_strong(state, exact)) {
        return exact;
    }
    reopen_all_stripes();
    return state;
}

// Back to striped mode once the count is high again. The debts stay in the stripes (frozen while
// closed), so global = count + debts; read after the state and valid while it is unchanged.
void RetryBudget::leave_exact_mode() noexcept {
    std::uint64_t state = state_.load();
    while (in_exact_mode(state) && value_of(state) >= leave_level_) {
        std::int64_t debt = 0;
        for (const Stripe& stripe : stripes_) {
            debt += debt_of(stripe.word.load());
        }
        if (state_.compare_exchange_weak(state, switched(state, value_of(state) + debt))) {
            reopen_all_stripes();
            return;
        }
    }
}

void RetryBudget::reopen_all_stripes() noexcept {
    for (Stripe& stripe : stripes_) {
        stripe.word.fetch_sub(kCloserUnit);
    }
}

}  // namespace rebound
