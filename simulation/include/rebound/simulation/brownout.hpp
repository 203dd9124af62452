// A brownout, simulated: how retries turn a short loss of capacity into a long outage, and how
// Rebound's retry budget and circuit breaker prevent it (docs/simulate.md, "Brownout").
//
// Model, in virtual time with a 1 ms step:
//   - one server of `capacity` requests/s serves a FIFO queue without bound, one attempt after
//     another; it serves attempts whose client has given up too (it cannot know), which is the
//     work a retry storm wastes;
//   - requests arrive open-loop, one every 1 / (arrival_fraction * capacity) s, spread
//     round-robin over `clients` clients, each with its own copy of the strategy's policy;
//   - a client gives an attempt `timeout`; an attempt that has not completed by then failed
//     (counted as service_unavailable for the policy's rules and breaker), and the client's
//     policy decides, through rebound::decide, whether and when to retry;
//   - an attempt its client's breaker refuses is not sent and ends the request as a failure;
//   - from `brownout_start`, for `brownout_length`, the capacity is brownout_fraction * capacity.
//
// Over time (one sample per `sample` period) it reports the offered load (attempts sent per
// second), the goodput (requests answered in time per second), the arrivals and the amplification
// (attempts sent in the sample over the requests that arrived in it: the load relative to no
// retries; a retry counts in the sample it is sent in). The peak amplification is the largest of
// the samples that start inside the brownout. Recovery is the time from the capacity's return to
// the start of the first sample from which goodput stays within 5% of arrivals for `settle`
// samples; none when that never happens before the run ends (the overload keeps itself going:
// metastable).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/circuit_breaker.hpp"
#include "rebound/duration.hpp"
#include "rebound/retry_budget.hpp"
#include "rebound/simulation/client_strategy.hpp"

namespace rebound::simulation {

struct BrownoutSettings {
    double capacity = 1000.0;  // requests/s
    double arrival_fraction = 0.8;
    double brownout_fraction = 0.4;
    Duration brownout_start = std::chrono::seconds(10);
    Duration brownout_length = std::chrono::seconds(10);
    Duration run_length = std::chrono::seconds(80);
    Duration timeout = std::chrono::seconds(1);
    Duration sample = std::chrono::seconds(1);
    int settle = 3;  // samples in a row within 5% for recovery
    int clients = 1;
    std::uint64_t seed = 1;
};

struct BrownoutSample {
    double time_s = 0.0;         // start of the sample
    double arrivals = 0.0;       // requests/s
    double offered = 0.0;        // attempts sent to the server /s
    double goodput = 0.0;        // requests answered within their timeout /s
    double amplification = 0.0;  // offered / arrivals
};

struct BrownoutResult {
    std::string strategy;
    std::vector<BrownoutSample> samples;
    std::optional<double> recovery_s;  // none: not recovered by the end of the run
    double peak_amplification = 0.0;   // during the brownout
    std::size_t largest_queue = 0;
};

// What a run counted in each sample period, from the start of the run (the same length each):
// requests that arrived, attempts sent to the server, requests answered within their timeout.
// The simulation counts them in virtual time; bench/brownout_experiment.cpp measures them against
// a real loopback server.
struct BrownoutCounts {
    std::vector<std::uint64_t> arrivals;
    std::vector<std::uint64_t> offered;
    std::vector<std::uint64_t> goodput;
};

// The samples, the peak amplification during the brownout and the recovery time (see the top of
// this header) of one strategy's counts under `settings` (its brownout, sample and settle).
// largest_queue is left at zero for the caller. Precondition: the three vectors have one entry
// per sample period of settings.run_length.
BrownoutResult summarize_brownout(std::string strategy, const BrownoutCounts& counts,
                                  const BrownoutSettings& settings);

// What a command line may change in the strategies of the policy file, each only when given.
struct BrownoutOverrides {
    std::optional<int> retries;         // max_attempts = 1 + retries, in the policies that retry
    std::optional<int> max_tokens;      // in the policies with a budget
    std::optional<double> token_ratio;  // in the policies with a budget
    std::optional<Duration> attempt_timeout;  // in every policy
};

// The text of simulation/policies/brownout.yaml, compiled in: the strategies of the brownout
// experiment, simulated here and run against a real server by bench/brownout_experiment.cpp.
std::string_view brownout_policy_file();

// One strategy per handler binding of the policy file, in file order, named after the handler
// and running the policy it is bound to (docs/simulate.md#brownout lists them), with
// `overrides` applied. The real experiment's HTTP client times attempts out by the policies'
// attempt_timeout; the simulation times them out itself (BrownoutSettings::timeout). Throws
// std::invalid_argument when an override makes a policy invalid.
std::vector<ClientStrategy> brownout_builtins(const BrownoutOverrides& overrides = {});

// The same from another policy file (YAML, JSON or the DSL, by its extension): one strategy per
// handler binding, in file order. Throws std::invalid_argument with the file's first error when
// it does not load, or when an override makes a policy invalid.
std::vector<ClientStrategy> brownout_strategies(const std::string& policy_file,
                                                const BrownoutOverrides& overrides = {});

// One result per strategy, in the order given. Preconditions: the settings' durations are
// positive and whole milliseconds, fractions in (0, 1], capacity >= 1, clients >= 1.
std::vector<BrownoutResult> run_brownout(const std::vector<ClientStrategy>& strategies,
                                         const BrownoutSettings& settings);

// Text: one line per strategy (recovery, peak amplification, largest queue). CSV with the header
// `strategy,time_s,arrivals,offered,goodput,amplification`, one line per sample. SVG: two panels,
// goodput and offered load against time, one line per strategy.
std::string format_brownout_table(const std::vector<BrownoutResult>& results,
                                  const BrownoutSettings& settings);
std::string format_brownout_csv(const std::vector<BrownoutResult>& results);
std::string format_brownout_svg(const std::vector<BrownoutResult>& results,
                                const BrownoutSettings& settings);

}  // namespace rebound::simulation
