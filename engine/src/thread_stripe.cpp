#include "thread_stripe.hpp"

#include <atomic>
#include <bit>
#include <cstdint>

namespace rebound::detail {
namespace {

static_assert(kThreadStripes <= 32, "one bit per stripe in a 32-bit word");

// Stripes held by live threads, one bit each, shared by every striped counter of the process (it
// holds no counter state, it only spreads threads over stripes).
std::atomic<std::uint32_t> stripes_in_use{0};
std::atomic<std::size_t> shared_stripe_turn{0};

// A thread's claim on a stripe, given back when the thread exits. (A turning round-robin counter
// made every eighth new thread share with a long-lived one.)
class StripeLease {
  public:
    StripeLease() noexcept {
        constexpr std::uint32_t kAllTaken = (std::uint64_t{1} << kThreadStripes) - 1;
        std::uint32_t taken = stripes_in_use.load(std::memory_order_relaxed);
        while (taken != kAllTaken) {
            const auto lowest_free = static_cast<std::size_t>(std::countr_one(taken));
            if (stripes_in_use.compare_exchange_weak(
                    taken, taken | (std::uint32_t{1} << lowest_free), std::memory_order_acquire,
                    std::memory_order_relaxed)) {
                stripe_ = ThreadStripe{lowest_free, true};
                return;
            }
        }
        stripe_ = ThreadStripe{
            shared_stripe_turn.fetch_add(1, std::memory_order_relaxed) % kThreadStripes, false};
    }
    StripeLease(const StripeLease&) = delete;
    StripeLease& operator=(const StripeLease&) = delete;
    ~StripeLease() {
        if (stripe_.exclusive) {
            stripes_in_use.fetch_and(~(std::uint32_t{1} << stripe_.index),
                                     std::memory_order_release);
        }
    }
    ThreadStripe stripe() const noexcept { return stripe_; }

  private:
    ThreadStripe stripe_;
};

}  // namespace

ThreadStripe this_thread_stripe() noexcept {
    thread_local const StripeLease lease;
    return lease.stripe();
}

}  // namespace rebound::detail
