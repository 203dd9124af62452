// ServerDelaySettings: how a policy uses a server's delay hint (docs/resilience.md, "Server delay
// hints").
//
// A failed call may carry a hint from the server (HTTP `Retry-After`, gRPC
// `grpc-retry-pushback-ms`) or from a circuit breaker that refused it (the time until it
// half-opens). Step 6 of the decision combines the hint with the jittered backoff delay:
//   - use = Max: a hint above `cap` is handled by `over_cap`; otherwise the hint is spread to a
//     uniform draw in [h, h * (1 + spread)] and the delay becomes max(backoff delay, spread hint);
//   - use = Ignore: the backoff delay stands.
// A breaker's own hint (an error of category circuit_open) applies whatever `use` says and is
// never capped or spread. The backoff's `max` never clamps a hint; only `cap` does.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>
#include <string_view>

#include "rebound/duration.hpp"
#include "rebound/error.hpp"
#include "rebound/random_source.hpp"
#include "rebound/vocabulary.hpp"

namespace rebound {

enum class ServerDelayUse : std::uint8_t { Max, Ignore };
enum class OverCapAction : std::uint8_t { Stop, Cap, Ignore };

inline constexpr WordRow<ServerDelayUse> kServerDelayUses[] = {
    {ServerDelayUse::Max, "max", "wait the longer of the backoff delay and the hint"},
    {ServerDelayUse::Ignore, "ignore", "never use hints"},
};
static_assert(is_vocabulary(kServerDelayUses));

constexpr std::span<const WordRow<ServerDelayUse>> vocabulary(ServerDelayUse) noexcept {
    return kServerDelayUses;
}

inline constexpr WordRow<OverCapAction> kOverCapActions[] = {
    {OverCapAction::Stop, "stop", "stop with server_delay_too_long"},
    {OverCapAction::Cap, "cap", "wait the cap"},
    {OverCapAction::Ignore, "ignore", "use the backoff delay alone"},
};
static_assert(is_vocabulary(kOverCapActions));

constexpr std::span<const WordRow<OverCapAction>> vocabulary(OverCapAction) noexcept {
    return kOverCapActions;
}

struct ServerDelaySettings {
    static constexpr Duration kDefaultCap = std::chrono::minutes(5);

    ServerDelayUse use = ServerDelayUse::Max;
    Duration cap = kDefaultCap;  // > 0
    OverCapAction over_cap = OverCapAction::Stop;
    double spread = 0.0;  // 0 <= spread <= 1

    friend bool operator==(const ServerDelaySettings&, const ServerDelaySettings&) = default;
};

// Step 6 of the decision (decision.hpp): combines `delay` (the jittered backoff; 0 for the hint
// alone, as a hedged run's pushback) with `error`'s hint (which must be present) under
// `settings`, in place. Returns false when the hint is over the cap and `settings` say to stop. Not
// std::optional<Duration>: GCC builds the optional with an 8-byte and a 1-byte store and reads it
// back with one 16-byte load, a store-forwarding stall that cost about 14 ns per decision
// (docs/performance.md).
inline bool combine_server_delay(const ServerDelaySettings& settings, const ErrorDescription& error,
                                 Duration& delay, RandomSource& random) noexcept {
    Duration hint = std::max(*error.server_delay, Duration{0});
    if (error.category == ErrorCategory::CircuitOpen) {
        delay = std::max(delay, hint);  // the breaker's own knowledge: always, uncapped
        return true;
    }
    if (settings.use == ServerDelayUse::Ignore) {
        return true;
    }
    if (hint > settings.cap) {
        switch (settings.over_cap) {
            case OverCapAction::Stop:
                return false;
            case OverCapAction::Ignore:
                return true;
            case OverCapAction::Cap:
                hint = settings.cap;
                break;
        }
    }
    if (settings.spread > 0.0) {
        const Duration widest = saturating_scale(hint, 1.0 + settings.spread, kDurationInfinity);
        hint = Duration{uniform_between(random, hint.count(), widest.count())};
    }
    delay = std::max(delay, hint);
    return true;
}

}  // namespace rebound
