// The YAML and JSON front end: yaml-cpp's node tree to a Document, with a diagnostic for every
// problem of shape (unknown and duplicate keys, wrong types, unknown words, bad durations).
//
// yaml-cpp resolves no scalar types and silently keeps duplicate keys, so every mapping is walked
// by hand here: duplicates are found by this file, and a scalar's kind (integer, float, text) is
// decided from its text and from whether it was quoted (yaml-cpp tags quoted and block scalars
// "!", plain ones "?"), following the YAML 1.2 core schema.
//
// Robustness: the reader descends only along the fixed shape of the format, never along the
// input's own nesting, so self-referring aliases (`&a [*a]`) and deep nesting cannot exhaust the
// stack; yaml-cpp's parser bounds its own depth (DeepRecursion). Text that is not UTF-8 is
// rejected before parsing so that no later stage (JSON output) meets invalid bytes.
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "diagnostic_sink.hpp"
#include "field_locations.hpp"
#include "rebound/dsl/input_limits.hpp"
#include "rebound/dsl/parse.hpp"
#include "rebound/dsl/text_toolkit/numbers.hpp"
#include "rebound/dsl/text_toolkit/quoting.hpp"
#include "rebound/dsl/text_toolkit/source_positions.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"
#include "rebound/error_category.hpp"
#include "rebound/output_text.hpp"
#include "rebound/vendor.hpp"
#include "yaml/input_guard.hpp"
#include "yaml/mapping.hpp"
#include "yaml/nodes.hpp"
#include "yaml/scalars.hpp"
#include "yaml/syntax_messages.hpp"
#include "yaml/text_helpers.hpp"
#include "yaml/vocabulary.hpp"

namespace rebound::dsl::yaml {
namespace {

// ---------------------------------------------------------------------------------------------
// YamlReader: one method per part of the format. Each reader reports what it cannot read and
// returns nullopt for it; callers leave that field absent and carry on.

class YamlReader {
  public:
    YamlReader(std::string_view file, Diagnostics& diagnostics)
        : file_(file), diagnostics_(diagnostics) {}

    // Precondition: `root` is the first document of the file.
    Document read(const YAML::Node& root);

  private:
    // Sections.
    void read_section(const Entry& entry, Document& document);
    void read_defaults(const Entry& entry, Document& document);
    void read_policies(const Entry& entry, Document& document);
    void read_handlers(const Entry& entry, Document& document);
    std::optional<HandlerNode> read_handler(const Entry& entry);
    void read_breakers(const Entry& entry, Document& document);
    BreakerNode read_breaker(const Entry& entry, const Context& context);

    // Policies.
    void read_scalar(const Value& value, const PolicyFieldInfo& info, PolicyFields& fields);
    PolicyFields read_policy_fields(const Value& value, const Context& context, bool is_defaults);
    void read_policy_field(const Entry& entry, const Context& context, bool is_defaults,
                           PolicyFields& fields);
    std::optional<BackoffNode> read_backoff(const Value& value, const Context& context);
    std::optional<JitterNode> read_jitter(const Value& value, const Context& context);
    std::optional<JitterNode> read_jitter_scalar(const Value& value);
    std::optional<JitterNode> read_jitter_mapping(const Value& value, const Context& context);
    std::optional<ListNode<Located<Matcher>>> read_matchers(const Value& value,
                                                            const Context& context);
    std::optional<Matcher> read_matcher(const Value& item, const Context& context);
    std::optional<Matcher> read_matcher_word(const Value& item);
    std::optional<Matcher> read_matcher_mapping(const Value& item, const Context& context);
    std::optional<Matcher> read_native_matcher(const Entry& native, const Entry* vendor,
                                               const Value& item);
    std::optional<Matcher> read_http_matcher(const Value& value);
    std::optional<ListNode<Located<std::string>>> read_names(const Value& value,
                                                             std::string_view list_of,
                                                             std::string_view item);
    std::optional<BudgetNode> read_budget(const Value& value, const Context& context);
    std::optional<ServerDelayNode> read_server_delay(const Value& value, const Context& context);
    std::optional<HedgeNode> read_hedge(const Value& value, const Context& context);
    void read_learned_delay(const Value& value, const Context& context, HedgeNode& node);
    std::optional<ListNode<RouteNode>> read_routes(const Value& value, const Context& context);
    std::optional<RouteNode> read_route(const Value& item, const Context& context);

    // Scalars.
    bool expect_scalar(const Value& value, std::string_view expected);
    bool expect_mapping(const Value& value, std::string_view expected);
    bool expect_list(const Value& value, std::string_view expected);
    Field<std::string> read_text(const Value& value, std::string_view expected);
    Field<std::int64_t> read_integer(const Value& value);
    Field<double> read_number(const Value& value);
    Field<double> read_fraction(const Value& value);
    Field<Duration> read_duration(const Value& value);
    Field<bool> read_bool(const Value& value);
    template <typename T, typename Parse>
    Field<T> read_word(const Value& value, Parse parse, std::span<const std::string_view> words,
                       std::string_view what);

    // The item values of a list, or none (after saying why) when the list or the values read so
    // far cross a limit of input_limits.hpp.
    std::vector<Value> items(const Value& list);
    // Mappings: every entry with a readable, unique key (and, with `allowed`, a known one).
    std::vector<Entry> entries(const Value& map, const Context& context,
                               std::optional<std::span<const std::string_view>> allowed,
                               std::string_view noun);

    void report(DiagnosticCode code, SourcePosition position, std::string field,
                std::string message, std::string suggestion = {});

    std::string file_;
    Diagnostics& diagnostics_;
    // The values read so far, and the tags refused (input_limits.hpp).
    InputGuard guard_{[this](DiagnosticCode code, SourcePosition position, std::string field,
                             std::string message, std::string suggestion) {
        report(code, position, std::move(field), std::move(message), std::move(suggestion));
    }};
};

void YamlReader::report(DiagnosticCode code, SourcePosition position, std::string field,
                        std::string message, std::string suggestion) {
    detail::add_error(diagnostics_, file_, code, position, std::move(field), std::move(message),
                      std::move(suggestion));
}

// ---- Limits ----------------------------------------------------------------------------------

std::vector<Value> YamlReader::items(const Value& list) {
    if (list.node.size() > kMaxListItems) {
        report(DiagnosticCode::LimitExceeded, list.position, list.path,
               list.label + " has " + std::to_string(list.node.size()) +
                   " items, more than the limit of " + std::to_string(kMaxListItems),
               "name error categories or SQLSTATE classes instead of single codes");
        return {};
    }
    if (!guard_.spend(list.node.size(), list.position)) {
        return {};
    }
    std::vector<Value> all = items_of(list);
    std::erase_if(all, [this](const Value& item) {
        return guard_.refuse_tag(item.node, item.position, item.path);
    });
    return all;
}

// ---- Mappings --------------------------------------------------------------------------------

std::vector<Entry> YamlReader::entries(const Value& map, const Context& context,
                                       std::optional<std::span<const std::string_view>> allowed,
                                       std::string_view noun) {
    std::vector<Entry> result;
    const MappingWalk walk{map.node, map.position, context.path, context.where, noun, allowed};
    MappingHooks hooks = guard_.hooks(context.path);
    hooks.screen = [this, &context](const MappingEntry& entry) {
        if (!guard_.screen(entry, context.path)) {
            return false;
        }
        if (entry.key.Scalar() == "<<" && is_plain_scalar(entry.key)) {
            report(DiagnosticCode::UnknownKey, entry.key_position, entry.path,
                   "merge keys ('<<') are not supported " + context.where,
                   "use extends to share the fields of a policy");
            return false;
        }
        return true;
    };
    walk_mapping(
        walk,
        [this](DiagnosticCode code, SourcePosition position, std::string field, std::string message,
               std::string suggestion) {
            report(code, position, std::move(field), std::move(message), std::move(suggestion));
        },
        [&result, noun](const MappingEntry& entry) {
            const std::string& name = entry.key.Scalar();
            // Keys of the format are named by themselves; user-chosen names by what they are.
            const std::string label = noun == "key"
                                          ? quoted_excerpt(name)
                                          : std::string(noun) + " " + quoted_excerpt(name);
            SourcePosition value_position = position_of(entry.value.Mark());
            if (entry.value.IsNull() || !value_position.known()) {
                value_position = entry.key_position;  // an empty value's mark points at the next
                                                      // token
            }
            result.push_back(Entry{name, entry.key_position,
                                   Value{entry.value, value_position, entry.path, name, label}});
        },
        hooks);
    return result;
}

// ---- Scalars ---------------------------------------------------------------------------------

bool YamlReader::expect_scalar(const Value& value, std::string_view expected) {
    if (value.node.IsScalar()) {
        return true;
    }
    if (value.node.IsNull()) {
        report(DiagnosticCode::WrongType, value.position, value.path,
               value.label + " needs a value: " + std::string(expected));
    } else {
        report(DiagnosticCode::WrongType, value.position, value.path,
               value.label + " must be " + std::string(expected) + ", got " + describe(value.node));
    }
    return false;
}

bool YamlReader::expect_mapping(const Value& value, std::string_view expected) {
    if (value.node.IsMap()) {
        return true;
    }
    report(DiagnosticCode::WrongType, value.position, value.path,
           value.label + " must be " + std::string(expected) + ", got " + describe(value.node));
    return false;
}

bool YamlReader::expect_list(const Value& value, std::string_view expected) {
    if (value.node.IsSequence()) {
        return true;
    }
    std::string suggestion;
    if (value.node.IsScalar()) {
        suggestion = "write [" + excerpt(value.node.Scalar()) + "] for a list of one";
    } else if (value.node.IsNull()) {
        suggestion = "write [] for an empty list";
    }
    report(DiagnosticCode::WrongType, value.position, value.path,
           value.label + " must be " + std::string(expected) + ", got " + describe(value.node),
           suggestion);
    return false;
}

Field<std::string> YamlReader::read_text(const Value& value, std::string_view expected) {
    if (!expect_scalar(value, expected)) {
        return std::nullopt;
    }
    return Located<std::string>{value.node.Scalar(), value.position};
}

// Counts and native codes: plain decimal integers only (a quoted "3" is text, 3.0 is a float).
Field<std::int64_t> YamlReader::read_integer(const Value& value) {
    if (!expect_scalar(value, "a whole number")) {
        return std::nullopt;
    }
    const std::string& text = value.node.Scalar();
    const ParsedInteger parsed = is_quoted(value.node) ? ParsedInteger{} : parse_integer(text);
    if (parsed.status == IntegerStatus::TooLarge) {
        report(DiagnosticCode::OutOfRange, value.position, value.path,
               value.label + " is too large: " + excerpt(text));
        return std::nullopt;
    }
    if (parsed.status == IntegerStatus::NotInteger) {
        std::string suggestion;
        if (is_quoted(value.node) && looks_like_integer(text)) {
            suggestion = "write " + excerpt(text) + " without quotes";
        }
        report(DiagnosticCode::WrongType, value.position, value.path,
               value.label + " must be a whole number, got " + describe(value.node), suggestion);
        return std::nullopt;
    }
    return Located<std::int64_t>{parsed.value, value.position};
}

// Factors: plain integers or floats; .inf, .nan and numbers beyond a double are out of range.
Field<double> YamlReader::read_number(const Value& value) {
    if (!expect_scalar(value, "a number")) {
        return std::nullopt;
    }
    const std::string& text = value.node.Scalar();
    if (is_plain_scalar(value.node)) {
        bool out_of_range = false;
        if (const std::optional<double> number = parse_finite_number(text, out_of_range)) {
            return Located<double>{*number, value.position};
        }
        if (out_of_range || looks_like_non_finite(text)) {
            report(DiagnosticCode::OutOfRange, value.position, value.path,
                   value.label + " must be a finite number, got " + excerpt(text));
            return std::nullopt;
        }
    }
    report(DiagnosticCode::WrongType, value.position, value.path,
           value.label + " must be a number, got " + describe(value.node));
    return std::nullopt;
}

// A number, or a percentage such as 5% (read as 0.05, by moving the decimal point).
Field<double> YamlReader::read_fraction(const Value& value) {
    if (value.node.IsScalar() && is_plain_scalar(value.node)) {
        const std::string& written = value.node.Scalar();
        const std::string_view number = std::string_view(written).substr(0, written.size() - 1);
        if (written.ends_with('%') && is_decimal_text(number)) {
            bool out_of_range = false;
            if (const std::optional<double> fraction =
                    parse_finite_number(percent_as_fraction(number), out_of_range)) {
                return Located<double>{*fraction, value.position};
            }
            report(DiagnosticCode::OutOfRange, value.position, value.path,
                   value.label + " must be a finite percentage, got " + excerpt(written));
            return std::nullopt;
        }
    }
    return read_number(value);
}

// A duration with a unit (parse_duration), or a plain integer meaning milliseconds.
Field<Duration> YamlReader::read_duration(const Value& value) {
    if (!expect_scalar(value, "a duration such as 250ms")) {
        return std::nullopt;
    }
    const std::string& text = value.node.Scalar();
    const auto invalid = [&](std::string message) -> Field<Duration> {
        report(DiagnosticCode::InvalidDuration, value.position, value.path, std::move(message));
        return std::nullopt;
    };
    if (is_plain_scalar(value.node) && looks_like_float(text)) {
        if (!text.empty() && text.front() == '-') {
            return invalid("durations must not be negative, got " + quoted_excerpt(text));
        }
        const ParsedInteger milliseconds = parse_integer(text);
        if (milliseconds.status == IntegerStatus::NotInteger) {
            std::string ignored;
            const bool fits_unit = parse_duration(text + "ms", ignored).has_value();
            return invalid("a bare number is milliseconds and must be an integer; write " +
                           (fits_unit ? excerpt(text) + "ms" : "a duration such as 1500ms"));
        }
        if (milliseconds.status == IntegerStatus::TooLarge ||
            milliseconds.value > kLargestBareMilliseconds) {
            return invalid("duration " + quoted_excerpt(text) +
                           " is too large (the limit is 30 days)");
        }
        return Located<Duration>{Duration{milliseconds.value * 1000}, value.position};
    }
    std::string error;
    if (const std::optional<Duration> duration = parse_duration(text, error)) {
        return Located<Duration>{*duration, value.position};
    }
    return invalid(error);
}

// YAML 1.2 booleans only: true and false (also capitalised); `yes` and `on` are not booleans.
Field<bool> YamlReader::read_bool(const Value& value) {
    if (!expect_scalar(value, "true or false")) {
        return std::nullopt;
    }
    const std::string& text = value.node.Scalar();
    if (is_plain_scalar(value.node)) {
        if (text == "true" || text == "True" || text == "TRUE") {
            return Located<bool>{true, value.position};
        }
        if (text == "false" || text == "False" || text == "FALSE") {
            return Located<bool>{false, value.position};
        }
    }
    report(DiagnosticCode::WrongType, value.position, value.path,
           value.label + " must be true or false, got " + describe(value.node));
    return std::nullopt;
}

template <typename T, typename Parse>
Field<T> YamlReader::read_word(const Value& value, Parse parse,
                               std::span<const std::string_view> words, std::string_view what) {
    if (!expect_scalar(value, "one of " + join_words(words))) {
        return std::nullopt;
    }
    const std::string& text = value.node.Scalar();
    if (const std::optional<T> parsed = parse(text)) {
        return Located<T>{*parsed, value.position};
    }
    report(DiagnosticCode::UnknownValue, value.position, value.path,
           "unknown " + std::string(what) + " " + quoted_excerpt(text),
           suggestion_for(text, words));
    return std::nullopt;
}

// ---- Document and sections -------------------------------------------------------------------

Document YamlReader::read(const YAML::Node& root) {
    Document document;
    document.file = file_;
    if (!root.IsDefined() || root.IsNull()) {
        return document;  // an empty file: the validator reports the missing sections
    }
    SourcePosition root_position = position_of(root.Mark());
    if (!root_position.known()) {
        root_position = {1, 1};
    }
    if (guard_.refuse_tag(root, root_position, "")) {
        return document;
    }
    if (!root.IsMap()) {
        report(DiagnosticCode::WrongType, root_position, "",
               "a policy file must be a mapping with the keys rebound, service and policies, got " +
                   describe(root));
        return document;
    }
    const Context top{"", "at the top level", "the file"};
    for (const Entry& entry :
         entries(Value{root, root_position, "", "", "the file"}, top, kTopLevelKeys, "key")) {
        read_section(entry, document);
    }
    return document;
}

void YamlReader::read_section(const Entry& entry, Document& document) {
    if (entry.key == "rebound") {
        document.version = read_integer(entry.value);
    } else if (entry.key == "service") {
        document.service = read_text(entry.value, "a service name");
    } else if (entry.key == "defaults") {
        read_defaults(entry, document);
    } else if (entry.key == "policies") {
        read_policies(entry, document);
    } else if (entry.key == "handlers") {
        read_handlers(entry, document);
    } else if (entry.key == "breakers") {
        read_breakers(entry, document);
    } else if (entry.key == "default") {
        document.default_policy = read_text(entry.value, "a policy name");
    } else if (entry.key == "$schema") {
        // For editors only: one value (the URI), otherwise ignored (docs/policy-format.md).
        static_cast<void>(read_text(entry.value, "the URI of the policy JSON Schema"));
    }
}

// An empty `defaults:` is accepted as defaults without fields.
void YamlReader::read_defaults(const Entry& entry, Document& document) {
    if (!entry.value.node.IsNull() &&
        !expect_mapping(entry.value, "a mapping of policy fields such as max_attempts: 3")) {
        return;
    }
    const Context context{"defaults", "in defaults", "defaults"};
    document.defaults =
        DefaultsNode{read_policy_fields(entry.value, context, true), entry.key_position};
}

// An empty `policies:` is an empty section; the validator reports that one policy is needed.
void YamlReader::read_policies(const Entry& entry, Document& document) {
    document.has_policies_section = true;
    document.policies_position = entry.key_position;
    if (entry.value.node.IsNull() ||
        !expect_mapping(entry.value, "a mapping of policy names to policies")) {
        return;
    }
    const Context context{"policies", "in policies", "policies"};
    for (const Entry& policy : entries(entry.value, context, std::nullopt, "policy")) {
        // An empty policy (`p:` alone) is a policy with every field inherited or defaulted.
        if (!policy.value.node.IsNull() &&
            !expect_mapping(policy.value, "a mapping of fields such as max_attempts: 3")) {
            continue;
        }
        const Context policy_context{policy.value.path, "in policy " + quoted_excerpt(policy.key),
                                     "policy " + quoted_excerpt(policy.key)};
        PolicyNode node;
        node.name = Located<std::string>{policy.key, policy.key_position};
        node.position = policy.key_position;
        const std::size_t problems_before = diagnostics_.size();
        node.fields = read_policy_fields(policy.value, policy_context, false);
        node.read_with_errors = diagnostics_.size() > problems_before || guard_.over_budget();
        document.policies.push_back(std::move(node));
    }
}

void YamlReader::read_handlers(const Entry& entry, Document& document) {
    if (entry.value.node.IsNull() ||
        !expect_mapping(entry.value, "a mapping of handler names to policy names")) {
        return;
    }
    const Context context{"handlers", "in handlers", "handlers"};
    for (const Entry& handler : entries(entry.value, context, std::nullopt, "handler")) {
        if (std::optional<HandlerNode> node = read_handler(handler)) {
            document.handlers.push_back(std::move(*node));
        }
    }
}

// `breakers: { NAME: { failure_ratio: 0.5, ... } }` (docs/resilience.md). An empty breaker
// (`NAME:` alone) takes every default.
void YamlReader::read_breakers(const Entry& entry, Document& document) {
    if (entry.value.node.IsNull() ||
        !expect_mapping(entry.value, "a mapping of breaker names to breaker settings")) {
        return;
    }
    const Context context{"breakers", "in breakers", "breakers"};
    for (const Entry& breaker : entries(entry.value, context, std::nullopt, "breaker")) {
        if (!breaker.value.node.IsNull() &&
            !expect_mapping(breaker.value, "a mapping of settings such as failure_ratio: 0.5")) {
            continue;
        }
        const Context breaker_context{breaker.value.path,
                                      "in breaker " + quoted_excerpt(breaker.key),
                                      "breaker " + quoted_excerpt(breaker.key)};
        document.breakers.push_back(read_breaker(breaker, breaker_context));
    }
}

BreakerNode YamlReader::read_breaker(const Entry& entry, const Context& context) {
    BreakerNode node;
    node.name = Located<std::string>{entry.key, entry.key_position};
    node.position = entry.key_position;
    if (entry.value.node.IsNull()) {
        return node;
    }
    for (const Entry& setting : entries(entry.value, context, kBreakerKeys, "key")) {
        const Value& value = setting.value;
        if (setting.key == "failure_ratio") {
            node.failure_ratio = read_number(value);
        } else if (setting.key == "minimum_calls") {
            node.minimum_calls = read_integer(value);
        } else if (setting.key == "window") {
            node.window = read_duration(value);
        } else if (setting.key == "consecutive_failures") {
            node.consecutive_failures = read_integer(value);
        } else if (setting.key == "open_for") {
            node.open_for = read_duration(value);
        } else if (setting.key == "max_open_for") {
            node.max_open_for = read_duration(value);
        } else if (setting.key == "half_open_calls") {
            node.half_open_calls = read_integer(value);
        } else if (setting.key == "slow_call") {
            node.slow_call = read_duration(value);
        } else if (setting.key == "failures") {
            node.failures = read_matchers(value, context);
        }
    }
    return node;
}

// `Name: policy` or `Name: { policy: NAME, idempotent: BOOL, calls: [NAME...], redeliveries: N }`;
// without a readable policy the binding is dropped.
std::optional<HandlerNode> YamlReader::read_handler(const Entry& entry) {
    HandlerNode node;
    node.key = Located<std::string>{entry.key, entry.key_position};
    node.position = entry.key_position;
    if (!entry.value.node.IsMap()) {
        Field<std::string> policy = read_text(entry.value, "a policy name");
        if (!policy) {
            return std::nullopt;
        }
        node.policy = std::move(*policy);
        return node;
    }
    const Context context{entry.value.path, "in handler " + quoted_excerpt(entry.key),
                          "handler " + quoted_excerpt(entry.key)};
    Field<std::string> policy;
    bool policy_given = false;
    for (const Entry& field : entries(entry.value, context, kHandlerKeys, "key")) {
        if (field.key == "policy") {
            policy_given = true;
            policy = read_text(field.value, "a policy name");
        } else if (field.key == "idempotent") {
            node.idempotent = read_bool(field.value);
        } else if (field.key == "calls") {
            node.calls = read_names(field.value, "a list of handler names", "a handler name");
        } else if (field.key == "redeliveries") {
            node.redeliveries = read_integer(field.value);
        }
    }
    if (!policy_given) {
        report(DiagnosticCode::MissingField, entry.value.position, entry.value.path + ".policy",
               "handler " + quoted_excerpt(entry.key) + " needs a policy",
               "write { policy: NAME, idempotent: true }");
    }
    if (!policy) {
        return std::nullopt;
    }
    node.policy = std::move(*policy);
    return node;
}

// ---- Policies --------------------------------------------------------------------------------

PolicyFields YamlReader::read_policy_fields(const Value& value, const Context& context,
                                            bool is_defaults) {
    PolicyFields fields;
    if (value.node.IsNull()) {
        return fields;
    }
    for (const Entry& entry : entries(value, context, detail::policy_keys(), "key")) {
        read_policy_field(entry, context, is_defaults, fields);
    }
    return fields;
}

void YamlReader::read_policy_field(const Entry& entry, const Context& context, bool is_defaults,
                                   PolicyFields& fields) {
    const Value& value = entry.value;
    const std::optional<PolicyField> field = detail::policy_field_named(entry.key);
    if (!field) {
        return;  // reported by entries()
    }
    if (*field == PolicyField::Extends && is_defaults) {
        report(DiagnosticCode::UnknownKey, entry.key_position, value.path,
               "defaults cannot extend a policy: 'extends' belongs in a policy");
        return;
    }
    const PolicyFieldInfo& info = info_of(*field);
    if (is_scalar(info.kind)) {
        read_scalar(value, info, fields);
        return;
    }
    switch (*field) {
        case PolicyField::Backoff:
            fields.backoff = read_backoff(value, context);
            break;
        case PolicyField::Jitter:
            fields.jitter = read_jitter(value, context);
            break;
        case PolicyField::RetryOn:
            fields.retry_on = read_matchers(value, context);
            break;
        case PolicyField::NeverRetryOn:
            fields.never_retry_on = read_matchers(value, context);
            break;
        case PolicyField::RetryIf:
            fields.retry_if = read_names(value, "a list of predicate names", "a predicate name");
            break;
        case PolicyField::Budget:
            fields.budget = read_budget(value, context);
            break;
        case PolicyField::Routes:
            fields.routes = read_routes(value, context);
            break;
        case PolicyField::ServerDelay:
            fields.server_delay = read_server_delay(value, context);
            break;
        case PolicyField::Hedge:
            fields.hedge = read_hedge(value, context);
            break;
        default:  // not a key of a policy mapping
            break;
    }
}

// A top-level scalar field's value, read by the kind of the field's row.
void YamlReader::read_scalar(const Value& value, const PolicyFieldInfo& info,
                             PolicyFields& fields) {
    switch (info.kind) {
        case FieldKind::Count:
            fields.set(info.id, read_integer(value));
            break;
        case FieldKind::Number:
            fields.set(info.id, read_number(value));
            break;
        case FieldKind::TimeSpan:
            fields.set(info.id, read_duration(value));
            break;
        case FieldKind::Name:
        case FieldKind::Text:
            fields.set(info.id, read_text(value, info.example));
            break;
        case FieldKind::Word: {
            const auto word_of = [&info](std::string_view text) -> std::optional<std::string> {
                const std::optional<std::string_view> word = detail::word_in(info, text);
                return word ? std::optional(std::string(*word)) : std::nullopt;
            };
            fields.set(info.id, read_word<std::string>(value, word_of, info.words, info.example));
            break;
        }
        default:  // groups and lists: read_policy_field
            break;
    }
}

// `{ type: T, delay|initial|increment|multiplier|max: ... }`, or a bare type word such as
// `backoff: none`. Which fields belong to which type is the validator's rule. Without a readable
// type the backoff is dropped, after its other fields have been checked.
std::optional<BackoffNode> YamlReader::read_backoff(const Value& value, const Context& context) {
    BackoffNode node;
    node.position = value.position;
    if (value.node.IsScalar()) {
        const Field<BackoffType> type = read_word<BackoffType>(
            value, parse_word<BackoffType>, words_of<BackoffType>(), "backoff type");
        if (!type) {
            return std::nullopt;
        }
        node.type = *type;
        return node;
    }
    if (!expect_mapping(value, "a mapping such as { type: exponential, initial: 100ms }")) {
        return std::nullopt;
    }
    const Context backoff_context = context.part("backoff", "the backoff");
    bool type_given = false;
    bool type_read = false;
    for (const Entry& entry :
         entries(value, backoff_context, detail::keys_inside(PolicyField::Backoff), "key")) {
        if (entry.key == "type") {
            type_given = true;
            if (const Field<BackoffType> type =
                    read_word<BackoffType>(entry.value, parse_word<BackoffType>,
                                           words_of<BackoffType>(), "backoff type")) {
                node.type = *type;
                type_read = true;
            }
        } else if (entry.key == "delay") {
            node.delay = read_duration(entry.value);
        } else if (entry.key == "initial") {
            node.initial = read_duration(entry.value);
        } else if (entry.key == "increment") {
            node.increment = read_duration(entry.value);
        } else if (entry.key == "multiplier") {
            node.multiplier = read_number(entry.value);
        } else if (entry.key == "max") {
            node.max = read_duration(entry.value);
        }
    }
    if (!type_given) {
        report(DiagnosticCode::MissingField, value.position, value.path + ".type",
               "the backoff " + context.where + " needs a type",
               "expected one of " + join_words(words_of<BackoffType>()));
    }
    if (!type_read) {
        return std::nullopt;
    }
    return node;
}

// A word (none, full, equal, decorrelated), a bare duration (bounded by that amount), or a
// mapping `{ type: T, amount: D, factor: F }`.
std::optional<JitterNode> YamlReader::read_jitter(const Value& value, const Context& context) {
    if (value.node.IsScalar()) {
        return read_jitter_scalar(value);
    }
    if (!expect_mapping(value,
                        "a word such as full, a duration such as 1s, or a mapping such as "
                        "{ type: proportional, factor: 0.2 }")) {
        return std::nullopt;
    }
    return read_jitter_mapping(value, context);
}

// "20%" -> "0.2": the factor a percentage stands for, or nullopt when `text` is not one.
std::optional<std::string> percentage_as_factor(std::string_view text) {
    if (!text.ends_with('%')) {
        return std::nullopt;
    }
    const std::string_view number = text.substr(0, text.size() - 1);
    double percent = 0;
    const auto [end, error] =
        std::from_chars(number.data(), number.data() + number.size(), percent);
    if (error != std::errc{} || end != number.data() + number.size() || number.empty()) {
        return std::nullopt;
    }
    std::ostringstream factor;
    factor << percent / 100.0;
    return factor.str();
}

std::optional<JitterNode> YamlReader::read_jitter_scalar(const Value& value) {
    const std::string& text = value.node.Scalar();
    JitterNode node;
    node.position = value.position;
    if (const std::optional<JitterType> word = parse_bare_jitter_word(text)) {
        node.type = Located<JitterType>{*word, value.position};
        return node;
    }
    if (const std::optional<std::string> factor = percentage_as_factor(text)) {
        report(DiagnosticCode::InvalidValue, value.position, value.path,
               "jitter " + quoted_excerpt(text) +
                   " is not a jitter: a percentage is written as a factor",
               "write { type: proportional, factor: " + *factor + " }");
        return std::nullopt;
    }
    const bool looks_like_amount =
        !text.empty() && (is_digit(text.front()) || text.front() == '-' || text.front() == '+' ||
                          text.front() == '.');
    if (looks_like_amount) {
        Field<Duration> amount = read_duration(value);
        if (!amount) {
            return std::nullopt;
        }
        node.type = Located<JitterType>{JitterType::Bounded, value.position};
        node.amount = amount;
        return node;
    }
    if (const std::optional<JitterType> type = parse_word<JitterType>(text)) {
        const bool bounded = *type == JitterType::Bounded;
        report(DiagnosticCode::MissingField, value.position, value.path,
               "jitter " + quoted_excerpt(text) + " needs " + (bounded ? "an amount" : "a factor"),
               bounded ? "write { type: bounded, amount: 1s } or jitter: 1s"
                       : "write { type: proportional, factor: 0.2 }");
        return std::nullopt;
    }
    std::string suggestion = did_you_mean(text, bare_jitter_words());
    if (suggestion.empty()) {
        suggestion = "expected one of " + join_words(bare_jitter_words()) +
                     ", a duration such as 1s, or a mapping such as "
                     "{ type: proportional, factor: 0.2 }";
    }
    report(DiagnosticCode::UnknownValue, value.position, value.path,
           "unknown jitter " + quoted_excerpt(text), suggestion);
    return std::nullopt;
}

// Which of amount and factor a type needs is the validator's rule.
std::optional<JitterNode> YamlReader::read_jitter_mapping(const Value& value,
                                                          const Context& context) {
    JitterNode node;
    node.position = value.position;
    const Context jitter_context = context.part("jitter", "the jitter");
    bool type_given = false;
    bool type_read = false;
    for (const Entry& entry :
         entries(value, jitter_context, detail::keys_inside(PolicyField::Jitter), "key")) {
        if (entry.key == "type") {
            type_given = true;
            if (const Field<JitterType> type = read_word<JitterType>(
                    entry.value, parse_word<JitterType>, words_of<JitterType>(), "jitter type")) {
                node.type = *type;
                type_read = true;
            }
        } else if (entry.key == "amount") {
            node.amount = read_duration(entry.value);
        } else if (entry.key == "factor") {
            node.factor = read_number(entry.value);
        }
    }
    if (!type_given) {
        report(DiagnosticCode::MissingField, value.position, value.path + ".type",
               "the jitter " + context.where + " needs a type",
               "expected one of " + join_words(words_of<JitterType>()));
    }
    if (!type_read) {
        return std::nullopt;
    }
    return node;
}

// A list of matchers; items that cannot be read are reported and left out.
std::optional<ListNode<Located<Matcher>>> YamlReader::read_matchers(const Value& value,
                                                                    const Context& context) {
    if (!expect_list(value, "a list of matchers such as [deadlock, { sqlstate: \"40001\" }]")) {
        return std::nullopt;
    }
    ListNode<Located<Matcher>> list;
    list.position = value.position;
    for (const Value& item : items(value)) {
        const Context item_context{item.path, "in " + value.key + " of " + context.owner,
                                   context.owner};
        if (std::optional<Matcher> matcher = read_matcher(item, item_context)) {
            list.items.push_back(Located<Matcher>{std::move(*matcher), item.position});
        }
    }
    return list;
}

std::optional<Matcher> YamlReader::read_matcher(const Value& item, const Context& context) {
    if (item.node.IsScalar()) {
        return read_matcher_word(item);
    }
    if (!expect_mapping(item,
                        "a category such as deadlock or a mapping such as "
                        "{ sqlstate: \"40001\" }")) {
        return std::nullopt;
    }
    return read_matcher_mapping(item, context);
}

// The mapping meant by a matcher written as one `kind:value` word, as explain and convert print
// rules (`grpc:UNAVAILABLE`, `native:mysql:1213`); empty when `word` is not one.
std::string mapping_for_matcher_word(std::string_view word) {
    const std::size_t colon = word.find(':');
    if (colon == std::string_view::npos || colon + 1 == word.size()) {
        return {};
    }
    const std::string_view kind = word.substr(0, colon);
    const std::string value(word.substr(colon + 1));
    if (kind == "category") {
        return "write the category alone: " + value;
    }
    if (kind == "native") {
        const std::size_t at = value.find(':');
        return at == std::string::npos
                   ? std::string{}
                   : "write it as a mapping: { native: " + value.substr(at + 1) +
                         ", vendor: " + value.substr(0, at) + " }";
    }
    const bool quoted_value = kind == "sqlstate" || kind == "sqlstate_class" || kind == "message";
    for (const std::string_view key : kMatcherKeys) {
        if (key == kind && key != "vendor") {
            return "write it as a mapping: { " + std::string(key) + ": " +
                   (quoted_value ? "\"" + value + "\"" : value) + " }";
        }
    }
    return {};
}

// A category name, or `transient` for every category retryable by default.
std::optional<Matcher> YamlReader::read_matcher_word(const Value& item) {
    const std::string& word = item.node.Scalar();
    if (word == kTransientGroupName) {
        return Matcher::transient();
    }
    if (const std::optional<ErrorCategory> category = parse_category(word)) {
        return Matcher::of_category(*category);
    }
    std::string suggestion = mapping_for_matcher_word(word);
    if (suggestion.empty()) {
        suggestion = did_you_mean(word, category_words());
    }
    if (suggestion.empty()) {
        suggestion =
            "expected a category such as deadlock or transient (docs/categories.md), or "
            "a mapping such as { sqlstate: \"40001\" } or { grpc: UNAVAILABLE }";
    }
    report(DiagnosticCode::UnknownValue, item.position, item.path,
           "unknown error category " + quoted_excerpt(word), suggestion);
    return std::nullopt;
}

// Exactly one kind of key (sqlstate, sqlstate_class, native, error, http, message); `vendor`
// goes with `native` only. The value's format (5-character SQLSTATE ...) is the validator's rule.
std::optional<Matcher> YamlReader::read_matcher_mapping(const Value& item, const Context& context) {
    const std::vector<Entry> fields = entries(item, context, kMatcherKeys, "key");
    const Entry* kind = nullptr;
    const Entry* vendor = nullptr;
    bool conflicting = false;
    for (const Entry& field : fields) {
        if (field.key == "vendor") {
            vendor = &field;
        } else if (kind == nullptr) {
            kind = &field;
        } else {
            report(DiagnosticCode::ConflictingFields, field.key_position, field.value.path,
                   "a matcher has one kind, but " + quoted_excerpt(kind->key) + " and " +
                       quoted_excerpt(field.key) + " are given together " + context.where,
                   "write them as two items of the list");
            conflicting = true;
        }
    }
    if (conflicting) {
        return std::nullopt;
    }
    if (kind == nullptr) {
        if (vendor == nullptr && item.node.size() != 0) {
            return std::nullopt;  // every key was unreadable and has been reported
        }
        if (vendor != nullptr) {
            report(DiagnosticCode::MissingField, item.position, item.path + ".native",
                   "a matcher with a vendor needs a native error code",
                   "write { native: 1213, vendor: mysql }");
        } else {
            report(DiagnosticCode::MissingField, item.position, item.path,
                   "empty matcher " + context.where,
                   "expected one of sqlstate, sqlstate_class, native, error, http, grpc, message");
        }
        return std::nullopt;
    }
    if (kind->key == "native") {
        return read_native_matcher(*kind, vendor, item);
    }
    if (vendor != nullptr) {
        report(DiagnosticCode::ConflictingFields, vendor->key_position, vendor->value.path,
               "'vendor' goes with 'native' only, not with " + quoted_excerpt(kind->key),
               "write { native: 1213, vendor: mysql }");
        return std::nullopt;
    }
    if (kind->key == "http") {
        return read_http_matcher(kind->value);
    }
    if (kind->key == "grpc") {
        const Field<GrpcStatus> status =
            read_word<GrpcStatus>(kind->value, parse_grpc_status, kGrpcStatusNames, "gRPC status");
        return status ? std::optional<Matcher>(Matcher::grpc_status(status->value)) : std::nullopt;
    }
    // sqlstate, sqlstate_class, error, message: the scalar's text (an unquoted 40001 included).
    const Field<std::string> text = read_text(kind->value, "a text");
    if (!text) {
        return std::nullopt;
    }
    if (kind->key == "sqlstate") {
        return Matcher::sqlstate(text->value);
    }
    if (kind->key == "sqlstate_class") {
        return Matcher::sqlstate_class(text->value);
    }
    if (kind->key == "error") {
        return Matcher::error_type(text->value);
    }
    return Matcher::message(text->value);
}

std::optional<Matcher> YamlReader::read_native_matcher(const Entry& native, const Entry* vendor,
                                                       const Value& item) {
    const Field<std::int64_t> code = read_integer(native.value);
    Field<Vendor> vendor_value;
    if (vendor == nullptr) {
        report(DiagnosticCode::MissingField, item.position, item.path + ".vendor",
               "a native error code needs its vendor",
               "write { native: 1213, vendor: mysql }; vendors: " + join_words(vendor_words()));
    } else {
        vendor_value = read_word<Vendor>(vendor->value, parse_vendor, vendor_words(), "vendor");
    }
    if (!code || !vendor_value) {
        return std::nullopt;
    }
    return Matcher::native(vendor_value->value, code->value);
}

// `503` (a status) or `5xx` (a class of a hundred statuses).
std::optional<Matcher> YamlReader::read_http_matcher(const Value& value) {
    if (!expect_scalar(value, "an HTTP status such as 503 or a class such as 5xx")) {
        return std::nullopt;
    }
    const std::string& text = value.node.Scalar();
    const ParsedInteger status = parse_integer(text);
    if (status.status == IntegerStatus::Ok) {
        if (status.value < std::numeric_limits<int>::min() ||
            status.value > std::numeric_limits<int>::max()) {
            report(DiagnosticCode::OutOfRange, value.position, value.path,
                   "HTTP status " + excerpt(text) + " is out of range");
            return std::nullopt;
        }
        return Matcher::http_status(static_cast<int>(status.value));
    }
    const bool is_class = text.size() == 3 && text[0] >= '1' && text[0] <= '9' &&
                          (text[1] == 'x' || text[1] == 'X') && (text[2] == 'x' || text[2] == 'X');
    if (is_class) {
        return Matcher::http_class(text[0] - '0');
    }
    report(
        status.status == IntegerStatus::TooLarge ? DiagnosticCode::OutOfRange
                                                 : DiagnosticCode::InvalidValue,
        value.position, value.path,
        "expected an HTTP status such as 503 or a class such as 5xx, got " + quoted_excerpt(text));
    return std::nullopt;
}

// `retry_if` (predicate names) and `calls` (handler names): a list of names, `list_of` and
// `item` saying what is expected in messages.
std::optional<ListNode<Located<std::string>>> YamlReader::read_names(const Value& value,
                                                                     std::string_view list_of,
                                                                     std::string_view item_kind) {
    if (!expect_list(value, list_of)) {
        return std::nullopt;
    }
    ListNode<Located<std::string>> list;
    list.position = value.position;
    for (const Value& item : items(value)) {
        if (Field<std::string> name = read_text(item, item_kind)) {
            list.items.push_back(std::move(*name));
        }
    }
    return list;
}

// Whether both fields are given is the validator's rule.
std::optional<BudgetNode> YamlReader::read_budget(const Value& value, const Context& context) {
    if (!expect_mapping(value, "a mapping such as { max_tokens: 100, token_ratio: 0.1 }")) {
        return std::nullopt;
    }
    BudgetNode node;
    node.position = value.position;
    for (const Entry& entry : entries(value, context.part("budget", "the budget"),
                                      detail::keys_inside(PolicyField::Budget), "key")) {
        if (entry.key == "max_tokens") {
            node.max_tokens = read_integer(entry.value);
        } else if (entry.key == "token_ratio") {
            node.token_ratio = read_number(entry.value);
        }
    }
    return node;
}

// `server_delay: { use: max, cap: 5m, over_cap: stop, spread: 0.1 }`, every key optional.
std::optional<ServerDelayNode> YamlReader::read_server_delay(const Value& value,
                                                             const Context& context) {
    if (!expect_mapping(value, "a mapping such as { use: max, cap: 30s, over_cap: stop }")) {
        return std::nullopt;
    }
    ServerDelayNode node;
    node.position = value.position;
    for (const Entry& entry : entries(value, context.part("server_delay", "server_delay"),
                                      detail::keys_inside(PolicyField::ServerDelay), "key")) {
        if (entry.key == "use") {
            node.use = read_word<ServerDelayUse>(entry.value, parse_word<ServerDelayUse>,
                                                 words_of<ServerDelayUse>(), "server_delay use");
        } else if (entry.key == "cap") {
            node.cap = read_duration(entry.value);
        } else if (entry.key == "over_cap") {
            node.over_cap = read_word<OverCapAction>(entry.value, parse_word<OverCapAction>,
                                                     words_of<OverCapAction>(), "over_cap action");
        } else if (entry.key == "spread") {
            node.spread = read_number(entry.value);
        }
    }
    return node;
}

// `hedge: none`, or `{ delay: 20ms | { quantile, min, max }, max_extra_load, burst, on_failure,
// window, warmup }` (docs/hedging.md); left out when it is neither.
std::optional<HedgeNode> YamlReader::read_hedge(const Value& value, const Context& context) {
    HedgeNode node;
    node.position = value.position;
    if (value.node.IsScalar() && value.node.Scalar() == "none") {  // JSON quotes it
        node.none = true;
        return node;
    }
    if (!expect_mapping(value, "none, or a mapping such as { delay: 20ms }")) {
        return std::nullopt;
    }
    const Context hedge_context = context.part("hedge", "the hedge");
    for (const Entry& entry :
         entries(value, hedge_context, detail::keys_inside(PolicyField::Hedge), "key")) {
        if (entry.key == "delay") {  // required: the validator says so when it is missing
            if (entry.value.node.IsMap()) {
                read_learned_delay(entry.value, hedge_context, node);
            } else {
                node.delay = read_duration(entry.value);
            }
        } else if (entry.key == "max_extra_load") {
            node.max_extra_load = read_fraction(entry.value);
        } else if (entry.key == "burst") {
            node.burst = read_integer(entry.value);
        } else if (entry.key == "on_failure") {
            node.on_failure = read_word<HedgeOnFailure>(entry.value, parse_word<HedgeOnFailure>,
                                                        words_of<HedgeOnFailure>(), "on_failure");
        } else if (entry.key == "window") {
            node.window = read_duration(entry.value);
        } else if (entry.key == "warmup") {
            node.warmup = read_integer(entry.value);
        }
    }
    return node;
}

// `{ quantile: 95%, min: 2ms, max: 250ms }`: `quantile` and `max` are required.
void YamlReader::read_learned_delay(const Value& value, const Context& context, HedgeNode& node) {
    node.learned = true;
    node.learned_position = value.position;
    bool quantile_given = false;
    bool max_given = false;
    for (const Entry& entry : entries(value, context.part("delay", "the hedge delay"),
                                      detail::learned_delay_keys(), "key")) {
        if (entry.key == "quantile") {
            quantile_given = true;
            node.quantile = read_fraction(entry.value);
        } else if (entry.key == "min") {
            node.min = read_duration(entry.value);
        } else if (entry.key == "max") {
            max_given = true;
            node.max = read_duration(entry.value);
        }
    }
    const std::pair<bool, std::string_view> required[] = {{quantile_given, "quantile"},
                                                          {max_given, "max"}};
    for (const auto& [given, key] : required) {
        if (!given) {
            report(DiagnosticCode::MissingField, value.position,
                   value.path + "." + std::string(key),
                   "a learned hedge delay needs '" + std::string(key) + "'",
                   "write { quantile: 95%, min: 2ms, max: 250ms }");
        }
    }
}

std::optional<ListNode<RouteNode>> YamlReader::read_routes(const Value& value,
                                                           const Context& context) {
    if (!expect_list(value, "a list of routes such as [{ up_to: 10s, target: \"retry.10s\" }]")) {
        return std::nullopt;
    }
    ListNode<RouteNode> list;
    list.position = value.position;
    for (const Value& item : items(value)) {
        const Context item_context{item.path, "in a route of " + context.owner, context.owner};
        if (std::optional<RouteNode> route = read_route(item, item_context)) {
            list.items.push_back(std::move(*route));
        }
    }
    return list;
}

// Whether both fields are given is the validator's rule.
std::optional<RouteNode> YamlReader::read_route(const Value& item, const Context& context) {
    if (!expect_mapping(item, "a mapping such as { up_to: 10s, target: \"retry.10s\" }")) {
        return std::nullopt;
    }
    RouteNode node;
    node.position = item.position;
    for (const Entry& entry :
         entries(item, context, detail::keys_inside(PolicyField::Routes), "key")) {
        if (entry.key == "up_to") {
            node.up_to = read_duration(entry.value);
        } else if (entry.key == "target") {
            node.target = read_text(entry.value, "a target name");
        }
    }
    return node;
}

// ---------------------------------------------------------------------------------------------

Diagnostic syntax_error(std::string_view file, SourcePosition position, std::string message) {
    Diagnostic diagnostic;
    diagnostic.code = DiagnosticCode::SyntaxError;
    diagnostic.severity = Severity::Error;
    diagnostic.message = std::move(message);
    diagnostic.file = std::string(file);
    diagnostic.position = position.known() ? position : SourcePosition{1, 1};
    return diagnostic;
}

// Notes whether a YAML document has content (a lone null does not count) and where it starts.
class DocumentProbe final : public YAML::EventHandler {
  public:
    bool has_content() const noexcept { return has_content_; }
    const YAML::Mark& start() const noexcept { return start_; }

    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { note(mark); }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  const std::string&) override {
        note(mark);
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {
        note(mark);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {
        note(mark);
    }
    void OnMapEnd() override {}

  private:
    void note(const YAML::Mark& mark) {
        if (!has_content_) {
            has_content_ = true;
            start_ = mark;
        }
    }
    bool has_content_ = false;
    YAML::Mark start_;
};

// Whether a line of `text` starts with a document marker (`---` or `...`): only then can the
// text hold a second document.
bool has_document_marker(std::string_view text) noexcept {
    for (std::size_t at = 0; at < text.size();) {
        const std::string_view line = text.substr(at, 3);
        if (line == "---" || line == "...") {
            return true;
        }
        const std::size_t newline = text.find('\n', at);
        if (newline == std::string_view::npos) {
            break;
        }
        at = newline + 1;
    }
    return false;
}

// The position where a second document with content starts, if there is one. Parses at most
// two documents: yaml-cpp 0.7's LoadAll loops forever on some malformed input (a stray `,`
// makes every further HandleNextDocument call report an empty document; yaml-cpp PR #1319).
std::optional<SourcePosition> second_document(const std::string& text) {
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    DocumentProbe first;
    if (!parser.HandleNextDocument(first)) {
        return std::nullopt;
    }
    DocumentProbe second;
    if (!parser.HandleNextDocument(second) || !second.has_content()) {
        return std::nullopt;
    }
    return position_of(second.start());
}

void read_documents(std::string_view text, std::string_view file, ParseResult& result) {
    if (const std::optional<std::size_t> bad_byte = first_invalid_utf8(text)) {
        result.diagnostics.push_back(syntax_error(file, position_of_offset(text, *bad_byte),
                                                  "the file is not valid UTF-8 text"));
        return;
    }
    const std::string owned(text);
    // YAML::Load reads the first document only (and never loops, unlike LoadAll).
    const YAML::Node root = YAML::Load(owned);
    if (!root.IsDefined() || root.IsNull()) {
        return;  // an empty file: the validator reports the missing sections
    }
    YamlReader reader(file, result.diagnostics);
    result.document = reader.read(root);
    // A trailing `---` with nothing after it is harmless; a second document with content is not.
    if (has_document_marker(text)) {
        if (const std::optional<SourcePosition> second = second_document(owned)) {
            result.diagnostics.push_back(syntax_error(
                file, *second,
                "a policy file holds one YAML document, but a second one starts here"));
        }
    }
}

}  // namespace
}  // namespace rebound::dsl::yaml

namespace rebound::dsl {

ParseResult parse_yaml(std::string_view text, std::string_view file) {
    ParseResult result;
    result.document.file = std::string(file);
    try {
        yaml::read_documents(text, file, result);
    } catch (const YAML::ParserException& error) {
        const SourcePosition at = clamp_to_text(text, yaml::position_of(error.mark));
        const std::optional<SourcePosition> tab = yaml::first_indenting_tab(
            text, at.known() ? at.line : std::numeric_limits<std::uint32_t>::max());
        const std::optional<SourcePosition> long_key = yaml::overlong_key(
            text, at.known() ? at.line : std::numeric_limits<std::uint32_t>::max());
        if (tab) {
            result.diagnostics.push_back(yaml::syntax_error(
                file, *tab, "invalid YAML: " + std::string(yaml::kTabIndentSentence)));
        } else if (long_key) {
            result.diagnostics.push_back(yaml::syntax_error(
                file, *long_key,
                "invalid YAML: this key is longer than 1024 characters, the most YAML allows "
                "for a key (and names are at most 256 bytes)"));
        } else {
            result.diagnostics.push_back(
                yaml::syntax_error(file, at, "invalid YAML: " + yaml::syntax_sentence(error)));
        }
    } catch (const YAML::Exception& error) {
        result.diagnostics.push_back(yaml::syntax_error(
            file, clamp_to_text(text, yaml::position_of(error.mark)),
            "invalid YAML: the text cannot be read (" + excerpt(error.msg) + ")"));
    } catch (const std::bad_alloc&) {
        throw;  // not a fault of the text: load_text reports it (RB112)
    } catch (const std::exception& error) {
        result.diagnostics.push_back(yaml::syntax_error(
            file, {}, "the file cannot be read (" + excerpt(error.what()) + ")"));
    } catch (...) {
        result.diagnostics.push_back(yaml::syntax_error(file, {}, "the file cannot be read"));
    }
    return result;
}

}  // namespace rebound::dsl
