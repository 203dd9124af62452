#include "rebound/dsl/compile.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "rebound/dsl/input_limits.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"
#include "rebound/error_type_registry.hpp"
#include "rebound/policy_validation.hpp"
#include "rebound/resilience_registry.hpp"

#include "diagnostic_sink.hpp"
#include "field_locations.hpp"
#include "hedge_fields.hpp"

namespace rebound::dsl {
namespace {

constexpr std::int64_t kSupportedVersion = 1;
constexpr std::string_view kBuiltinPolicyName = "builtin";
constexpr std::string_view kPrefixSuffix = ".*";

// Collects diagnostics, dropping exact repeats (a bad value in `defaults` or in a parent is seen
// once per policy that inherits it, but reported once).
class Reporter {
  public:
    Reporter(const Document& document, Diagnostics& out) : document_(document), out_(out) {}

    void error(DiagnosticCode code, SourcePosition position, std::string field, std::string message,
               std::string suggestion = {}) {
        ++calls_;
        const auto key = std::make_tuple(position.line, position.column, message);
        if (!seen_.insert(key).second) {
            return;
        }
        detail::add_error(out_, document_.file, code, position, std::move(field),
                          std::move(message), std::move(suggestion));
        ++errors_;
    }

    std::size_t errors() const noexcept { return errors_; }
    // Every error reported, repeats included.
    std::size_t calls() const noexcept { return calls_; }

  private:
    const Document& document_;
    Diagnostics& out_;
    std::set<std::tuple<std::uint32_t, std::uint32_t, std::string>> seen_;
    std::size_t errors_ = 0;
    std::size_t calls_ = 0;
};

bool is_handler_key(std::string_view key) {
    if (key.ends_with(kPrefixSuffix)) {
        key.remove_suffix(kPrefixSuffix.size());
    }
    return is_valid_name(key);
}

// Where a validation problem points in the resolved fields: its value, else the field holding
// it, else the policy's definition.
SourcePosition position_of(const PolicyFields& f, const PolicyNode& node,
                           const FieldProblem& problem) {
    if (problem.field == PolicyField::Name) {
        return node.name.position;
    }
    const SourcePosition position = detail::position_in(f, problem.field, problem.index);
    return position.known() ? position : node.position;
}

DiagnosticCode code_for(ProblemKind kind) {
    switch (kind) {
        case ProblemKind::OutOfRange:
            return DiagnosticCode::OutOfRange;
        case ProblemKind::Inconsistent:
            return DiagnosticCode::InconsistentValues;
        case ProblemKind::InvalidValue:
            return DiagnosticCode::InvalidValue;
        case ProblemKind::Conflict:
            return DiagnosticCode::ConflictingFields;
        case ProblemKind::RouteOrder:
            return DiagnosticCode::InvalidRoutes;
        case ProblemKind::UnknownPredicate:
            return DiagnosticCode::UnknownPredicate;
        case ProblemKind::InvalidName:
            break;
    }
    return DiagnosticCode::InvalidName;
}

// Turns one policy's resolved fields into a PolicySpec, reporting what only the file form can get
// wrong (fields that do not apply to a backoff type, required fields, counts beyond int).
class SpecBuilder {
  public:
    SpecBuilder(Reporter& reporter, const PolicyNode& node, std::string field_prefix)
        : reporter_(reporter), node_(node), prefix_(std::move(field_prefix)) {}

    PolicySpec build(const PolicyFields& f) {
        PolicySpec spec;
        spec.name = node_.name.value;
        const bool attempts_conflict = attempts_given_twice(f, spec);
        for (const auto& [field, value] : f.scalars) {
            if (!attempts_conflict ||
                (field != PolicyField::MaxAttempts && field != PolicyField::MaxRetries)) {
                move_scalar(info_of(field), value, spec);
            }
        }
        if (f.backoff) {
            spec.backoff = read_backoff(*f.backoff);
        }
        if (f.jitter) {
            spec.jitter = read_jitter(*f.jitter);
        }
        if (f.retry_on) {
            spec.retry_on = values_of(f.retry_on->items);
        }
        if (f.never_retry_on) {
            spec.never_retry_on = values_of(f.never_retry_on->items);
        }
        if (f.retry_if) {
            spec.retry_if = values_of(f.retry_if->items);
        }
        if (f.budget) {
            spec.budget = read_budget(*f.budget);
        }
        if (f.routes) {
            for (const RouteNode& route : f.routes->items) {
                spec.routes.push_back(read_route(route));
            }
        }
        if (f.server_delay) {
            spec.server_delay = read_server_delay(*f.server_delay);
        }
        if (f.hedge && !f.hedge->none) {
            spec.hedge = detail::hedge_settings_of(*f.hedge);
            detail::check_hedge_conflicts(
                f, spec.name, [this](SourcePosition position, PolicyField field, std::string text) {
                    error(DiagnosticCode::ConflictingFields, position, field, std::move(text));
                });
        }
        return spec;
    }

  private:
    template <typename T>
    static std::vector<T> values_of(const std::vector<Located<T>>& items) {
        std::vector<T> values;
        values.reserve(items.size());
        for (const auto& item : items) {
            values.push_back(item.value);
        }
        return values;
    }

    void error(DiagnosticCode code, SourcePosition position, PolicyField field,
               std::string message) {
        reporter_.error(code, position, prefix_ + field_path(field), std::move(message));
    }

    // Whether the Count `field` is within its range; reports it otherwise.
    bool in_range(const Located<std::int64_t>& count, PolicyField field) {
        std::string problem = count_range_problem(field, count.value);
        if (problem.empty()) {
            return true;
        }
        error(DiagnosticCode::OutOfRange, count.position, field, std::move(problem));
        return false;
    }

    // max_attempts and max_retries say the same thing: reports a policy that gives both, at the
    // later one. Neither is then taken.
    bool attempts_given_twice(const PolicyFields& f, const PolicySpec& spec) {
        const Field<std::int64_t> attempts = f.count(PolicyField::MaxAttempts);
        const Field<std::int64_t> retries = f.count(PolicyField::MaxRetries);
        if (!attempts || !retries) {
            return false;
        }
        const bool retries_later = std::tie(retries->position.line, retries->position.column) >
                                   std::tie(attempts->position.line, attempts->position.column);
        error(DiagnosticCode::ConflictingFields,
              retries_later ? retries->position : attempts->position,
              retries_later ? PolicyField::MaxRetries : PolicyField::MaxAttempts,
              "policy '" + spec.name +
                  "' gives both max_attempts and max_retries; they say the same thing "
                  "(max_attempts = max_retries + 1): keep one");
        return true;
    }

    // Sets the top-level scalar field `info` in `spec` through the accessors of its kind; a count
    // outside its range is reported and not set. A field with no place in a PolicySpec (extends)
    // is left alone.
    void move_scalar(const PolicyFieldInfo& info, const Located<ScalarValue>& value,
                     PolicySpec& spec) {
        const SpecPlace& place = info.in_spec;
        if (const auto* count = std::get_if<std::int64_t>(&value.value);
            count != nullptr && place.count.set != nullptr &&
            in_range(Located<std::int64_t>{*count, value.position}, info.id)) {
            place.count.set(spec, *count);
        } else if (const auto* number = std::get_if<double>(&value.value);
                   number != nullptr && place.number.set != nullptr) {
            place.number.set(spec, *number);
        } else if (const auto* duration = std::get_if<Duration>(&value.value);
                   duration != nullptr && place.duration.set != nullptr) {
            place.duration.set(spec, *duration);
        } else if (const auto* text = std::get_if<std::string>(&value.value);
                   text != nullptr && place.text.set != nullptr) {
            place.text.set(spec, *text);
        }
    }

    // Reports a field that the backoff or jitter type does not have.
    template <typename T>
    void reject_field(const Field<T>& field, PolicyField id, std::string_view owner) {
        if (field) {
            error(DiagnosticCode::UnknownKey, field->position, id,
                  "'" + std::string(info_of(id).wire_name) + "' does not apply to " +
                      std::string(owner));
        }
    }

    template <typename T>
    bool require_field(const Field<T>& field, SourcePosition owner_position, PolicyField id,
                       std::string_view owner) {
        if (!field) {
            error(DiagnosticCode::MissingField, owner_position, id,
                  std::string(owner) + " needs '" + std::string(info_of(id).wire_name) + "'");
            return false;
        }
        return true;
    }

    Backoff read_backoff(const BackoffNode& node) {
        Backoff b;
        b.type = node.type.value;
        const std::string owner = std::string(to_string(b.type)) + " backoff";
        const bool has_initial =
            b.type == BackoffType::Linear || b.type == BackoffType::Exponential;
        if (b.type != BackoffType::Fixed) {
            reject_field(node.delay, PolicyField::BackoffDelay, owner);
        }
        if (!has_initial) {
            reject_field(node.initial, PolicyField::BackoffInitial, owner);
            reject_field(node.max, PolicyField::BackoffMax, owner);
        }
        if (b.type != BackoffType::Linear) {
            reject_field(node.increment, PolicyField::BackoffIncrement, owner);
        }
        if (b.type != BackoffType::Exponential) {
            reject_field(node.multiplier, PolicyField::BackoffMultiplier, owner);
        }

        switch (b.type) {
            case BackoffType::Fixed:
                if (require_field(node.delay, node.position, PolicyField::BackoffDelay, owner)) {
                    b.delay = node.delay->value;
                }
                break;
            case BackoffType::Linear:
                if (require_field(node.increment, node.position, PolicyField::BackoffIncrement,
                                  owner)) {
                    b.increment = node.increment->value;
                }
                break;
            case BackoffType::Exponential:
                if (node.multiplier) {
                    b.multiplier = node.multiplier->value;
                }
                break;
            case BackoffType::None:
                break;
        }
        if (has_initial) {
            if (require_field(node.initial, node.position, PolicyField::BackoffInitial, owner)) {
                b.initial = node.initial->value;
            }
            if (node.max) {
                b.max = node.max->value;
            }
        }
        return b;
    }

    Jitter read_jitter(const JitterNode& node) {
        Jitter j;
        j.type = node.type.value;
        const std::string owner = std::string(to_string(j.type)) + " jitter";
        if (j.type != JitterType::Bounded) {
            reject_field(node.amount, PolicyField::JitterAmount, owner);
        }
        if (j.type != JitterType::Proportional) {
            reject_field(node.factor, PolicyField::JitterFactor, owner);
        }
        if (j.type == JitterType::Bounded &&
            require_field(node.amount, node.position, PolicyField::JitterAmount, owner)) {
            j.amount = node.amount->value;
        }
        if (j.type == JitterType::Proportional &&
            require_field(node.factor, node.position, PolicyField::JitterFactor, owner)) {
            j.factor = node.factor->value;
        }
        return j;
    }

    BudgetSettings read_budget(const BudgetNode& node) {
        BudgetSettings budget{1, 1.0};
        if (require_field(node.max_tokens, node.position, PolicyField::BudgetMaxTokens,
                          "a budget")) {
            if (in_range(*node.max_tokens, PolicyField::BudgetMaxTokens)) {
                budget.max_tokens = static_cast<int>(node.max_tokens->value);
            }
        }
        if (require_field(node.token_ratio, node.position, PolicyField::BudgetTokenRatio,
                          "a budget")) {
            budget.token_ratio = node.token_ratio->value;
        }
        return budget;
    }

    static ServerDelaySettings read_server_delay(const ServerDelayNode& node) {
        ServerDelaySettings settings;
        if (node.use) {
            settings.use = node.use->value;
        }
        if (node.cap) {
            settings.cap = node.cap->value;
        }
        if (node.over_cap) {
            settings.over_cap = node.over_cap->value;
        }
        if (node.spread) {
            settings.spread = node.spread->value;
        }
        return settings;
    }

    Route read_route(const RouteNode& node) {
        Route route{Duration{0}, "-"};
        if (require_field(node.up_to, node.position, PolicyField::RouteUpTo, "a route")) {
            route.up_to = node.up_to->value;
        }
        if (require_field(node.target, node.position, PolicyField::RouteTarget, "a route")) {
            route.target = node.target->value;
        }
        return route;
    }

    Reporter& reporter_;
    const PolicyNode& node_;
    std::string prefix_;
};

// Where a breaker setting was written, or the breaker's definition.
SourcePosition position_of(const BreakerNode& node, const BreakerProblem& problem) {
    const auto at = [&node](const auto& field) { return field ? field->position : node.position; };
    switch (problem.setting) {
        case BreakerSetting::FailureRatio:
            return at(node.failure_ratio);
        case BreakerSetting::MinimumCalls:
            return at(node.minimum_calls);
        case BreakerSetting::Window:
            return at(node.window);
        case BreakerSetting::ConsecutiveFailures:
            return at(node.consecutive_failures);
        case BreakerSetting::OpenFor:
            return at(node.open_for);
        case BreakerSetting::MaxOpenFor:
            return at(node.max_open_for);
        case BreakerSetting::HalfOpenCalls:
            return at(node.half_open_calls);
        case BreakerSetting::SlowCall:
            return at(node.slow_call);
        case BreakerSetting::Failures:
            break;
    }
    return node.failures && problem.index < node.failures->items.size()
               ? node.failures->items[problem.index].position
               : node.position;
}

// The settings a breaker node states, over the documented defaults. Counts beyond int are
// clamped (and then out of range for the validator).
BreakerSettings breaker_settings_of(const BreakerNode& node) {
    const auto count = [](const Field<std::int64_t>& field, int fallback) {
        return field ? static_cast<int>(std::clamp<std::int64_t>(field->value,
                                                                 std::numeric_limits<int>::min(),
                                                                 std::numeric_limits<int>::max()))
                     : fallback;
    };
    BreakerSettings settings;
    settings.name = node.name.value;
    if (node.consecutive_failures) {
        settings.trip = BreakerTrip::Consecutive;
    }
    settings.consecutive_failures = count(node.consecutive_failures, settings.consecutive_failures);
    settings.minimum_calls = count(node.minimum_calls, settings.minimum_calls);
    settings.half_open_calls = count(node.half_open_calls, settings.half_open_calls);
    if (node.failure_ratio) {
        settings.failure_ratio = node.failure_ratio->value;
    }
    if (node.window) {
        settings.window = node.window->value;
    }
    if (node.open_for) {
        settings.open_for = node.open_for->value;
    }
    if (node.max_open_for) {
        settings.max_open_for = node.max_open_for->value;
    }
    if (node.slow_call) {
        settings.slow_call = node.slow_call->value;
    }
    if (node.failures) {
        settings.failures.clear();
        for (const Located<Matcher>& matcher : node.failures->items) {
            settings.failures.push_back(matcher.value);
        }
    }
    return settings;
}

class Compiler {
  public:
    Compiler(const Document& document, const PolicyCompileOptions& options, Diagnostics& out)
        : document_(document), options_(options), reporter_(document, out) {
        for (std::size_t i = 0; i < document_.policies.size(); ++i) {
            index_.emplace(document_.policies[i].name.value, i);
            names_.push_back(document_.policies[i].name.value);
        }
        for (const BreakerNode& breaker : document_.breakers) {
            breaker_names_.push_back(breaker.name.value);
        }
    }

    std::shared_ptr<const PolicySet> run() {
        check_header();
        check_policy_names();
        check_extends();
        std::vector<BreakerSettings> breakers = check_breakers();
        std::vector<PolicySpec> specs = resolve_all();
        check_handlers();
        if (reporter_.errors() > 0) {
            return nullptr;
        }
        return assemble(std::move(specs), breakers);
    }

    // The policies that compile on their own, in a document that may have errors elsewhere.
    std::shared_ptr<const PolicySet> run_partial(std::set<std::string, std::less<>> invalid) {
        invalid_ = std::move(invalid);
        check_extends();
        std::vector<BreakerSettings> breakers = check_breakers();
        std::vector<PolicySpec> specs = resolve_all();
        if (!document_.service || !is_valid_name(document_.service->value)) {
            return nullptr;
        }
        std::erase_if(breakers,
                      [](const BreakerSettings& b) { return !validate_breaker(b).empty(); });
        std::erase_if(specs,
                      [this](const PolicySpec& spec) { return invalid_.contains(spec.name); });
        return assemble(std::move(specs), breakers, true);
    }

    std::vector<PolicySpec> resolved_specs() {
        check_extends();
        return resolve_all();
    }

    // Every breaker's settings, checked against the ranges of docs/resilience.md.
    std::vector<BreakerSettings> check_breakers() {
        std::vector<BreakerSettings> all;
        for (const BreakerNode& node : document_.breakers) {
            const std::string field = "breakers." + node.name.value;
            if (!is_valid_name(node.name.value)) {
                reporter_.error(
                    DiagnosticCode::InvalidName, node.name.position, field,
                    "breaker names match [A-Za-z_][A-Za-z0-9_.-]*, got '" + node.name.value + "'");
            }
            const bool ratio_given = node.failure_ratio || node.minimum_calls || node.window;
            if (node.consecutive_failures && ratio_given) {
                reporter_.error(DiagnosticCode::ConflictingFields,
                                node.consecutive_failures->position, field,
                                "breaker '" + node.name.value +
                                    "' gives both consecutive_failures and the ratio rule "
                                    "(failure_ratio, minimum_calls, window): choose one trip rule");
            }
            all.push_back(breaker_settings_of(node));
            for (const BreakerProblem& problem : validate_breaker(all.back())) {
                reporter_.error(DiagnosticCode::OutOfRange, position_of(node, problem), field,
                                problem.message);
            }
        }
        return all;
    }

  private:
    void check_header() {
        const SourcePosition top{1, 1};
        if (!document_.version) {
            reporter_.error(DiagnosticCode::MissingField, top, "rebound",
                            "missing the format version: start the file with 'rebound: 1' (DSL: "
                            "'rebound 1')");
        } else if (document_.version->value != kSupportedVersion) {
            reporter_.error(
                DiagnosticCode::UnsupportedVersion, document_.version->position, "rebound",
                "unsupported format version " + std::to_string(document_.version->value) +
                    ": this version of Rebound reads version 1");
        }
        if (!document_.service) {
            reporter_.error(DiagnosticCode::MissingField, top, "service",
                            "missing 'service': name the service this file describes");
        } else if (!is_valid_name(document_.service->value)) {
            reporter_.error(DiagnosticCode::InvalidName, document_.service->position, "service",
                            "service names match [A-Za-z_][A-Za-z0-9_.-]*, got '" +
                                document_.service->value + "'");
        }
        if (!document_.has_policies_section) {
            reporter_.error(DiagnosticCode::MissingField, top, "policies",
                            "missing 'policies': a service file defines at least one policy");
        } else if (document_.policies.empty()) {
            reporter_.error(DiagnosticCode::MissingField, document_.policies_position, "policies",
                            "'policies' is empty: define at least one policy");
        }
    }

    void check_policy_names() {
        for (const PolicyNode& policy : document_.policies) {
            if (policy.name.value == kBuiltinPolicyName) {
                reporter_.error(
                    DiagnosticCode::InvalidName, policy.name.position,
                    "policies." + policy.name.value,
                    "'builtin' is the name of the built-in policy: choose another name");
            }
        }
    }

    // Reports unknown parents, cycles and chains deeper than kMaxExtendsDepth; remembers which
    // policies cannot be resolved. Linear in the policies (times a map lookup): each policy's
    // state is settled once, by the first walk that reaches it.
    void check_extends() {
        broken_.clear();
        const std::size_t count = document_.policies.size();
        std::vector<ChainState> state(count, ChainState::Unvisited);
        std::vector<std::size_t> depth(count, 0);
        std::vector<std::size_t> path;  // the walk in progress, child first
        for (std::size_t start = 0; start < count; ++start) {
            path.clear();
            std::size_t at = start;
            // Walk up until a policy whose state is known, a root, or a policy of this walk.
            while (state[at] == ChainState::Unvisited) {
                state[at] = ChainState::OnPath;
                path.push_back(at);
                const std::optional<std::size_t> parent = parent_of(at);
                if (!parent) {
                    break;
                }
                at = *parent;
            }
            settle_walk(path, at, state, depth);
        }
    }

    enum class ChainState { Unvisited, OnPath, Resolvable, Broken };

    // The index of the policy `index` extends, when it extends a policy of the file; an unknown
    // parent is reported here and leaves the policy broken.
    std::optional<std::size_t> parent_of(std::size_t index) {
        const PolicyNode& policy = document_.policies[index];
        const Field<std::string> extends = policy.fields.text(PolicyField::Extends);
        if (!extends) {
            return std::nullopt;
        }
        const auto it = index_.find(extends->value);
        if (it == index_.end()) {
            reporter_.error(DiagnosticCode::UnknownPolicy, extends->position,
                            "policies." + policy.name.value + ".extends",
                            "policy '" + policy.name.value + "' extends unknown policy '" +
                                extends->value + "'",
                            did_you_mean(extends->value, names_));
            return std::nullopt;
        }
        return it->second;
    }

    // Gives every policy of `path` (a walk that stopped at `end`) its state and depth, from the
    // top of the chain down.
    void settle_walk(const std::vector<std::size_t>& path, std::size_t end,
                     std::vector<ChainState>& state, std::vector<std::size_t>& depth) {
        std::size_t next = path.size();  // policies [0, next) of path are still to settle
        bool above_broken = false;
        std::size_t above_depth = 0;
        if (state[end] == ChainState::OnPath) {
            const PolicyNode& top = document_.policies[path.back()];
            const Field<std::string> parent = top.fields.text(PolicyField::Extends);
            const bool unknown_parent = parent && !index_.contains(parent->value);
            if (parent && !unknown_parent) {
                // `end` is on this walk: the policies from it to the last one form a circle.
                const auto first = std::find(path.begin(), path.end(), end);
                report_cycle(path, static_cast<std::size_t>(first - path.begin()));
                for (auto it = first; it != path.end(); ++it) {
                    state[*it] = ChainState::Broken;
                }
                next = static_cast<std::size_t>(first - path.begin());
                above_broken = true;
            } else {
                // The walk ended at a root (or at a policy with an unknown parent).
                state[end] = unknown_parent ? ChainState::Broken : ChainState::Resolvable;
                depth[end] = 0;
                above_broken = unknown_parent;
                next = path.size() - 1;
            }
        } else {
            above_broken = state[end] == ChainState::Broken;
            above_depth = depth[end];
        }
        for (std::size_t i = next; i-- > 0;) {
            const std::size_t at = path[i];
            const std::size_t parent_depth = i + 1 < path.size() ? depth[path[i + 1]] : above_depth;
            const bool parent_broken =
                i + 1 < path.size() ? state[path[i + 1]] == ChainState::Broken : above_broken;
            depth[at] = parent_depth + 1;
            if (parent_broken) {
                state[at] = ChainState::Broken;
            } else if (depth[at] > kMaxExtendsDepth) {
                report_too_deep(document_.policies[at]);
                state[at] = ChainState::Broken;
            } else {
                state[at] = ChainState::Resolvable;
            }
        }
        for (const std::size_t at : path) {
            if (state[at] == ChainState::Broken) {
                broken_.insert(document_.policies[at].name.value);
            }
        }
    }

    static SourcePosition extends_position(const PolicyNode& policy) {
        return policy.fields.scalars.at(PolicyField::Extends).position;
    }

    void report_too_deep(const PolicyNode& policy) {
        reporter_.error(DiagnosticCode::LimitExceeded, extends_position(policy),
                        "policies." + policy.name.value + ".extends",
                        "policy '" + policy.name.value + "' is more than " +
                            std::to_string(kMaxExtendsDepth) +
                            " extends below the top of its chain; the policies extending it "
                            "are not checked",
                        "extend a policy nearer the top of the chain");
    }

    // `path[from..]` is a circle: reported once, at its policy that comes first in the file, as
    // "a -> b -> a" starting there.
    void report_cycle(const std::vector<std::size_t>& path, std::size_t from) {
        const std::size_t length = path.size() - from;
        std::size_t first = from;
        for (std::size_t i = from; i < path.size(); ++i) {
            first = path[i] < path[first] ? i : first;
        }
        const PolicyNode& policy = document_.policies[path[first]];
        std::string chain;
        for (std::size_t k = 0; k <= length; ++k) {
            const std::size_t i = from + (first - from + k) % length;
            chain += (chain.empty() ? "" : " -> ") + document_.policies[path[i]].name.value;
        }
        reporter_.error(DiagnosticCode::ExtendsCycle, extends_position(policy),
                        "policies." + policy.name.value + ".extends",
                        "policy '" + policy.name.value + "' extends itself: " + chain);
    }

    PolicyFields resolved_fields(const PolicyNode& policy) const {
        PolicyFields fields = policy.fields;
        for (const PolicyNode* current = &policy;
             current->fields.scalars.contains(PolicyField::Extends);) {
            current =
                &document_.policies[index_.at(current->fields.text(PolicyField::Extends)->value)];
            fields = merge_fields(std::move(fields), current->fields);
        }
        if (document_.defaults) {
            fields = merge_fields(std::move(fields), document_.defaults->fields);
        }
        return fields;
    }

    PolicySpec validate_policy_fields(const PolicyNode& node, const PolicyFields& fields) {
        const std::string prefix = "policies." + node.name.value + ".";
        PolicySpec spec = SpecBuilder(reporter_, node, prefix).build(fields);
        const Field<std::string> breaker = fields.text(PolicyField::Breaker);
        if (breaker && std::find(breaker_names_.begin(), breaker_names_.end(), breaker->value) ==
                           breaker_names_.end()) {
            reporter_.error(DiagnosticCode::UnknownValue, breaker->position, prefix + "breaker",
                            "policy '" + node.name.value + "' names undeclared breaker '" +
                                breaker->value + "': declare it under 'breakers:'",
                            did_you_mean(breaker->value, breaker_names_));
        }
        for (const FieldProblem& problem : validate_policy(spec, options_.predicates)) {
            if (problem.field == PolicyField::Name && node.name.value == kBuiltinPolicyName) {
                continue;
            }
            reporter_.error(code_for(problem.kind), position_of(fields, node, problem),
                            prefix + problem.path(), problem.message);
        }
        return spec;
    }

    std::vector<PolicySpec> resolve_all() {
        if (document_.defaults) {
            // Defaults are checked on their own too, so a bad default that every policy
            // overrides is still reported.
            PolicyNode defaults_node;
            defaults_node.name = {"defaults", document_.defaults->position};
            defaults_node.position = document_.defaults->position;
            (void)validate_policy_fields(defaults_node, document_.defaults->fields);
        }
        std::vector<PolicySpec> specs;
        for (const PolicyNode& policy : document_.policies) {
            if (broken_.contains(policy.name.value)) {
                continue;
            }
            const std::size_t before = reporter_.calls();
            specs.push_back(validate_policy_fields(policy, resolved_fields(policy)));
            if (reporter_.calls() != before) {
                invalid_.insert(policy.name.value);
            }
        }
        return specs;
    }

    void check_handlers() {
        std::vector<std::string_view> candidates = names_;
        for (const HandlerNode& handler : document_.handlers) {
            const std::string field = "handlers." + handler.key.value;
            if (!is_handler_key(handler.key.value)) {
                reporter_.error(DiagnosticCode::InvalidName, handler.key.position, field,
                                "handler keys are names or name prefixes ending in '.*', got '" +
                                    handler.key.value + "'");
            }
            check_reference(handler.policy, field, "handler '" + handler.key.value + "'");
            check_call_graph_fields(handler, field);
        }
        if (document_.default_policy) {
            check_reference(*document_.default_policy, "default", "default");
        }
    }

    // `calls` names handlers (never patterns); `redeliveries` is 0..kMaxRedeliveries.
    void check_call_graph_fields(const HandlerNode& handler, const std::string& field) {
        if (handler.calls) {
            for (const Located<std::string>& callee : handler.calls->items) {
                if (!is_valid_name(callee.value)) {
                    reporter_.error(DiagnosticCode::InvalidName, callee.position, field + ".calls",
                                    "'calls' lists handler names matching "
                                    "[A-Za-z_][A-Za-z0-9_.-]*, got '" +
                                        callee.value + "'");
                }
            }
        }
        if (handler.redeliveries &&
            (handler.redeliveries->value < 0 || handler.redeliveries->value > kMaxRedeliveries)) {
            reporter_.error(
                DiagnosticCode::OutOfRange, handler.redeliveries->position, field + ".redeliveries",
                "redeliveries must be between 0 and " + std::to_string(kMaxRedeliveries) +
                    ", got " + std::to_string(handler.redeliveries->value));
        }
    }

    void check_reference(const Located<std::string>& name, const std::string& field,
                         const std::string& who) {
        if (index_.contains(name.value) || name.value == kBuiltinPolicyName) {
            return;
        }
        reporter_.error(DiagnosticCode::UnknownPolicy, name.position, field,
                        who + " uses unknown policy '" + name.value + "'",
                        did_you_mean(name.value, names_));
    }

    // The file's breakers and budgets come from the registry when there is one, so that their
    // state survives reloads (docs/resilience.md); what the file no longer declares is dropped.
    // `partial`: leave out what does not compile (and the bindings that name it) instead of
    // failing.
    std::shared_ptr<const PolicySet> assemble(std::vector<PolicySpec> specs,
                                              const std::vector<BreakerSettings>& breakers,
                                              bool partial = false) {
        const std::string& service = document_.service->value;
        const Clock::TimePoint now = default_clock().now();
        BreakerDirectory directory;
        std::vector<std::string> breaker_names;
        for (const BreakerSettings& settings : breakers) {
            directory.emplace(
                settings.name,
                options_.resilience != nullptr
                    ? options_.resilience->breaker(service, settings, now, options_.error_types)
                    : std::make_shared<CircuitBreaker>(settings, now, options_.error_types));
            breaker_names.push_back(settings.name);
        }
        std::vector<std::string> budget_policies;
        std::vector<std::string> hedge_policies;
        std::vector<std::shared_ptr<const Policy>> policies;
        for (PolicySpec& spec : specs) {
            PolicyCompileOptions options = options_;
            options.breakers = &directory;
            if (spec.budget && options_.resilience != nullptr) {
                options.budget = options_.resilience->budget(service, spec.name, *spec.budget);
                budget_policies.push_back(spec.name);
            }
            if (spec.hedge && options_.resilience != nullptr) {
                options.hedge_tokens = options_.resilience->hedge_tokens(
                    service, spec.name, HedgeTokenSettings::of(*spec.hedge));
                hedge_policies.push_back(spec.name);
            }
            PolicyResult result = Policy::create(std::move(spec), options);
            if (!result) {
                if (partial) {
                    continue;
                }
                return nullptr;  // unreachable: validated above
            }
            policies.push_back(std::move(result.policy));
        }
        const auto compiled = [&policies](std::string_view name) {
            return name == kBuiltinPolicyName ||
                   std::any_of(policies.begin(), policies.end(),
                               [name](const auto& policy) { return policy->name() == name; });
        };
        if (options_.resilience != nullptr) {
            options_.resilience->retain(service, breaker_names, budget_policies);
            options_.resilience->retain_hedge_tokens(service, hedge_policies);
        }
        std::vector<HandlerBinding> bindings;
        for (const HandlerNode& handler : document_.handlers) {
            if (partial && !compiled(handler.policy.value)) {
                continue;
            }
            std::optional<bool> idempotent;
            if (handler.idempotent) {
                idempotent = handler.idempotent->value;
            }
            HandlerBinding binding{handler.key.value, handler.policy.value, idempotent};
            if (handler.calls) {
                for (const Located<std::string>& callee : handler.calls->items) {
                    binding.calls.push_back(callee.value);
                }
            }
            if (handler.redeliveries) {
                binding.redeliveries = handler.redeliveries->value;
            }
            bindings.push_back(std::move(binding));
        }
        std::optional<std::string> default_policy;
        if (document_.default_policy && (!partial || compiled(document_.default_policy->value))) {
            default_policy = document_.default_policy->value;
        }
        return std::make_shared<const PolicySet>(document_.service->value, std::move(policies),
                                                 std::move(bindings), std::move(default_policy));
    }

    const Document& document_;
    const PolicyCompileOptions& options_;
    Reporter reporter_;
    std::map<std::string, std::size_t, std::less<>> index_;
    std::vector<std::string_view> names_;
    std::vector<std::string_view> breaker_names_;
    std::set<std::string, std::less<>> broken_;
    std::set<std::string, std::less<>> invalid_;  // policies whose own fields had errors
};

}  // namespace

CompileResult compile(const Document& document, const PolicyCompileOptions& options) {
    CompileResult result;
    result.policy_set = Compiler(document, options, result.diagnostics).run();
    return result;
}

namespace {

// The lines that start a definition of the document: its policies, breakers, handlers and the
// other sections that record a position.
std::vector<std::uint32_t> definition_lines(const Document& document) {
    std::vector<std::uint32_t> lines;
    const auto add = [&lines](SourcePosition position) {
        if (position.known()) {
            lines.push_back(position.line);
        }
    };
    for (const PolicyNode& policy : document.policies) {
        add(policy.position);
    }
    for (const BreakerNode& breaker : document.breakers) {
        add(breaker.position);
    }
    for (const HandlerNode& handler : document.handlers) {
        add(handler.position);
    }
    if (document.defaults) {
        add(document.defaults->position);
    }
    if (document.default_policy) {
        add(document.default_policy->position);
    }
    if (document.service) {
        add(document.service->position);
    }
    add(document.policies_position);
    std::sort(lines.begin(), lines.end());
    return lines;
}

// The policy whose definition holds `line` (from its name to the next definition), or null.
const PolicyNode* policy_holding(const Document& document, std::uint32_t line,
                                 const std::vector<std::uint32_t>& starts) {
    for (const PolicyNode& policy : document.policies) {
        if (!policy.position.known() || line < policy.position.line) {
            continue;
        }
        const auto next = std::upper_bound(starts.begin(), starts.end(), policy.position.line);
        if (next == starts.end() || line < *next) {
            return &policy;
        }
    }
    return nullptr;
}

}  // namespace

std::shared_ptr<const PolicySet> compile_valid_parts(const Document& document,
                                                     const Diagnostics& found,
                                                     const PolicyCompileOptions& options) {
    // Errors outside every policy's definition (header, defaults, breakers, bindings) could
    // change any policy or binding: then nothing is offered.
    const std::vector<std::uint32_t> starts = definition_lines(document);
    std::set<std::string, std::less<>> holding_errors;
    for (const Diagnostic& diagnostic : found) {
        if (diagnostic.severity != Severity::Error) {
            continue;
        }
        const PolicyNode* policy = policy_holding(document, diagnostic.position.line, starts);
        if (policy == nullptr || policy->position.line == diagnostic.position.line) {
            return nullptr;
        }
        holding_errors.insert(policy->name.value);
    }
    // An error in text a policy reuses (a YAML alias of a value that was refused) lies in
    // another policy's lines; the front end marks the policies it read with errors.
    for (const PolicyNode& policy : document.policies) {
        if (policy.read_with_errors) {
            holding_errors.insert(policy.name.value);
        }
    }
    Diagnostics ignored;
    return Compiler(document, options, ignored).run_partial(holding_errors);
}

std::vector<PolicySpec> resolve_policies(const Document& document) {
    Diagnostics ignored;
    return Compiler(document, PolicyCompileOptions{}, ignored).resolved_specs();
}

std::vector<BreakerSettings> resolve_breakers(const Document& document) {
    std::vector<BreakerSettings> all;
    all.reserve(document.breakers.size());
    for (const BreakerNode& node : document.breakers) {
        all.push_back(breaker_settings_of(node));
    }
    return all;
}

PolicyFields merge_fields(PolicyFields child, const PolicyFields& base) {
    detail::inherit_absent_fields(child, base);
    return child;
}

}  // namespace rebound::dsl
