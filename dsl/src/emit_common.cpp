#include "emit_common.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <optional>
#include <system_error>
#include <variant>

#include "rebound/policy_validation.hpp"

#include "field_locations.hpp"

namespace rebound::dsl::emit_detail {

std::string duration_text(Duration d) {
    // format_duration negates negative values, which the most negative one cannot survive.
    if (d == Duration::min()) {
        return std::to_string(d.count()) + "us";
    }
    return format_duration(d);
}

std::string number_text(double value) {
    // Fixed notation without a precision is the shortest exact spelling; 330 characters hold
    // the longest double (a subnormal) in it.
    std::array<char, 512> buffer{};
    const auto [end, error] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                            std::chars_format::fixed);
    if (error != std::errc{}) {
        return "nan";
    }
    return std::string(buffer.data(), end);
}

std::string percent_text(double value) {
    std::string digits = number_text(value);
    if (digits.find_first_of("ni") != std::string::npos) {
        return digits;  // nan, inf
    }
    std::string sign;
    if (digits.front() == '-') {
        sign = "-";
        digits.erase(0, 1);
    }
    const std::size_t dot = digits.find('.');
    std::string whole = digits.substr(0, dot);
    std::string fraction = dot == std::string::npos ? std::string{} : digits.substr(dot + 1);
    fraction.resize(std::max<std::size_t>(fraction.size(), 2), '0');
    whole += fraction.substr(0, 2);
    fraction.erase(0, 2);
    const std::size_t first_significant = whole.find_first_not_of('0');
    whole = first_significant == std::string::npos ? "0" : whole.substr(first_significant);
    return sign + whole + (fraction.empty() ? "" : "." + fraction);
}

std::string_view category_word(ErrorCategory category) noexcept {
    if (static_cast<std::size_t>(category) >= kCategoryCount) {
        return to_string(ErrorCategory::Unknown);
    }
    return to_string(category);
}

std::string_view vendor_word(Vendor vendor) noexcept {
    if (static_cast<std::size_t>(vendor) >= kVendorTable.size()) {
        return to_string(Vendor::Generic);
    }
    return to_string(vendor);
}

std::string http_class_text(int hundreds_digit) {
    return std::to_string(hundreds_digit) + "xx";
}

std::string double_quoted(std::string_view text) {
    constexpr std::string_view kHexDigits = "0123456789ABCDEF";
    std::string out = "\"";
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\r':
                out += "\\r";
                break;
            default:
                if (byte < 0x20 || byte == 0x7f) {
                    out += "\\x";
                    out += kHexDigits[byte >> 4U];
                    out += kHexDigits[byte & 0xfU];
                } else {
                    out += c;
                }
        }
    }
    out += '"';
    return out;
}

FormNode FormNode::map(bool flow) {
    FormNode node;
    node.kind = Kind::Map;
    node.flow = flow;
    return node;
}

FormNode FormNode::list(bool flow) {
    FormNode node;
    node.kind = Kind::List;
    node.flow = flow;
    return node;
}

FormNode FormNode::word(std::string text) {
    FormNode node;
    node.kind = Kind::Word;
    node.text = std::move(text);
    return node;
}

FormNode FormNode::quoted_text(std::string text) {
    FormNode node;
    node.kind = Kind::Text;
    node.text = std::move(text);
    return node;
}

FormNode FormNode::integer_value(std::int64_t value) {
    FormNode node;
    node.kind = Kind::Integer;
    node.integer = value;
    return node;
}

FormNode FormNode::number_value(double value) {
    FormNode node;
    node.kind = Kind::Number;
    node.number = value;
    return node;
}

FormNode FormNode::boolean_value(bool value) {
    FormNode node;
    node.kind = Kind::Boolean;
    node.boolean = value;
    return node;
}

FormNode& FormNode::add(std::string key, FormNode value) {
    entries.push_back(FormEntry{std::move(key), std::move(value)});
    return *this;
}

namespace {

using Kind = FormNode::Kind;

FormNode duration_word(Duration d) {
    return FormNode::word(duration_text(d));
}

void add_duration(FormNode& map, std::string key, const Field<Duration>& field) {
    if (field) {
        map.add(std::move(key), duration_word(field->value));
    }
}

FormNode single_entry(std::string key, FormNode value) {
    FormNode map = FormNode::map(true);
    map.add(std::move(key), std::move(value));
    return map;
}

FormNode matcher_form(const Matcher& m) {
    switch (m.kind) {
        case MatcherKind::TransientGroup:
            return FormNode::word(std::string(kTransientGroupName));
        case MatcherKind::SqlState:
            return single_entry("sqlstate", FormNode::quoted_text(m.text));
        case MatcherKind::SqlStateClass:
            return single_entry("sqlstate_class", FormNode::quoted_text(m.text));
        case MatcherKind::VendorNative: {
            FormNode map = FormNode::map(true);
            map.add("native", FormNode::integer_value(m.native_code));
            map.add("vendor", FormNode::word(std::string(vendor_word(m.vendor))));
            return map;
        }
        case MatcherKind::ErrorType:
            return single_entry("error", FormNode::word(m.text));
        case MatcherKind::HttpStatus:
            return single_entry("http", FormNode::integer_value(m.http));
        case MatcherKind::HttpClass:
            return single_entry("http", FormNode::word(http_class_text(m.http)));
        case MatcherKind::GrpcStatus:
            return single_entry("grpc", FormNode::word(std::string(to_string(m.grpc))));
        case MatcherKind::Message:
            return single_entry("message", FormNode::quoted_text(m.text));
        case MatcherKind::Category:
            break;
    }
    return FormNode::word(std::string(category_word(m.category)));
}

FormNode matcher_list_form(const ListNode<Located<Matcher>>& list) {
    FormNode out = FormNode::list(true);
    for (const Located<Matcher>& matcher : list.items) {
        out.items.push_back(matcher_form(matcher.value));
    }
    return out;
}

FormNode backoff_form(const BackoffNode& node) {
    FormNode map = FormNode::map(true);
    map.add("type", FormNode::word(std::string(to_string(node.type.value))));
    add_duration(map, "delay", node.delay);
    add_duration(map, "initial", node.initial);
    add_duration(map, "increment", node.increment);
    if (node.multiplier) {
        map.add("multiplier", FormNode::number_value(node.multiplier->value));
    }
    add_duration(map, "max", node.max);
    return map;
}

// A word (`full`) when that says everything; otherwise `{ type: ..., amount/factor }`.
FormNode jitter_form(const JitterNode& node) {
    const std::string type(to_string(node.type.value));
    if (is_bare_word(node.type.value) && !node.amount && !node.factor) {
        return FormNode::word(type);
    }
    FormNode map = FormNode::map(true);
    map.add("type", FormNode::word(type));
    add_duration(map, "amount", node.amount);
    if (node.factor) {
        map.add("factor", FormNode::number_value(node.factor->value));
    }
    return map;
}

FormNode budget_form(const BudgetNode& node) {
    FormNode map = FormNode::map(true);
    if (node.max_tokens) {
        map.add("max_tokens", FormNode::integer_value(node.max_tokens->value));
    }
    if (node.token_ratio) {
        map.add("token_ratio", FormNode::number_value(node.token_ratio->value));
    }
    return map;
}

FormNode server_delay_form(const ServerDelayNode& node) {
    FormNode map = FormNode::map(true);
    if (node.use) {
        map.add("use", FormNode::word(std::string(to_string(node.use->value))));
    }
    add_duration(map, "cap", node.cap);
    if (node.over_cap) {
        map.add("over_cap", FormNode::word(std::string(to_string(node.over_cap->value))));
    }
    if (node.spread) {
        map.add("spread", FormNode::number_value(node.spread->value));
    }
    return map;
}

// `none`, or the mapping with the delay as a duration or `{ quantile, min, max }`.
FormNode hedge_form(const HedgeNode& node) {
    if (node.none) {
        return FormNode::word("none");
    }
    FormNode map = FormNode::map(false);
    if (node.learned) {
        FormNode delay = FormNode::map(true);
        if (node.quantile) {
            delay.add("quantile", FormNode::number_value(node.quantile->value));
        }
        add_duration(delay, "min", node.min);
        add_duration(delay, "max", node.max);
        map.add("delay", std::move(delay));
    } else {
        add_duration(map, "delay", node.delay);
    }
    if (node.max_extra_load) {
        map.add("max_extra_load", FormNode::number_value(node.max_extra_load->value));
    }
    if (node.burst) {
        map.add("burst", FormNode::integer_value(node.burst->value));
    }
    if (node.on_failure) {
        map.add("on_failure", FormNode::word(std::string(to_string(node.on_failure->value))));
    }
    add_duration(map, "window", node.window);
    if (node.warmup) {
        map.add("warmup", FormNode::integer_value(node.warmup->value));
    }
    return map;
}

FormNode breaker_form(const BreakerNode& node) {
    FormNode map = FormNode::map(false);
    if (node.failure_ratio) {
        map.add("failure_ratio", FormNode::number_value(node.failure_ratio->value));
    }
    if (node.minimum_calls) {
        map.add("minimum_calls", FormNode::integer_value(node.minimum_calls->value));
    }
    add_duration(map, "window", node.window);
    if (node.consecutive_failures) {
        map.add("consecutive_failures", FormNode::integer_value(node.consecutive_failures->value));
    }
    add_duration(map, "open_for", node.open_for);
    add_duration(map, "max_open_for", node.max_open_for);
    if (node.half_open_calls) {
        map.add("half_open_calls", FormNode::integer_value(node.half_open_calls->value));
    }
    add_duration(map, "slow_call", node.slow_call);
    if (node.failures) {
        map.add("failures", matcher_list_form(*node.failures));
    }
    return map;
}

FormNode routes_form(const ListNode<RouteNode>& routes) {
    FormNode list = FormNode::list(false);
    for (const RouteNode& route : routes.items) {
        FormNode map = FormNode::map(true);
        add_duration(map, "up_to", route.up_to);
        if (route.target) {
            map.add("target", FormNode::quoted_text(route.target->value));
        }
        list.items.push_back(std::move(map));
    }
    return list;
}

FormNode names_form(const ListNode<Located<std::string>>& names) {
    FormNode list = FormNode::list(true);
    for (const Located<std::string>& name : names.items) {
        list.items.push_back(FormNode::word(name.value));
    }
    return list;
}

// A top-level scalar value, by its field's kind.
FormNode scalar_form(const PolicyFieldInfo& info, const ScalarValue& value) {
    if (const auto* count = std::get_if<std::int64_t>(&value)) {
        return FormNode::integer_value(*count);
    }
    if (const auto* number = std::get_if<double>(&value)) {
        return FormNode::number_value(*number);
    }
    if (const auto* duration = std::get_if<Duration>(&value)) {
        return duration_word(*duration);
    }
    const std::string& text = std::get<std::string>(value);
    return info.kind == FieldKind::Text ? FormNode::quoted_text(text) : FormNode::word(text);
}

// `form(*node)`, when `node` is given.
template <typename Node, typename Form>
std::optional<FormNode> form_if_given(const std::optional<Node>& node, Form form) {
    return node ? std::optional(form(*node)) : std::nullopt;
}

// The group or list field `field`, when given.
std::optional<FormNode> compound_form(const PolicyFields& f, PolicyField field) {
    switch (field) {
        case PolicyField::Backoff:
            return form_if_given(f.backoff, backoff_form);
        case PolicyField::Jitter:
            return form_if_given(f.jitter, jitter_form);
        case PolicyField::RetryOn:
            return form_if_given(f.retry_on, matcher_list_form);
        case PolicyField::NeverRetryOn:
            return form_if_given(f.never_retry_on, matcher_list_form);
        case PolicyField::RetryIf:
            return form_if_given(f.retry_if, names_form);
        case PolicyField::Budget:
            return form_if_given(f.budget, budget_form);
        case PolicyField::Routes:
            return form_if_given(f.routes, routes_form);
        case PolicyField::ServerDelay:
            return form_if_given(f.server_delay, server_delay_form);
        case PolicyField::Hedge:
            return form_if_given(f.hedge, hedge_form);
        default:
            return std::nullopt;
    }
}

// The fields in the table's order.
FormNode fields_form(const PolicyFields& f) {
    FormNode map = FormNode::map(false);
    for (const PolicyFieldInfo& info : policy_fields()) {
        if (!is_top_level(info.id)) {
            continue;
        }
        if (const auto given = f.scalars.find(info.id); given != f.scalars.end()) {
            map.add(std::string(info.wire_name), scalar_form(info, given->second.value));
        } else if (std::optional<FormNode> compound = compound_form(f, info.id)) {
            map.add(std::string(info.wire_name), std::move(*compound));
        }
    }
    return map;
}

// `Name: policy`, or the mapping form when `idempotent` (false included), `calls` or
// `redeliveries` is stated.
FormNode handler_form(const HandlerNode& handler) {
    if (!handler.idempotent && !handler.calls && !handler.redeliveries) {
        return FormNode::word(handler.policy.value);
    }
    FormNode map = FormNode::map(true);
    map.add("policy", FormNode::word(handler.policy.value));
    if (handler.idempotent) {
        map.add("idempotent", FormNode::boolean_value(handler.idempotent->value));
    }
    if (handler.calls) {
        map.add("calls", names_form(*handler.calls));
    }
    if (handler.redeliveries) {
        map.add("redeliveries", FormNode::integer_value(handler.redeliveries->value));
    }
    return map;
}

}  // namespace

FormNode document_form(const Document& document) {
    FormNode root = FormNode::map(false);
    if (document.version) {
        root.add("rebound", FormNode::integer_value(document.version->value));
    }
    if (document.service) {
        root.add("service", FormNode::word(document.service->value));
    }
    if (document.defaults) {
        root.add("defaults", fields_form(document.defaults->fields));
    }
    if (!document.breakers.empty()) {
        FormNode breakers = FormNode::map(false);
        for (const BreakerNode& breaker : document.breakers) {
            breakers.add(breaker.name.value, breaker_form(breaker));
        }
        root.add("breakers", std::move(breakers));
    }
    if (document.has_policies_section || !document.policies.empty()) {
        FormNode policies = FormNode::map(false);
        for (const PolicyNode& policy : document.policies) {
            policies.add(policy.name.value, fields_form(policy.fields));
        }
        root.add("policies", std::move(policies));
    }
    if (!document.handlers.empty()) {
        FormNode handlers = FormNode::map(false);
        for (const HandlerNode& handler : document.handlers) {
            handlers.add(handler.key.value, handler_form(handler));
        }
        root.add("handlers", std::move(handlers));
    }
    if (document.default_policy) {
        root.add("default", FormNode::word(document.default_policy->value));
    }
    return root;
}

}  // namespace rebound::dsl::emit_detail
