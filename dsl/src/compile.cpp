#include "rebound/dsl/compile.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "rebound/error_type_registry.hpp"
#include "rebound/policy_validation.hpp"

namespace rebound::dsl {
namespace {

constexpr std::int64_t kSupportedVersion = 1;
constexpr std::int64_t kMaxAttemptsLimit = 1000;
constexpr std::int64_t kMaxRetriesLimit = kMaxAttemptsLimit - 1;
constexpr std::int64_t kMaxTokensLimit = 100000;
constexpr std::string_view kBuiltinPolicyName = "builtin";
constexpr std::string_view kPrefixSuffix = ".*";

// Collects diagnostics, dropping exact repeats (a bad value in `defaults` or in a parent is seen
// once per policy that inherits it, but reported once).
class Reporter {
  public:
    Reporter(const Document& document, Diagnostics& out) : document_(document), out_(out) {}

    void error(DiagnosticCode code, SourcePosition position, std::string field, std::string message,
               std::string suggestion = {}) {
        const auto key = std::make_tuple(position.line, position.column, message);
        if (!seen_.insert(key).second) {
            return;
        }
        Diagnostic d;
        d.code = code;
        d.severity = Severity::Error;
        d.message = std::move(message);
        d.file = document_.file;
        d.position = position;
        d.field = std::move(field);
        d.suggestion = std::move(suggestion);
        out_.push_back(std::move(d));
        ++errors_;
    }

    std::size_t errors() const noexcept { return errors_; }

  private:
    const Document& document_;
    Diagnostics& out_;
    std::set<std::tuple<std::uint32_t, std::uint32_t, std::string>> seen_;
    std::size_t errors_ = 0;
};

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates) {
    const std::string match = closest_match(word, candidates);
    return match.empty() ? std::string{} : "did you mean '" + match + "'?";
}

template <typename T>
void take_if_absent(std::optional<T>& mine, const std::optional<T>& theirs) {
    if (!mine && theirs) {
        mine = theirs;
    }
}

bool is_handler_key(std::string_view key) {
    if (key.ends_with(kPrefixSuffix)) {
        key.remove_suffix(kPrefixSuffix.size());
    }
    return is_valid_name(key);
}

// Where a validate_policy field path points in the resolved fields.
SourcePosition position_of(const PolicyFields& f, const PolicyNode& node, std::string_view field) {
    const auto index_in = [&](std::string_view prefix) -> std::optional<std::size_t> {
        if (!field.starts_with(prefix)) {
            return std::nullopt;
        }
        std::size_t index = 0;
        for (std::size_t i = prefix.size(); i < field.size() && field[i] != ']'; ++i) {
            index = index * 10 + static_cast<std::size_t>(field[i] - '0');
        }
        return index;
    };
    const auto at = [&](const auto& located) {
        return located ? located->position : SourcePosition{};
    };
    if (field == "name") {
        return node.name.position;
    }
    if (field == "max_attempts") {
        return f.max_attempts ? f.max_attempts->position : at(f.max_retries);
    }
    if (f.backoff && field.starts_with("backoff")) {
        const BackoffNode& b = *f.backoff;
        SourcePosition p = b.position;
        if (field == "backoff.delay")
            p = at(b.delay);
        if (field == "backoff.initial")
            p = at(b.initial);
        if (field == "backoff.increment")
            p = at(b.increment);
        if (field == "backoff.multiplier")
            p = at(b.multiplier);
        if (field == "backoff.max")
            p = at(b.max);
        return p.known() ? p : b.position;
    }
    if (f.jitter && field.starts_with("jitter")) {
        const JitterNode& j = *f.jitter;
        SourcePosition p = j.position;
        if (field == "jitter.amount")
            p = at(j.amount);
        if (field == "jitter.factor")
            p = at(j.factor);
        return p.known() ? p : j.position;
    }
    if (field == "deadline")
        return at(f.deadline);
    if (field == "min_attempt_budget")
        return at(f.min_attempt_budget);
    if (field == "attempt_timeout")
        return at(f.attempt_timeout);
    if (const auto i = index_in("retry_on["); i && f.retry_on && *i < f.retry_on->items.size()) {
        return f.retry_on->items[*i].position;
    }
    if (const auto i = index_in("never_retry_on[");
        i && f.never_retry_on && *i < f.never_retry_on->items.size()) {
        return f.never_retry_on->items[*i].position;
    }
    if (const auto i = index_in("retry_if["); i && f.retry_if && *i < f.retry_if->items.size()) {
        return f.retry_if->items[*i].position;
    }
    if (f.budget && field.starts_with("budget")) {
        const BudgetNode& b = *f.budget;
        SourcePosition p = b.position;
        if (field == "budget.max_tokens")
            p = at(b.max_tokens);
        if (field == "budget.token_ratio")
            p = at(b.token_ratio);
        return p.known() ? p : b.position;
    }
    if (const auto i = index_in("routes["); i && f.routes && *i < f.routes->items.size()) {
        const RouteNode& r = f.routes->items[*i];
        SourcePosition p = r.position;
        if (field.ends_with(".up_to"))
            p = at(r.up_to);
        if (field.ends_with(".target"))
            p = at(r.target);
        return p.known() ? p : r.position;
    }
    return node.position;
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
        read_attempts(f, spec);
        if (f.backoff) {
            spec.backoff = read_backoff(*f.backoff);
        }
        if (f.jitter) {
            spec.jitter = read_jitter(*f.jitter);
        }
        if (f.deadline)
            spec.deadline = f.deadline->value;
        if (f.min_attempt_budget)
            spec.min_attempt_budget = f.min_attempt_budget->value;
        if (f.attempt_timeout)
            spec.attempt_timeout = f.attempt_timeout->value;
        if (f.retry_on)
            spec.retry_on = values_of(f.retry_on->items);
        if (f.never_retry_on)
            spec.never_retry_on = values_of(f.never_retry_on->items);
        if (f.retry_if)
            spec.retry_if = values_of(f.retry_if->items);
        if (f.on_exhausted)
            spec.on_exhausted = f.on_exhausted->value;
        if (f.budget)
            spec.budget = read_budget(*f.budget);
        if (f.routes) {
            for (const RouteNode& route : f.routes->items) {
                spec.routes.push_back(read_route(route));
            }
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

    void error(DiagnosticCode code, SourcePosition position, const std::string& field,
               std::string message) {
        reporter_.error(code, position, prefix_ + field, std::move(message));
    }

    void read_attempts(const PolicyFields& f, PolicySpec& spec) {
        if (f.max_attempts && f.max_retries) {
            const bool retries_later =
                std::tie(f.max_retries->position.line, f.max_retries->position.column) >
                std::tie(f.max_attempts->position.line, f.max_attempts->position.column);
            const SourcePosition later =
                retries_later ? f.max_retries->position : f.max_attempts->position;
            error(DiagnosticCode::ConflictingFields, later,
                  retries_later ? "max_retries" : "max_attempts",
                  "policy '" + spec.name +
                      "' gives both max_attempts and max_retries; they say the same thing "
                      "(max_attempts = max_retries + 1): keep one");
            return;
        }
        if (f.max_attempts) {
            const std::int64_t n = f.max_attempts->value;
            if (n < 1 || n > kMaxAttemptsLimit) {
                error(DiagnosticCode::OutOfRange, f.max_attempts->position, "max_attempts",
                      "max_attempts must be between 1 and 1000, got " + std::to_string(n));
                return;
            }
            spec.max_attempts = static_cast<int>(n);
        } else if (f.max_retries) {
            const std::int64_t n = f.max_retries->value;
            if (n < 0 || n > kMaxRetriesLimit) {
                error(DiagnosticCode::OutOfRange, f.max_retries->position, "max_retries",
                      "max_retries must be between 0 and 999, got " + std::to_string(n));
                return;
            }
            spec.max_attempts = static_cast<int>(n) + 1;
        }
    }

    // Reports a field that the backoff or jitter type does not have.
    template <typename T>
    void reject_field(const Field<T>& field, const std::string& name, std::string_view owner) {
        if (field) {
            error(DiagnosticCode::UnknownKey, field->position, name,
                  "'" + name.substr(name.find('.') + 1) + "' does not apply to " +
                      std::string(owner));
        }
    }

    template <typename T>
    bool require_field(const Field<T>& field, SourcePosition owner_position,
                       const std::string& name, std::string_view owner) {
        if (!field) {
            error(DiagnosticCode::MissingField, owner_position, name,
                  std::string(owner) + " needs '" + name.substr(name.find('.') + 1) + "'");
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
        if (b.type != BackoffType::Fixed)
            reject_field(node.delay, "backoff.delay", owner);
        if (!has_initial) {
            reject_field(node.initial, "backoff.initial", owner);
            reject_field(node.max, "backoff.max", owner);
        }
        if (b.type != BackoffType::Linear)
            reject_field(node.increment, "backoff.increment", owner);
        if (b.type != BackoffType::Exponential)
            reject_field(node.multiplier, "backoff.multiplier", owner);

        switch (b.type) {
            case BackoffType::Fixed:
                if (require_field(node.delay, node.position, "backoff.delay", owner)) {
                    b.delay = node.delay->value;
                }
                break;
            case BackoffType::Linear:
                if (require_field(node.increment, node.position, "backoff.increment", owner)) {
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
            if (require_field(node.initial, node.position, "backoff.initial", owner)) {
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
        if (j.type != JitterType::Bounded)
            reject_field(node.amount, "jitter.amount", owner);
        if (j.type != JitterType::Proportional)
            reject_field(node.factor, "jitter.factor", owner);
        if (j.type == JitterType::Bounded &&
            require_field(node.amount, node.position, "jitter.amount", owner)) {
            j.amount = node.amount->value;
        }
        if (j.type == JitterType::Proportional &&
            require_field(node.factor, node.position, "jitter.factor", owner)) {
            j.factor = node.factor->value;
        }
        return j;
    }

    BudgetSettings read_budget(const BudgetNode& node) {
        BudgetSettings budget{1, 1.0};
        if (require_field(node.max_tokens, node.position, "budget.max_tokens", "a budget")) {
            const std::int64_t n = node.max_tokens->value;
            if (n < 1 || n > kMaxTokensLimit) {
                error(DiagnosticCode::OutOfRange, node.max_tokens->position, "budget.max_tokens",
                      "max_tokens must be between 1 and 100000, got " + std::to_string(n));
            } else {
                budget.max_tokens = static_cast<int>(n);
            }
        }
        if (require_field(node.token_ratio, node.position, "budget.token_ratio", "a budget")) {
            budget.token_ratio = node.token_ratio->value;
        }
        return budget;
    }

    Route read_route(const RouteNode& node) {
        Route route{Duration{0}, "-"};
        if (require_field(node.up_to, node.position, "routes.up_to", "a route")) {
            route.up_to = node.up_to->value;
        }
        if (require_field(node.target, node.position, "routes.target", "a route")) {
            route.target = node.target->value;
        }
        return route;
    }

    Reporter& reporter_;
    const PolicyNode& node_;
    std::string prefix_;
};

class Compiler {
  public:
    Compiler(const Document& document, const PolicyCompileOptions& options, Diagnostics& out)
        : document_(document), options_(options), reporter_(document, out) {
        for (std::size_t i = 0; i < document_.policies.size(); ++i) {
            index_.emplace(document_.policies[i].name.value, i);
            names_.push_back(document_.policies[i].name.value);
        }
    }

    std::shared_ptr<const PolicySet> run() {
        check_header();
        check_policy_names();
        check_extends();
        std::vector<PolicySpec> specs = resolve_all();
        check_handlers();
        if (reporter_.errors() > 0) {
            return nullptr;
        }
        return assemble(std::move(specs));
    }

    std::vector<PolicySpec> resolved_specs() {
        check_extends();
        return resolve_all();
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

    // Reports unknown parents and cycles; remembers which policies can be resolved.
    void check_extends() {
        broken_.clear();
        in_reported_cycle_.clear();
        for (const PolicyNode& policy : document_.policies) {
            const auto& extends = policy.fields.extends;
            if (extends && !index_.contains(extends->value)) {
                reporter_.error(DiagnosticCode::UnknownPolicy, extends->position,
                                "policies." + policy.name.value + ".extends",
                                "policy '" + policy.name.value + "' extends unknown policy '" +
                                    extends->value + "'",
                                did_you_mean(extends->value, names_));
                broken_.insert(policy.name.value);
            }
        }
        for (const PolicyNode& policy : document_.policies) {
            std::vector<std::string> chain{policy.name.value};
            const PolicyNode* current = &policy;
            while (current->fields.extends && index_.contains(current->fields.extends->value)) {
                const std::string& parent = current->fields.extends->value;
                const bool starts_cycle = parent == chain.front();
                const bool reaches_cycle =
                    std::find(chain.begin(), chain.end(), parent) != chain.end();
                chain.push_back(parent);
                if (reaches_cycle) {
                    // Reported once, at the policy that closes its own circle; policies that
                    // only lead into a circle elsewhere are skipped silently.
                    if (starts_cycle && !in_reported_cycle_.contains(policy.name.value)) {
                        report_cycle(policy, chain);
                        in_reported_cycle_.insert(chain.begin(), chain.end());
                    }
                    broken_.insert(policy.name.value);
                    break;
                }
                current = &document_.policies[index_.at(parent)];
            }
            // An ancestor extends an unknown policy (reported there): this one cannot be
            // resolved either.
            if (current->fields.extends && !index_.contains(current->fields.extends->value)) {
                broken_.insert(policy.name.value);
            }
        }
    }

    void report_cycle(const PolicyNode& policy, const std::vector<std::string>& chain) {
        std::string path;
        for (const std::string& name : chain) {
            path += (path.empty() ? "" : " -> ") + name;
        }
        reporter_.error(DiagnosticCode::ExtendsCycle, policy.fields.extends->position,
                        "policies." + policy.name.value + ".extends",
                        "policy '" + policy.name.value + "' extends itself: " + path);
    }

    PolicyFields resolved_fields(const PolicyNode& policy) const {
        PolicyFields fields = policy.fields;
        for (const PolicyNode* current = &policy; current->fields.extends;) {
            current = &document_.policies[index_.at(current->fields.extends->value)];
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
        for (const FieldProblem& problem : validate_policy(spec, options_.predicates)) {
            if (problem.field == "name" && node.name.value == kBuiltinPolicyName) {
                continue;
            }
            reporter_.error(code_for(problem.kind), position_of(fields, node, problem.field),
                            prefix + problem.field, problem.message);
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
            specs.push_back(validate_policy_fields(policy, resolved_fields(policy)));
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
        }
        if (document_.default_policy) {
            check_reference(*document_.default_policy, "default", "default");
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

    std::shared_ptr<const PolicySet> assemble(std::vector<PolicySpec> specs) {
        std::vector<std::shared_ptr<const Policy>> policies;
        for (PolicySpec& spec : specs) {
            PolicyResult result = Policy::create(std::move(spec), options_);
            if (!result) {
                return nullptr;  // unreachable: validated above
            }
            policies.push_back(std::move(result.policy));
        }
        std::vector<HandlerBinding> bindings;
        for (const HandlerNode& handler : document_.handlers) {
            bindings.push_back(HandlerBinding{handler.key.value, handler.policy.value,
                                              handler.idempotent && handler.idempotent->value});
        }
        std::optional<std::string> default_policy;
        if (document_.default_policy) {
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
    std::set<std::string, std::less<>> broken_;
    std::set<std::string, std::less<>> in_reported_cycle_;
};

}  // namespace

CompileResult compile(const Document& document, const PolicyCompileOptions& options) {
    CompileResult result;
    result.policy_set = Compiler(document, options, result.diagnostics).run();
    return result;
}

std::vector<PolicySpec> resolve_policies(const Document& document) {
    Diagnostics ignored;
    return Compiler(document, PolicyCompileOptions{}, ignored).resolved_specs();
}

PolicyFields merge_fields(PolicyFields child, const PolicyFields& base) {
    if (!child.max_attempts && !child.max_retries) {
        child.max_attempts = base.max_attempts;
        child.max_retries = base.max_retries;
    }
    take_if_absent(child.backoff, base.backoff);
    take_if_absent(child.jitter, base.jitter);
    take_if_absent(child.deadline, base.deadline);
    take_if_absent(child.min_attempt_budget, base.min_attempt_budget);
    take_if_absent(child.attempt_timeout, base.attempt_timeout);
    take_if_absent(child.retry_on, base.retry_on);
    take_if_absent(child.never_retry_on, base.never_retry_on);
    take_if_absent(child.retry_if, base.retry_if);
    take_if_absent(child.on_exhausted, base.on_exhausted);
    take_if_absent(child.budget, base.budget);
    take_if_absent(child.routes, base.routes);
    return child;
}

}  // namespace rebound::dsl
