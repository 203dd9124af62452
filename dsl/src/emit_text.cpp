// The DSL emitter (.rebound): `rebound` and `service` lines, a `defaults` block, one `policy`
// block per policy, then the bindings, with a blank line between blocks and two-space indent.
//
// What the DSL cannot say, and how it is printed instead:
//   - an exponential backoff without a multiplier prints the default, `x2` (same policy);
//   - an empty list (`retry_on: []`, `routes: []`) prints as `retry on none`, `never on none`,
//     `retry if none`, `routes none`, so that it still overrides an inherited non-empty list;
//     an absent list prints nothing. A predicate literally named `none` cannot be printed (the
//     DSL reads `retry if none` as the empty list);
//   - `idempotent: false` is written `not idempotent` (it overrides the handler's code);
//   - `extends` inside `defaults` and backoff fields foreign to the backoff type are left out;
//   - a required value missing from an (invalid) Document is left out of its statement, so
//     that reading the text back reports the statement as incomplete;
//   - a breaker's trip line states its whole rule (`trip ratio 50% of 20 calls in 10s`), and
//     `open` its period: a value the file leaves out prints as its default (same breaker);
//   - `server delay` starts with its use; without one it prints the default, `max`.
#include "rebound/dsl/emit.hpp"

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "emit_common.hpp"
#include "field_locations.hpp"
#include "rebound/circuit_breaker.hpp"
#include "rebound/dsl/spelling.hpp"

namespace rebound::dsl {
namespace {

using emit_detail::duration_text;
using emit_detail::number_text;
using Lines = std::vector<std::string>;

constexpr std::string_view kIndent = "  ";

// " " + prefix + duration, or nothing when the field is absent.
std::string optional_duration(std::string_view prefix, const Field<Duration>& field) {
    return field ? " " + std::string(prefix) + duration_text(field->value) : std::string{};
}

std::string backoff_statement(const BackoffNode& node) {
    std::string out = "backoff " + std::string(to_string(node.type.value));
    switch (node.type.value) {
        case BackoffType::Fixed:
            return out + optional_duration("", node.delay);
        case BackoffType::Linear:
            return out + optional_duration("", node.initial) +
                   optional_duration("+", node.increment) + optional_duration("max ", node.max);
        case BackoffType::Exponential: {
            const double multiplier =
                node.multiplier ? node.multiplier->value : Backoff::kDefaultMultiplier;
            return out + optional_duration("", node.initial) + " x" + number_text(multiplier) +
                   optional_duration("max ", node.max);
        }
        case BackoffType::None:
            break;
    }
    return out;
}

std::string jitter_statement(const JitterNode& node) {
    if (node.type.value == JitterType::Bounded && node.amount) {
        return "jitter +-" + duration_text(node.amount->value);
    }
    if (node.type.value == JitterType::Proportional && node.factor) {
        return "jitter " + emit_detail::percent_text(node.factor->value) + "%";
    }
    return "jitter " + std::string(to_string(node.type.value));
}

// The word that states a present, empty list (`retry on none`, `routes none`).
constexpr std::string_view kEmptyListWord = "none";

// `prefix A, B, C`; `prefix none` for a present, empty list; nothing for an absent one.
template <typename Item, typename Spell>
void add_list_statement(Lines& lines, std::string_view prefix,
                        const std::optional<ListNode<Item>>& list, Spell spell) {
    if (!list) {
        return;
    }
    if (list->items.empty()) {
        lines.push_back(std::string(prefix) + " " + std::string(kEmptyListWord));
        return;
    }
    std::string line(prefix);
    for (std::size_t i = 0; i < list->items.size(); ++i) {
        line += (i == 0 ? " " : ", ") + spell(list->items[i]);
    }
    lines.push_back(std::move(line));
}

void add_duration_statement(Lines& lines, std::string_view keyword, const Field<Duration>& field) {
    if (field) {
        lines.push_back(std::string(keyword) + " " + duration_text(field->value));
    }
}

std::string budget_statement(const BudgetNode& node) {
    std::string out = "budget";
    if (node.max_tokens) {
        out += " tokens " + std::to_string(node.max_tokens->value);
    }
    if (node.token_ratio) {
        out += " ratio " + number_text(node.token_ratio->value);
    }
    return out;
}

std::string route_statement(const RouteNode& route) {
    std::string out = "route up to";
    out += optional_duration("", route.up_to);
    if (route.target) {
        out += " -> " + emit_detail::double_quoted(route.target->value);
    }
    return out;
}

std::string server_delay_statement(const ServerDelayNode& node) {
    std::string out = "server delay ";
    out += to_string(node.use ? node.use->value : ServerDelayUse::Max);
    out += optional_duration("cap ", node.cap);
    if (node.over_cap) {
        out += " over cap " + std::string(to_string(node.over_cap->value));
    }
    if (node.spread) {
        out += " spread " + emit_detail::percent_text(node.spread->value) + "%";
    }
    return out;
}

// `hedge none`, or `hedge after D|pQ [within MIN..MAX] [window D] [warmup N] [extra P%] [burst N]
// [on failure W]`. A learned delay states its range whole (`0ms..` when min is left out).
std::string hedge_statement(const HedgeNode& node) {
    if (node.none) {
        return "hedge none";
    }
    std::string out = "hedge after";
    if (node.learned) {
        out += " p" + (node.quantile ? emit_detail::percent_text(node.quantile->value) : "?");
        out += " within " + duration_text(node.min ? node.min->value : Duration::zero()) + ".." +
               (node.max ? duration_text(node.max->value) : "?");
    } else {
        out += optional_duration("", node.delay);
    }
    out += optional_duration("window ", node.window);
    if (node.warmup) {
        out += " warmup " + std::to_string(node.warmup->value);
    }
    if (node.max_extra_load) {
        out += " extra " + emit_detail::percent_text(node.max_extra_load->value) + "%";
    }
    if (node.burst) {
        out += " burst " + std::to_string(node.burst->value);
    }
    if (node.on_failure) {
        out += " on failure " + std::string(to_string(node.on_failure->value));
    }
    return out;
}

// The statements of a breaker block, in canonical order.
Lines breaker_statements(const BreakerNode& node) {
    const BreakerSettings defaults;
    Lines lines;
    if (node.failure_ratio || node.minimum_calls || node.window) {
        const double ratio =
            node.failure_ratio ? node.failure_ratio->value : defaults.failure_ratio;
        const std::int64_t calls =
            node.minimum_calls ? node.minimum_calls->value : defaults.minimum_calls;
        const Duration window = node.window ? node.window->value : defaults.window;
        lines.push_back("trip ratio " + emit_detail::percent_text(ratio) + "% of " +
                        std::to_string(calls) + " calls in " + duration_text(window));
    }
    if (node.consecutive_failures) {
        lines.push_back("trip after " + std::to_string(node.consecutive_failures->value) +
                        " consecutive failures");
    }
    if (node.open_for || node.max_open_for) {
        const Duration open_for = node.open_for ? node.open_for->value : defaults.open_for;
        lines.push_back("open " + duration_text(open_for) +
                        optional_duration("max ", node.max_open_for));
    }
    if (node.half_open_calls) {
        lines.push_back("half open " + std::to_string(node.half_open_calls->value) + " calls");
    }
    add_duration_statement(lines, "slow call", node.slow_call);
    add_list_statement(lines, "failures", node.failures,
                       [](const Located<Matcher>& m) { return matcher_spelling(m.value); });
    return lines;
}

// `KEYWORD VALUE` for a top-level scalar field.
std::string scalar_statement(const PolicyFieldInfo& info, const ScalarValue& value) {
    std::string text;
    if (const auto* count = std::get_if<std::int64_t>(&value)) {
        text = std::to_string(*count);
    } else if (const auto* number = std::get_if<double>(&value)) {
        text = number_text(*number);
    } else if (const auto* duration = std::get_if<Duration>(&value)) {
        text = duration_text(*duration);
    } else if (info.kind == FieldKind::Text) {
        text = emit_detail::double_quoted(std::get<std::string>(value));
    } else {
        text = std::get<std::string>(value);
    }
    return std::string(info.dsl_keyword) + " " + text;
}

// Adds `statement(*node)` when `node` is given.
template <typename Node, typename Statement>
void add_if_given(Lines& lines, const std::optional<Node>& node, Statement statement) {
    if (node) {
        lines.push_back(statement(*node));
    }
}

void add_routes(Lines& lines, const std::optional<ListNode<RouteNode>>& routes) {
    if (routes && routes->items.empty()) {
        lines.push_back("routes " + std::string(kEmptyListWord));
    } else if (routes) {
        for (const RouteNode& route : routes->items) {
            lines.push_back(route_statement(route));
        }
    }
}

// The statements of the group or list field `field`, when given.
void add_compound_statements(Lines& lines, const PolicyFields& f, PolicyField field) {
    const auto spell_matcher = [](const Located<Matcher>& m) { return matcher_spelling(m.value); };
    const auto spell_name = [](const Located<std::string>& name) { return name.value; };
    switch (field) {
        case PolicyField::Backoff:
            add_if_given(lines, f.backoff, backoff_statement);
            break;
        case PolicyField::Jitter:
            add_if_given(lines, f.jitter, jitter_statement);
            break;
        case PolicyField::RetryOn:
            add_list_statement(lines, "retry on", f.retry_on, spell_matcher);
            break;
        case PolicyField::NeverRetryOn:
            add_list_statement(lines, "never on", f.never_retry_on, spell_matcher);
            break;
        case PolicyField::RetryIf:
            add_list_statement(lines, "retry if", f.retry_if, spell_name);
            break;
        case PolicyField::Budget:
            add_if_given(lines, f.budget, budget_statement);
            break;
        case PolicyField::Routes:
            add_routes(lines, f.routes);
            break;
        case PolicyField::ServerDelay:
            add_if_given(lines, f.server_delay, server_delay_statement);
            break;
        case PolicyField::Hedge:
            add_if_given(lines, f.hedge, hedge_statement);
            break;
        default:
            break;
    }
}

// The statements of a policy or `defaults` body, in the table's order (`extends`, written in a
// policy only, is in the header).
Lines field_statements(const PolicyFields& f) {
    Lines lines;
    for (const PolicyFieldInfo& info : policy_fields()) {
        if (!is_top_level(info.id) || info.place != FieldPlace::PolicyBody) {
            continue;
        }
        if (const auto given = f.scalars.find(info.id); given != f.scalars.end()) {
            lines.push_back(scalar_statement(info, given->second.value));
        } else {
            add_compound_statements(lines, f, info.id);
        }
    }
    return lines;
}

std::string block(const std::string& header, const Lines& statements) {
    std::string out = header + " {\n";
    for (const std::string& line : statements) {
        out += std::string(kIndent) + line + '\n';
    }
    return out + "}\n";
}

std::string policy_header(const PolicyNode& policy) {
    std::string header = "policy " + policy.name.value;
    if (const Field<std::string> parent = policy.fields.text(PolicyField::Extends)) {
        header += " extends " + parent->value;
    }
    return header;
}

std::string handler_line(const HandlerNode& handler) {
    std::string option;
    if (handler.idempotent) {
        option = handler.idempotent->value ? " idempotent" : " not idempotent";
    }
    if (handler.calls && !handler.calls->items.empty()) {
        option += " calls ";
        for (std::size_t i = 0; i < handler.calls->items.size(); ++i) {
            option += (i == 0 ? "" : ", ") + handler.calls->items[i].value;
        }
    }
    if (handler.redeliveries) {
        option += " redeliveries " + std::to_string(handler.redeliveries->value);
    }
    return "handler " + handler.key.value + " uses " + handler.policy.value + option + '\n';
}

std::string header_block(const Document& document) {
    std::string out;
    if (document.version) {
        out += "rebound " + std::to_string(document.version->value) + '\n';
    }
    if (document.service) {
        out += "service " + document.service->value + '\n';
    }
    return out;
}

std::string bindings_block(const Document& document) {
    std::string out;
    for (const HandlerNode& handler : document.handlers) {
        out += handler_line(handler);
    }
    if (document.default_policy) {
        out += "default uses " + document.default_policy->value + '\n';
    }
    return out;
}

}  // namespace

std::string emit_text(const Document& document) {
    std::vector<std::string> blocks{header_block(document)};
    if (document.defaults) {
        blocks.push_back(block("defaults", field_statements(document.defaults->fields)));
    }
    for (const BreakerNode& breaker : document.breakers) {
        blocks.push_back(block("breaker " + breaker.name.value, breaker_statements(breaker)));
    }
    for (const PolicyNode& policy : document.policies) {
        blocks.push_back(block(policy_header(policy), field_statements(policy.fields)));
    }
    blocks.push_back(bindings_block(document));

    std::string out;
    for (const std::string& text : blocks) {
        if (text.empty()) {
            continue;
        }
        if (!out.empty()) {
            out += '\n';
        }
        out += text;
    }
    return out;
}

}  // namespace rebound::dsl
