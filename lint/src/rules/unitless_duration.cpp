// RB329 unitless-duration: a duration written as a bare integer (`deadline: 5`) in YAML or JSON.
// The format reads it as milliseconds (docs/policy-format.md), which is rarely what someone who
// wrote `deadline: 5` meant; the rule asks for the unit to be written, and is an error by default
// so that a CI gate stops a 5 ms deadline meant as 5 s. 0 needs no unit.
#include <cctype>
#include <string>

#include "rebound/dsl/text_toolkit/source_positions.hpp"
#include "rebound/policy_field.hpp"
#include "rule_support.hpp"
#include "rules.hpp"

namespace rebound::lint::rules {
namespace {

// The bare integer written at `position`, or empty when the text there has a unit (or is not an
// unquoted number at all).
std::string_view bare_integer_at(std::string_view source, SourcePosition position) {
    if (!position.known() || position.column == 0) {
        return {};
    }
    const std::string_view line = dsl::source_line(source, position.line);
    if (position.column > line.size()) {
        return {};
    }
    const std::string_view rest = line.substr(position.column - 1);
    std::size_t digits = 0;
    while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits])) != 0) {
        ++digits;
    }
    const bool ends_here =
        digits == rest.size() ||
        std::string_view(" \t\r,}]#").find(rest[digits]) != std::string_view::npos;
    return digits > 0 && ends_here ? rest.substr(0, digits) : std::string_view{};
}

void check_value(std::string_view source, const dsl::Field<Duration>& value, std::string_view field,
                 RuleReporter& reporter) {
    if (!value) {
        return;
    }
    const std::string_view number = bare_integer_at(source, value->position);
    // 0 needs no unit: it is the same in every unit.
    if (number.find_first_not_of('0') == std::string_view::npos) {
        return;
    }
    const std::string text(number);
    reporter.report(value->position,
                    std::string(field) + ": " + text + " is " + text + " ms; if you meant " + text +
                        " s write " + text + "s, else write " + text + "ms",
                    "durations carry their unit: us, ms, s, m or h");
}

void check_fields(std::string_view source, const dsl::PolicyFields& fields,
                  RuleReporter& reporter) {
    for (const PolicyFieldInfo& field : policy_fields()) {  // deadline, min_attempt_budget, ...
        if (field.kind == FieldKind::TimeSpan && is_top_level(field.id)) {
            check_value(source, fields.duration(field.id), field.wire_name, reporter);
        }
    }
    if (fields.backoff) {
        const dsl::BackoffNode& backoff = *fields.backoff;
        check_value(source, backoff.delay, "backoff.delay", reporter);
        check_value(source, backoff.initial, "backoff.initial", reporter);
        check_value(source, backoff.increment, "backoff.increment", reporter);
        check_value(source, backoff.max, "backoff.max", reporter);
    }
    if (fields.jitter) {
        check_value(source, fields.jitter->amount, "jitter.amount", reporter);
    }
    if (fields.routes) {
        for (const dsl::RouteNode& route : fields.routes->items) {
            check_value(source, route.up_to, "routes.up_to", reporter);
        }
    }
}

void check(const PolicyFileContext& file, RuleReporter& reporter) {
    const dsl::Document& document = file.document();
    if (document.defaults) {
        check_fields(file.source(), document.defaults->fields, reporter);
    }
    for (const dsl::PolicyNode& policy : document.policies) {
        check_fields(file.source(), policy.fields, reporter);
    }
}

}  // namespace

const Rule kUnitlessDuration{
    RuleInfo{"RB329", "unitless-duration", Severity::Error, RuleOrigin::Semantic,
             "a duration written as a bare integer, which is read as milliseconds",
             "YAML and JSON accept a bare integer where a duration goes and read it as "
             "milliseconds, so `deadline: 5` is a 5 ms deadline. Whoever wrote it usually meant "
             "seconds. Write the unit (`5ms`, `5s`) so that the file says what it means. An error "
             "by default: such a file fails `rebound lint` until the unit is written."},
    check};

}  // namespace rebound::lint::rules
