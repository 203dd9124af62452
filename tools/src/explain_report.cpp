#include "explain_report.hpp"

#include "rebound/dsl/call_graph.hpp"

#include "explain_hedge.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <optional>
#include <sstream>
#include <utility>

#include "rebound/dsl/spelling.hpp"
#include "rebound/policy_field.hpp"
#include "rebound/policy_validation.hpp"
#include "rebound/retry_schedule.hpp"

namespace rebound::cli {
namespace {

Json optional_ms(const std::optional<Duration>& d) {
    return d ? milliseconds_json(*d) : Json(nullptr);
}

Json backoff_json(const Backoff& b) {
    Json j{{"type", std::string(to_string(b.type))}};
    switch (b.type) {
        case BackoffType::Fixed:
            j["delay_ms"] = milliseconds_json(b.delay);
            break;
        case BackoffType::Linear:
            j["initial_ms"] = milliseconds_json(b.initial);
            j["increment_ms"] = milliseconds_json(b.increment);
            j["max_ms"] = milliseconds_json(b.max);
            break;
        case BackoffType::Exponential:
            j["initial_ms"] = milliseconds_json(b.initial);
            j["multiplier"] = b.multiplier;
            j["max_ms"] = milliseconds_json(b.max);
            break;
        case BackoffType::None:
            break;
    }
    return j;
}

Json jitter_json(const Jitter& jitter) {
    Json j{{"type", std::string(to_string(jitter.type))}};
    if (jitter.type == JitterType::Bounded) {
        j["amount_ms"] = milliseconds_json(jitter.amount);
    } else if (jitter.type == JitterType::Proportional) {
        j["factor"] = jitter.factor;
    }
    return j;
}

Json matchers_json(const std::vector<Matcher>& matchers) {
    Json list = Json::array();
    for (const Matcher& m : matchers) {
        list.push_back(m.to_string());
    }
    return list;
}

Json schedule_json(const PolicySpec& spec) {
    Json rows = Json::array();
    for (const ScheduleRow& row : retry_schedule(spec)) {
        rows.push_back(Json{{"retry", row.retry},
                            {"base_ms", milliseconds_json(row.base)},
                            {"min_ms", milliseconds_json(row.min)},
                            {"max_ms", milliseconds_json(row.max)},
                            {"cumulative_min_ms", milliseconds_json(row.cumulative_min)},
                            {"cumulative_max_ms", milliseconds_json(row.cumulative_max)},
                            {"within_deadline", row.within_deadline}});
    }
    return rows;
}

std::string joined(const std::vector<Matcher>& matchers) {
    std::string text;
    for (const Matcher& m : matchers) {
        text += (text.empty() ? "" : ", ") + dsl::matcher_spelling(m);
    }
    return text.empty() ? "(none)" : text;
}

std::string describe_backoff(const Backoff& b) {
    switch (b.type) {
        case BackoffType::Fixed:
            return "fixed " + dsl::duration_spelling(b.delay);
        case BackoffType::Linear:
            return "linear " + dsl::duration_spelling(b.initial) + " +" +
                   dsl::duration_spelling(b.increment) + " max " + dsl::duration_spelling(b.max);
        case BackoffType::Exponential:
            return "exponential " + dsl::duration_spelling(b.initial) + " x" +
                   dsl::number_spelling(b.multiplier) + " max " + dsl::duration_spelling(b.max);
        case BackoffType::None:
            break;
    }
    return "none";
}

// Backoff, jitter, budget and matchers as the DSL states them (dsl/spelling.hpp), so that explain
// and `convert --to dsl` spell a policy the same.
std::string describe_jitter(const Jitter& j) {
    if (j.type == JitterType::Bounded) {
        return "+-" + dsl::duration_spelling(j.amount);
    }
    if (j.type == JitterType::Proportional) {
        return dsl::percent_spelling(j.factor) + "%";
    }
    return std::string(to_string(j.type));
}

// A line per top-level duration field, in table order: `  deadline:           3s` (`none` when
// unset), the values starting in the column of the other lines.
std::string duration_lines(const PolicySpec& spec) {
    constexpr std::size_t kLabelWidth = 20;
    std::string text;
    for (const PolicyFieldInfo& field : policy_fields()) {
        if (field.in_spec.duration.get == nullptr) {
            continue;
        }
        const std::string label = std::string(field.wire_name) + ":";
        const std::optional<Duration> value = field.in_spec.duration.get(spec);
        text += "  " + label +
                std::string(label.size() < kLabelWidth ? kLabelWidth - label.size() : 1, ' ');
        text += (value ? dsl::duration_spelling(*value) : "none") + '\n';
    }
    return text;
}

std::string describe_idempotence(bool idempotent, IdempotenceSource source) {
    std::string text = idempotent ? "true" : "false";
    text += " (" + std::string(to_string(source)) + ")";
    if (source == IdempotenceSource::Default) {
        text += ": the file does not say; the handler's code may declare it";
    }
    return text;
}

// The schedule table: in milliseconds, or in seconds once a cumulative delay passes 10 s; every
// column as wide as its widest value, so long schedules stay aligned.
std::string schedule_text(const std::vector<ScheduleRow>& rows) {
    if (rows.empty()) {
        return {};
    }
    constexpr Duration kSecondsAbove = std::chrono::seconds(10);
    const bool in_seconds = rows.back().cumulative_max > kSecondsAbove;
    const double per_unit = in_seconds ? 1'000'000.0 : 1'000.0;
    constexpr const char* kHeaders[] = {"retry", "base", "min", "max", "cum.min", "cum.max"};
    std::vector<std::array<std::string, 6>> cells;
    std::array<std::size_t, 6> width{};
    for (std::size_t c = 0; c < width.size(); ++c) {
        width[c] = std::max<std::size_t>(std::strlen(kHeaders[c]), c == 0 ? 5 : 9);
    }
    for (const ScheduleRow& row : rows) {
        std::array<std::string, 6> cell;
        cell[0] = std::to_string(row.retry);
        const Duration values[] = {row.base, row.min, row.max, row.cumulative_min,
                                   row.cumulative_max};
        for (std::size_t c = 1; c < cell.size(); ++c) {
            char number[64];
            std::snprintf(number, sizeof number, "%.3f",
                          static_cast<double>(values[c - 1].count()) / per_unit);
            cell[c] = number;
        }
        for (std::size_t c = 0; c < cell.size(); ++c) {
            width[c] = std::max(width[c], cell[c].size());
        }
        cells.push_back(std::move(cell));
    }
    const auto line = [&](const auto& column, std::string_view lead, std::string_view tail) {
        std::string text(lead);
        for (std::size_t c = 0; c < width.size(); ++c) {
            const std::string_view value = column(c);
            text += (c == 0 ? "" : " ") + std::string(width[c] - value.size(), ' ');
            text += value;
        }
        text += tail;
        text += '\n';
        return text;
    };
    std::string text = line([&](std::size_t c) { return std::string_view(kHeaders[c]); },
                            in_seconds ? "  schedule (s):       " : "  schedule (ms):      ", "");
    for (std::size_t r = 0; r < rows.size(); ++r) {
        text +=
            line([&](std::size_t c) { return std::string_view(cells[r][c]); },
                 "                      ", rows[r].within_deadline ? "" : "  (past the deadline)");
    }
    return text;
}

}  // namespace

Json milliseconds_json(Duration d) {
    constexpr std::int64_t kMicrosecondsPerMillisecond = 1000;
    if (d.count() % kMicrosecondsPerMillisecond == 0) {
        return d.count() / kMicrosecondsPerMillisecond;  // whole milliseconds print as integers
    }
    return static_cast<double>(d.count()) / 1000.0;
}

namespace {

Json server_delay_json(const ServerDelaySettings& settings) {
    return Json{{"use", std::string(to_string(settings.use))},
                {"cap_ms", milliseconds_json(settings.cap)},
                {"over_cap", std::string(to_string(settings.over_cap))},
                {"spread", settings.spread}};
}

// null, or the breaker's settings; the keys of the trip rule not in use are null.
Json breaker_json(const CircuitBreaker* breaker) {
    if (breaker == nullptr) {
        return nullptr;
    }
    const BreakerSettings& s = breaker->settings();
    const bool ratio = s.trip == BreakerTrip::Ratio;
    const auto when_ratio = [ratio](Json value) {
        return ratio ? std::move(value) : Json(nullptr);
    };
    return Json{{"name", s.name},
                {"trip", std::string(to_string(s.trip))},
                {"failure_ratio", when_ratio(s.failure_ratio)},
                {"minimum_calls", when_ratio(s.minimum_calls)},
                {"window_ms", when_ratio(milliseconds_json(s.window))},
                {"consecutive_failures", ratio ? Json(nullptr) : Json(s.consecutive_failures)},
                {"open_for_ms", milliseconds_json(s.open_for)},
                {"max_open_for_ms", milliseconds_json(s.effective_max_open_for())},
                {"half_open_calls", s.half_open_calls},
                {"slow_call_ms", s.slow_call ? milliseconds_json(*s.slow_call) : Json(nullptr)},
                {"failures", matchers_json(s.failures)}};
}

std::string describe_breaker(const BreakerSettings& s) {
    std::string text = s.name + ": ";
    if (s.trip == BreakerTrip::Ratio) {
        text += "trip ratio " + dsl::percent_spelling(s.failure_ratio) + "% of " +
                std::to_string(s.minimum_calls) + " calls in " + dsl::duration_spelling(s.window);
    } else {
        text += "trip after " + std::to_string(s.consecutive_failures) + " consecutive failures";
    }
    text += ", open " + dsl::duration_spelling(s.open_for) + " max " +
            dsl::duration_spelling(s.effective_max_open_for()) + ", half open " +
            std::to_string(s.half_open_calls) + " calls";
    if (s.slow_call) {
        text += ", slow call " + dsl::duration_spelling(*s.slow_call);
    }
    return text + ", failures " + joined(s.failures);
}

std::string describe_server_delay(const ServerDelaySettings& s) {
    if (s.use == ServerDelayUse::Ignore) {
        return "ignore";
    }
    return "max cap " + dsl::duration_spelling(s.cap) + " over cap " +
           std::string(to_string(s.over_cap)) +
           (s.spread > 0.0 ? " spread " + dsl::percent_spelling(s.spread) + "%" : "");
}

}  // namespace

HandlerCalls handler_calls(const dsl::Document& document, const PolicySet& set,
                           std::string_view handler) {
    HandlerCalls result;
    const HandlerResolution resolution = set.resolve(handler);
    result.fan_out = resolution.policy ? resolution.policy->spec().max_attempts : 1;
    result.worst_path = {std::string(handler)};
    const HandlerBinding* binding = set.find_binding(handler);
    if (binding == nullptr) {
        return result;
    }
    result.calls = binding->calls;
    result.redeliveries = binding->redeliveries;
    const dsl::CallGraph graph(dsl::call_graph_nodes(document, set, document.file));
    if (const std::optional<std::size_t> node = graph.resolve(handler)) {
        const dsl::CallPath worst = graph.worst_path_from(*node);
        result.fan_out = worst.product;
        result.worst_path = worst.names;
        result.worst_path.front() = std::string(handler);
    }
    return result;
}

Json explain_json(const std::string& service, const Policy& policy,
                  const HandlerResolution* handler, const std::string& handler_name,
                  const HandlerCalls* calls) {
    const PolicySpec& spec = policy.spec();
    Json j;
    j["service"] = service;
    j["policy"] = spec.name;
    if (handler != nullptr) {
        j["handler"] = handler_name;
        j["resolved_via"] = std::string(to_string(handler->via));
        j["idempotent"] = handler->idempotent;
        j["idempotent_source"] = std::string(to_string(handler->idempotent_source));
    }
    j["max_attempts"] = spec.max_attempts;
    for (const PolicyFieldInfo& field : policy_fields()) {
        if (field.in_spec.duration.get != nullptr) {  // deadline_ms, min_attempt_budget_ms, ...
            j[std::string(field.wire_name) + "_ms"] = optional_ms(field.in_spec.duration.get(spec));
        }
    }
    j["backoff"] = backoff_json(spec.backoff);
    j["jitter"] = jitter_json(spec.jitter);
    j["retry_on"] = matchers_json(spec.retry_on);
    j["never_retry_on"] = matchers_json(spec.never_retry_on);
    j["retry_if"] = spec.retry_if;
    j["on_exhausted"] = std::string(to_string(spec.on_exhausted));
    j["budget"] = spec.budget ? Json{{"max_tokens", spec.budget->max_tokens},
                                     {"token_ratio", spec.budget->token_ratio}}
                              : Json(nullptr);
    Json routes = Json::array();
    for (const Route& route : spec.routes) {
        routes.push_back(
            Json{{"up_to_ms", milliseconds_json(route.up_to)}, {"target", route.target}});
    }
    j["routes"] = std::move(routes);
    j["server_delay"] = server_delay_json(spec.server_delay);
    j["breaker"] = breaker_json(policy.breaker());
    j["hedge"] = spec.hedge ? hedge_json(*spec.hedge, spec.max_attempts) : Json(nullptr);
    j["schedule"] = schedule_json(spec);
    if (calls != nullptr) {
        j["calls"] = calls->calls;
        j["redeliveries"] = calls->redeliveries;
        j["worst_case_fan_out"] = Json{{"calls", calls->fan_out}, {"path", calls->worst_path}};
    }
    return j;
}

std::string explain_text(const std::string& service, const Policy& policy,
                         const HandlerResolution* handler, const std::string& handler_name,
                         const HandlerCalls* calls) {
    const PolicySpec& spec = policy.spec();
    std::ostringstream out;
    out << "policy " << spec.name << " (service " << service << ")\n";
    if (handler != nullptr) {
        out << "  handler:            " << handler_name << " (resolved via "
            << to_string(handler->via)
            << (handler->binding_key.empty() ? "" : " '" + std::string(handler->binding_key) + "'")
            << ")\n"
            << "  idempotent:         "
            << describe_idempotence(handler->idempotent, handler->idempotent_source) << '\n';
    }
    if (calls != nullptr) {
        out << "  calls:              " << (calls->calls.empty() ? "nothing stated" : "");
        for (std::size_t i = 0; i < calls->calls.size(); ++i) {
            out << (i == 0 ? "" : ", ") << calls->calls[i];
        }
        out << "\n  redeliveries:       " << calls->redeliveries << '\n'
            << "  worst-case fan-out: " << calls->fan_out << " calls to "
            << calls->worst_path.back() << " per call (";
        for (std::size_t i = 0; i < calls->worst_path.size(); ++i) {
            out << (i == 0 ? "" : " -> ") << calls->worst_path[i];
        }
        out << "; by this file's bindings)\n";
    }
    out << "  attempts:           " << spec.max_attempts << '\n';
    if (spec.hedge) {
        out << "  backoff:            none: attempts start on the hedge delay\n";
    } else {
        out << "  backoff:            " << describe_backoff(spec.backoff) << '\n'
            << "  jitter:             " << describe_jitter(spec.jitter) << '\n';
    }
    out << duration_lines(spec) << "  retry on:           " << joined(spec.retry_on) << '\n'
        << "  never retry on:     " << joined(spec.never_retry_on) << '\n';
    if (!spec.retry_if.empty()) {
        out << "  retry if:          ";
        for (const std::string& name : spec.retry_if) {
            out << ' ' << name;
        }
        out << '\n';
    }
    out << "  on exhausted:       " << to_string(spec.on_exhausted) << '\n';
    if (spec.budget) {
        out << "  budget:             tokens " << spec.budget->max_tokens << " ratio "
            << dsl::number_spelling(spec.budget->token_ratio) << '\n';
    }
    for (const Route& route : spec.routes) {
        out << "  route:              up to " << dsl::duration_spelling(route.up_to) << " -> "
            << route.target << '\n';
    }
    out << "  server delay:       " << describe_server_delay(spec.server_delay) << '\n';
    if (const CircuitBreaker* breaker = policy.breaker()) {
        out << "  breaker:            " << describe_breaker(breaker->settings()) << '\n';
    }
    if (spec.hedge) {
        out << "  hedge:              " << describe_hedge(*spec.hedge, spec.max_attempts);
        if (handler != nullptr && !handler->idempotent) {
            out << "; not idempotent: no timed hedge, one attempt at a time";
        }
        out << '\n';
    }
    if (!spec.hedge) {
        out << schedule_text(retry_schedule(spec));
    }
    return out.str();
}

Json bindings_json(const PolicySet& set) {
    Json list = Json::array();
    for (const HandlerBinding& binding : set.bindings()) {
        const HandlerResolution resolution = set.resolve(binding.key);
        list.push_back(
            Json{{"key", binding.key},
                 {"policy", binding.policy},
                 {"idempotent", resolution.idempotent},
                 {"idempotent_source", std::string(to_string(resolution.idempotent_source))},
                 {"calls", binding.calls},
                 {"redeliveries", binding.redeliveries}});
    }
    return list;
}

std::string bindings_text(const PolicySet& set) {
    std::size_t key_width = std::string_view("default").size();
    std::size_t policy_width = 0;
    for (const HandlerBinding& binding : set.bindings()) {
        key_width = std::max(key_width, binding.key.size());
        policy_width = std::max(policy_width, binding.policy.size());
    }
    const auto padded = [](const std::string& text, std::size_t width) {
        return text + std::string(width - text.size(), ' ');
    };
    std::string text = "handlers (service " + set.service() + ")\n";
    for (const HandlerBinding& binding : set.bindings()) {
        const HandlerResolution resolution = set.resolve(binding.key);
        text += "  " + padded(binding.key, key_width) + "  uses " +
                padded(binding.policy, policy_width) + "  idempotent: " +
                describe_idempotence(resolution.idempotent, resolution.idempotent_source);
        for (std::size_t i = 0; i < binding.calls.size(); ++i) {
            text += (i == 0 ? "  calls: " : ", ") + binding.calls[i];
        }
        if (binding.redeliveries > 0) {
            text += "  redeliveries: " + std::to_string(binding.redeliveries);
        }
        text += '\n';
    }
    if (set.bindings().empty()) {
        text += "  (no bindings)\n";
    }
    text += "  " + padded("default", key_width) + "  uses " +
            set.default_policy().value_or("builtin (no default in the file)") + '\n';
    return text;
}

}  // namespace rebound::cli
