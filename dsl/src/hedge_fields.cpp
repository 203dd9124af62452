#include "hedge_fields.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace rebound::dsl::detail {
namespace {

// A count as written, within int (beyond it, out of range for the validator all the same).
int as_int(std::int64_t value) {
    return static_cast<int>(std::clamp<std::int64_t>(value, std::numeric_limits<int>::min(),
                                                     std::numeric_limits<int>::max()));
}

}  // namespace

HedgeSettings hedge_settings_of(const HedgeNode& node) {
    HedgeSettings settings;
    if (node.learned) {
        LearnedHedgeDelay learned;
        learned.quantile = node.quantile ? node.quantile->value : 0.5;
        learned.min = node.min ? node.min->value : Duration::zero();
        learned.max = node.max ? node.max->value : learned.min + Duration(1);
        settings.learned = learned;
    } else if (node.delay) {
        settings.fixed_delay = node.delay->value;
    }
    if (node.max_extra_load) {
        settings.max_extra_load = node.max_extra_load->value;
    }
    if (node.burst) {
        settings.burst = as_int(node.burst->value);
    }
    if (node.on_failure) {
        settings.on_failure = node.on_failure->value;
    }
    if (node.window) {
        settings.window = node.window->value;
    }
    if (node.warmup) {
        settings.warmup = as_int(node.warmup->value);
    }
    return settings;
}

void check_hedge_conflicts(const PolicyFields& fields, const std::string& policy,
                           const ReportConflict& conflict) {
    const std::string has = "policy '" + policy + "' hedges and ";
    if (fields.backoff) {
        conflict(fields.backoff->position, PolicyField::Backoff,
                 has +
                     "has a backoff: hedges are not spaced by a backoff; keep one of the two "
                     "(a policy drops an inherited hedge with 'hedge: none')");
    }
    if (fields.jitter) {
        conflict(fields.jitter->position, PolicyField::Jitter,
                 has +
                     "has a jitter: hedges are not spaced by a backoff; keep one of the two "
                     "(a policy drops an inherited hedge with 'hedge: none')");
    }
}

}  // namespace rebound::dsl::detail
