// The `hedge` field of a Document as a HedgeSettings, and the rule that only the file can check:
// a hedging policy states no backoff or jitter (docs/hedging.md). Private to rebound::dsl.
#pragma once

#include <functional>
#include <string>

#include "rebound/dsl/document.hpp"
#include "rebound/hedge.hpp"

namespace rebound::dsl::detail {

// The settings `node` states over the defaults. Precondition: !node.none. A value the front end
// could not read, or reported missing (a learned delay's quantile or max), is taken as valid so
// that it is reported once.
HedgeSettings hedge_settings_of(const HedgeNode& node);

// Calls `conflict(position, field, message)` for each of backoff and jitter that `fields` (a
// policy's resolved fields, with a hedge) states.
using ReportConflict =
    std::function<void(SourcePosition position, PolicyField field, std::string message)>;
void check_hedge_conflicts(const PolicyFields& fields, const std::string& policy,
                           const ReportConflict& conflict);

}  // namespace rebound::dsl::detail
