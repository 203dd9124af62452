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

#include <chrono>
#include <cstdint>
#include <string_view>

#include "rebound/duration.hpp"

namespace rebound {

enum class ServerDelayUse : std::uint8_t { Max, Ignore };
enum class OverCapAction : std::uint8_t { Stop, Cap, Ignore };

constexpr std::string_view to_string(ServerDelayUse use) noexcept {
    return use == ServerDelayUse::Ignore ? "ignore" : "max";
}

constexpr std::string_view to_string(OverCapAction action) noexcept {
    switch (action) {
        case OverCapAction::Cap:
            return "cap";
        case OverCapAction::Ignore:
            return "ignore";
        case OverCapAction::Stop:
            break;
    }
    return "stop";
}

struct ServerDelaySettings {
    static constexpr Duration kDefaultCap = std::chrono::minutes(5);

    ServerDelayUse use = ServerDelayUse::Max;
    Duration cap = kDefaultCap;  // > 0
    OverCapAction over_cap = OverCapAction::Stop;
    double spread = 0.0;  // 0 <= spread <= 1

    friend bool operator==(const ServerDelaySettings&, const ServerDelaySettings&) = default;
};

}  // namespace rebound
