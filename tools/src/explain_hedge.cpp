#include "explain_hedge.hpp"

#include "rebound/dsl/spelling.hpp"

namespace rebound::cli {

Json hedge_json(const HedgeSettings& hedge, int max_attempts) {
    const bool learned = hedge.is_learned();
    Json due = nullptr;
    if (hedge.fixed_delay) {
        due = Json::array();
        for (int k = 1; k < max_attempts; ++k) {
            due.push_back(milliseconds_json(*hedge.fixed_delay * k));
        }
    }
    return Json{
        {"delay_ms", hedge.fixed_delay ? milliseconds_json(*hedge.fixed_delay) : Json(nullptr)},
        {"quantile", learned ? Json(hedge.learned->quantile) : Json(nullptr)},
        {"min_ms", learned ? milliseconds_json(hedge.learned->min) : Json(nullptr)},
        {"max_ms", learned ? milliseconds_json(hedge.learned->max) : Json(nullptr)},
        {"window_ms", learned ? milliseconds_json(hedge.window_or_default()) : Json(nullptr)},
        {"warmup", learned ? Json(hedge.warmup_or_default()) : Json(nullptr)},
        {"max_extra_load", hedge.max_extra_load},
        {"burst", hedge.burst},
        {"on_failure", std::string(to_string(hedge.on_failure))},
        {"due_ms", std::move(due)}};
}

std::string describe_hedge(const HedgeSettings& hedge, int max_attempts) {
    std::string text = "after ";
    if (hedge.learned) {
        text += "p" + dsl::percent_spelling(hedge.learned->quantile) + " of the last " +
                dsl::duration_spelling(hedge.window_or_default()) + " within " +
                dsl::duration_spelling(hedge.learned->min) + ".." +
                dsl::duration_spelling(hedge.learned->max) + " (no hedge before " +
                std::to_string(hedge.warmup_or_default()) + " latencies)";
    } else if (hedge.fixed_delay) {
        text += dsl::duration_spelling(*hedge.fixed_delay);
        std::string due;
        for (int k = 1; k < max_attempts; ++k) {
            due += (k == 1 ? "" : ", ") + dsl::duration_spelling(*hedge.fixed_delay * k);
        }
        text += due.empty() ? " (no hedge: one attempt)" : " (hedges due at " + due + ")";
    }
    return text + ", extra load <= " + dsl::percent_spelling(hedge.max_extra_load) + "% (burst " +
           std::to_string(hedge.burst) + "), on failure " +
           std::string(to_string(hedge.on_failure));
}

}  // namespace rebound::cli
