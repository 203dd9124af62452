#include "rebound/simulation/strategy.hpp"

#include <stdexcept>
#include <utility>

#include "rebound/backoff.hpp"
#include "rebound/jitter.hpp"

namespace rebound::simulation {
namespace {

// The engine's exponential backoff counts from initial * 2^0 at retry 1; the simulator from
// base * 2^1. Doubling the initial delay gives the simulator's min(cap, base * 2^n).
constexpr Duration kExponentialInitial = 2 * kPublishedBase;
constexpr double kDoubling = 2.0;

// Policies allow 1000 attempts at most; the simulation ignores the limit (see the header) but a
// generous value keeps `Policy::base_delay` meaningful for readers of the policy.
constexpr int kAttempts = 1000;

std::shared_ptr<const Policy> make_policy(std::string_view name, const Backoff& backoff,
                                          const Jitter& jitter) {
    return PolicyBuilder(std::string(name))
        .max_attempts(kAttempts)
        .backoff(backoff)
        .jitter(jitter)
        .build();
}

}  // namespace

Strategy::Strategy(std::string name, std::shared_ptr<const Policy> policy)
    : name_(std::move(name)), policy_(std::move(policy)) {
    if (!policy_) {
        throw std::invalid_argument("strategy '" + name_ + "' has no policy");
    }
}

Duration Strategy::delay_before_retry(int retry, Duration previous,
                                      RandomSource& random) const noexcept {
    const Backoff& backoff = policy_->spec().backoff;
    return jittered_delay(policy_->spec().jitter, backoff, backoff.base_delay(retry), previous,
                          random);
}

std::optional<Strategy> builtin_strategy(std::string_view name) {
    const Backoff exponential = Backoff::exponential(kExponentialInitial, kDoubling, kPublishedCap);
    std::shared_ptr<const Policy> policy;
    if (name == "exponential") {
        policy = make_policy(name, exponential, Jitter::none());
    } else if (name == "full") {
        policy = make_policy(name, exponential, Jitter::full());
    } else if (name == "equal") {
        policy = make_policy(name, exponential, Jitter::equal());
    } else if (name == "decorrelated") {
        policy = make_policy(name, Backoff::exponential(kPublishedBase, kDoubling, kPublishedCap),
                             Jitter::decorrelated());
    } else if (name == "none") {
        policy = make_policy(name, Backoff::none(), Jitter::none());
    } else {
        return std::nullopt;
    }
    return Strategy(std::string(name), std::move(policy));
}

std::vector<Strategy> builtin_strategies() {
    std::vector<Strategy> strategies;
    strategies.reserve(kBuiltinStrategyNames.size());
    for (const std::string_view name : kBuiltinStrategyNames) {
        strategies.push_back(*builtin_strategy(name));
    }
    return strategies;
}

}  // namespace rebound::simulation
