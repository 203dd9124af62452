// The `hedge` part of the explain report (docs/hedging.md, "The command line").
#pragma once

#include <string>

#include "explain_report.hpp"
#include "rebound/hedge.hpp"

namespace rebound::cli {

// {"delay_ms", "quantile", "min_ms", "max_ms", "window_ms", "warmup", "max_extra_load", "burst",
//  "on_failure", "due_ms"}: the keys of the other kind of delay are null; `due_ms` lists the
// hedges of a fixed delay, `max_attempts - 1` of them (null for a learned delay).
Json hedge_json(const HedgeSettings& hedge, int max_attempts);

// "after 20ms (hedges due at 20ms, 40ms), extra load <= 5% (burst 10), on failure next", or
// "after p95 of the last 30s within 2ms..250ms (no hedge before 100 latencies), ...".
std::string describe_hedge(const HedgeSettings& hedge, int max_attempts);

}  // namespace rebound::cli
