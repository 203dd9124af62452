// The hedging experiment (docs/simulate.md, "Hedging"): tail latency of requests against replicas
// with a slow tail, without hedges and with hedges at a fixed or a learned delay.
//
// Each attempt's latency is independent: `base + Exponential(mean)` with probability
// `1 - slow_fraction`, else `slow`. A request starts its first attempt at 0; hedge k is due at
// k * D (D the strategy's delay) and starts when no attempt has finished before then, up to
// `attempts` attempts in all. The first attempt to finish ends the request; the others are
// cancelled at once and cost only their start. A learned delay is the quantile of the latencies
// of the winning attempts of the earlier requests, read before each request from the engine's
// LatencyRecorder (warmup 100, the window the whole run), as a hedged run reads it (losers are
// cancelled, so not recorded). With `max_extra_load` the hedges take hedge tokens (start at
// HedgeSettings' default burst, gain max_extra_load per request, capped at the burst); without
// it nothing limits them.
//
// With one hedge at a fixed delay d, the results have a closed form: extra load = S(d) and
// P(T > t) = S(t) for t < d, S(t) * S(t - d) for t >= d, where S is the survival function of one
// attempt's latency (`attempt_survival`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/duration.hpp"

namespace rebound::simulation {

struct HedgingSettings {
    Duration base = std::chrono::milliseconds(1);
    Duration mean = std::chrono::milliseconds(4);
    double slow_fraction = 0.01;  // [0, 1]
    Duration slow = std::chrono::milliseconds(100);
    int requests = 100'000;  // >= 1
    std::uint64_t seed = 1;
    int attempts = 2;                      // every attempt, the first included; >= 1
    std::optional<double> max_extra_load;  // (0, 1]; absent: no token limit
};

// A strategy as named on the command line: `none`, `hedge:DURATION` (fixed delay > 0) or
// `hedge:pQ` (learned: the Q-th percentile, 0 < Q < 100, such as p95 or p99.9).
struct HedgingStrategy {
    std::string name;
    std::optional<Duration> delay;   // fixed
    std::optional<double> quantile;  // learned, in (0, 1)
};

// The strategy `text` names, or nullopt with `error` set to a sentence saying what was expected.
std::optional<HedgingStrategy> parse_hedging_strategy(std::string_view text, std::string& error);

// The strategies run when none is named: none, hedge:10ms, hedge:p90, hedge:p95, hedge:p99.
std::vector<HedgingStrategy> default_hedging_strategies();

// One strategy's requests: each request's latency in milliseconds, in request order, and the
// hedges started.
struct HedgingOutcome {
    std::vector<double> latencies_ms;
    std::uint64_t hedges = 0;
};

// Every strategy draws the same attempt latencies from the seed (common random numbers).
// Preconditions: the settings' ranges above.
HedgingOutcome simulate_hedging(const HedgingStrategy& strategy, const HedgingSettings& settings);

// S(t) = P(one attempt's latency > t), t in milliseconds.
double attempt_survival(const HedgingSettings& settings, double t_ms) noexcept;

struct HedgingRow {
    std::string strategy;
    double p50_ms = 0.0;
    double p90_ms = 0.0;
    double p99_ms = 0.0;
    double p999_ms = 0.0;
    double extra_load = 0.0;  // hedges started / requests
};

// The smallest latency such that at least q of `latencies_ms` are <= it (q in (0, 1]).
double latency_quantile(std::vector<double> latencies_ms, double q);

// One row per strategy, in the order given.
std::vector<HedgingRow> run_hedging(const std::vector<HedgingStrategy>& strategies,
                                    const HedgingSettings& settings);

// Text table; CSV with the header `strategy,p50_ms,p90_ms,p99_ms,p999_ms,extra_load` (latencies
// with three decimals, extra load a fraction with four); SVG with two panels, the latency at each
// percentile and the extra load of each strategy.
std::string format_hedging_table(const std::vector<HedgingRow>& rows,
                                 const HedgingSettings& settings);
std::string format_hedging_csv(const std::vector<HedgingRow>& rows);
std::string format_hedging_svg(const std::vector<HedgingRow>& rows,
                               const HedgingSettings& settings);

}  // namespace rebound::simulation
