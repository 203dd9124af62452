// Strategy: the retry delays that the clients of a contention experiment follow.
//
// A strategy is a named engine Policy; only its backoff and jitter are used, through the engine's
// own `Backoff::base_delay` and `jittered_delay`, so a simulation exercises exactly the code a
// real caller runs. The experiment's clients retry until they succeed: a policy's max_attempts,
// deadline and budget play no part.
//
// The built-in strategies reproduce the parameters of the simulator of "Exponential Backoff And
// Jitter" (AWS Architecture Blog, 2015; aws-samples/aws-arch-backoff-simulator), base 5 ms and cap
// 2000 ms:
//
//   name          simulator                                engine backoff, jitter
//   exponential   min(cap, base * 2^n), n = 1 for retry 1  exponential 10ms x2 max 2s, none
//   full          uniform(0, that)                         the same, full
//   equal         that/2 + uniform(0, that/2)              the same, equal
//   decorrelated  min(cap, uniform(base, 3 * previous))    exponential 5ms x2 max 2s, decorrelated
//   none          0                                        none, none
//
// The simulator's exponent starts at 1 for the first retry while the engine's starts at 0
// (initial * multiplier^(k-1)), hence initial = 2 * base for the three exponential strategies.
// Decorrelated jitter ignores the base delay and draws from [initial, 3 * previous], previous =
// initial before the first retry, so there initial = base.
// One difference remains, the engine's: once 3 * previous passes the cap, the engine draws from
// [initial, max] where the simulator caps the draw, min(cap, uniform(base, 3 * previous));
// docs/simulate.md measures its effect.
#pragma once

#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/duration.hpp"
#include "rebound/policy.hpp"
#include "rebound/random_source.hpp"

namespace rebound::simulation {

// The published experiment's backoff parameters.
inline constexpr Duration kPublishedBase = std::chrono::milliseconds(5);
inline constexpr Duration kPublishedCap = std::chrono::milliseconds(2000);

// The built-in strategy names, in the order reports list them.
inline constexpr std::array<std::string_view, 5> kBuiltinStrategyNames{
    "exponential", "full", "equal", "decorrelated", "none"};

// A named policy. Immutable; safe to share between threads (the random source is the caller's).
class Strategy {
  public:
    // Throws std::invalid_argument when `policy` is null.
    Strategy(std::string name, std::shared_ptr<const Policy> policy);

    const std::string& name() const noexcept { return name_; }
    const Policy& policy() const noexcept { return *policy_; }

    // The delay before retry `retry` (1 for the first retry) after a previous delay of
    // `previous` (zero before the first retry; only decorrelated jitter reads it). At most one
    // draw from `random`. Valid for any retry >= 1, beyond the policy's max_attempts too.
    Duration delay_before_retry(int retry, Duration previous, RandomSource& random) const noexcept;

  private:
    std::string name_;
    std::shared_ptr<const Policy> policy_;
};

// The built-in strategy called `name`, or nullopt when no built-in has that name.
std::optional<Strategy> builtin_strategy(std::string_view name);

// Every built-in strategy, in kBuiltinStrategyNames order.
std::vector<Strategy> builtin_strategies();

}  // namespace rebound::simulation
