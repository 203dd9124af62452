#include "rebound/dsl/emit.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "document_testing.hpp"
#include "rebound/dsl/compile.hpp"
#include "rebound/dsl/parse.hpp"

namespace {

using namespace std::chrono_literals;
using namespace rebound;
using namespace rebound::dsl;
using rebound::dsl::testing::field;
using rebound::dsl::testing::located;
using rebound::dsl::testing::strip_positions;

// --- Building Documents ---------------------------------------------------------------------

Field<Duration> duration(Duration d) {
    return field(d);
}
Field<std::int64_t> count(std::int64_t n) {
    return field(n);
}
Field<std::string> name(std::string text) {
    return field(std::move(text));
}

ListNode<Located<Matcher>> matchers(std::initializer_list<Matcher> list) {
    ListNode<Located<Matcher>> out;
    for (const Matcher& m : list) {
        out.items.push_back(located(m));
    }
    return out;
}

ListNode<Located<std::string>> names(std::initializer_list<const char*> list) {
    ListNode<Located<std::string>> out;
    for (const char* n : list) {
        out.items.push_back(located(std::string(n)));
    }
    return out;
}

template <typename T>
Field<T> maybe(const std::optional<T>& value) {
    return value ? field(*value) : Field<T>{};
}

BackoffNode backoff(BackoffType type) {
    BackoffNode b;
    b.type = located(type);
    return b;
}

BackoffNode fixed(std::optional<Duration> delay) {
    BackoffNode b = backoff(BackoffType::Fixed);
    b.delay = maybe(delay);
    return b;
}

BackoffNode linear(Duration initial, Duration increment, std::optional<Duration> max = {}) {
    BackoffNode b = backoff(BackoffType::Linear);
    b.initial = duration(initial);
    b.increment = duration(increment);
    b.max = maybe(max);
    return b;
}

BackoffNode exponential(std::optional<Duration> initial, std::optional<double> multiplier = {},
                        std::optional<Duration> max = {}) {
    BackoffNode b = backoff(BackoffType::Exponential);
    b.initial = maybe(initial);
    b.multiplier = maybe(multiplier);
    b.max = maybe(max);
    return b;
}

JitterNode jitter(JitterType type) {
    JitterNode j;
    j.type = located(type);
    return j;
}

JitterNode bounded(std::optional<Duration> amount) {
    JitterNode j = jitter(JitterType::Bounded);
    j.amount = maybe(amount);
    return j;
}

JitterNode proportional(std::optional<double> factor) {
    JitterNode j = jitter(JitterType::Proportional);
    j.factor = maybe(factor);
    return j;
}

BudgetNode budget(std::optional<std::int64_t> max_tokens, std::optional<double> token_ratio) {
    BudgetNode b;
    b.max_tokens = maybe(max_tokens);
    b.token_ratio = maybe(token_ratio);
    return b;
}

RouteNode route(Duration up_to, std::string target) {
    RouteNode r;
    r.up_to = duration(up_to);
    r.target = name(std::move(target));
    return r;
}

ListNode<RouteNode> routes(std::initializer_list<RouteNode> list) {
    ListNode<RouteNode> out;
    out.items = list;
    return out;
}

PolicyNode policy(std::string policy_name, PolicyFields fields) {
    PolicyNode p;
    p.name = located(std::move(policy_name));
    p.fields = std::move(fields);
    return p;
}

HandlerNode handler(std::string key, std::string policy_name,
                    std::optional<bool> idempotent = std::nullopt) {
    HandlerNode h;
    h.key = located(std::move(key));
    h.policy = located(std::move(policy_name));
    h.idempotent = maybe(idempotent);
    return h;
}

Document document_header(std::string service) {
    Document d;
    d.version = count(1);
    d.service = name(std::move(service));
    d.has_policies_section = true;
    return d;
}

Document small_document() {
    Document d = document_header("payments");
    PolicyFields f;
    f.set(rebound::PolicyField::MaxAttempts, count(3));
    f.backoff = exponential(50ms, 2.0, 200ms);
    f.jitter = jitter(JitterType::Equal);
    f.retry_on = matchers({Matcher::of_category(ErrorCategory::Deadlock)});
    d.policies.push_back(policy("interactive", f));
    d.handlers.push_back(handler("ApproveCase", "interactive"));
    d.default_policy = name("interactive");
    return d;
}

PolicyFields rich_defaults() {
    PolicyFields f;
    f.set(rebound::PolicyField::MaxAttempts, count(4));
    f.backoff = linear(2s, 2s, 1min);
    f.jitter = jitter(JitterType::Full);
    f.set(rebound::PolicyField::OnExhausted, field(std::string("fail")));
    return f;
}

// Every scalar field, every matcher kind, a budget and routes.
PolicyFields rich_base() {
    PolicyFields f;
    f.set(rebound::PolicyField::MaxRetries, count(2));
    f.backoff = fixed(1500ms);
    f.jitter = jitter(JitterType::None);
    f.set(rebound::PolicyField::Deadline, duration(2min));
    f.set(rebound::PolicyField::MinAttemptBudget, duration(250us));
    f.set(rebound::PolicyField::AttemptTimeout, duration(1s));
    f.retry_on = matchers({Matcher::of_category(ErrorCategory::Deadlock), Matcher::transient(),
                           Matcher::sqlstate("40001"), Matcher::sqlstate_class("08"),
                           Matcher::native(Vendor::MySql, 1213), Matcher::error_type("io.timeout"),
                           Matcher::http_status(503), Matcher::http_class(5),
                           Matcher::message(R"(lock "x" \ wait)")});
    f.never_retry_on = matchers(
        {Matcher::of_category(ErrorCategory::ConstraintViolation), Matcher::sqlstate_class("23")});
    f.retry_if = names({"is_transient_api", "db.custom"});
    f.set(rebound::PolicyField::OnExhausted, field(std::string("dead_letter")));
    f.budget = budget(100, 0.1);
    f.routes = routes({route(10s, "orders.retry.10s"), route(1min, "orders.retry.1m")});
    return f;
}

PolicyFields rich_burst() {
    PolicyFields f;
    f.set(rebound::PolicyField::Extends, name("base"));
    f.set(rebound::PolicyField::MaxAttempts, count(5));
    f.backoff = exponential(100ms, 1.5, 5s);
    f.jitter = bounded(1s);
    return f;
}

// Exponential without multiplier, proportional jitter, an empty retry_on.
PolicyFields rich_gentle() {
    PolicyFields f;
    f.backoff = exponential(1s);
    f.jitter = proportional(0.025);
    f.retry_on = ListNode<Located<Matcher>>{};
    return f;
}

PolicyFields rich_steady() {
    PolicyFields f;
    f.backoff = linear(2s, 500ms);
    f.jitter = jitter(JitterType::Decorrelated);
    return f;
}

PolicyFields rich_still() {
    PolicyFields f;
    f.set(rebound::PolicyField::MaxAttempts, count(1));
    f.backoff = backoff(BackoffType::None);
    return f;
}

Document rich_document() {
    Document d = document_header("orders");
    d.defaults = DefaultsNode{};
    d.defaults->fields = rich_defaults();
    d.policies = {policy("base", rich_base()), policy("burst", rich_burst()),
                  policy("gentle", rich_gentle()), policy("steady", rich_steady()),
                  policy("still", rich_still())};
    d.handlers = {handler("ApproveCase", "base"), handler("RiskBackfill", "burst", true),
                  handler("orders.*", "gentle", false), handler("Refund", "steady")};
    d.default_policy = name("base");
    return d;
}

// A document with one policy holding `fields`, for tests of single values.
Document one_policy(PolicyFields fields) {
    Document d = document_header("svc");
    d.policies.push_back(policy("p", std::move(fields)));
    return d;
}

PolicyFields with_multiplier(double multiplier) {
    PolicyFields f;
    f.backoff = exponential(1s, multiplier);
    return f;
}

PolicyFields with_proportional_jitter(double factor) {
    PolicyFields f;
    f.jitter = proportional(factor);
    return f;
}

PolicyFields with_deadline(Duration d) {
    PolicyFields f;
    f.set(rebound::PolicyField::Deadline, duration(d));
    return f;
}

PolicyFields with_message(std::string text) {
    PolicyFields f;
    f.retry_on = matchers({Matcher::message(text)});
    return f;
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// --- Reading back -----------------------------------------------------------------------------

constexpr Syntax kSyntaxes[] = {Syntax::Yaml, Syntax::Json, Syntax::Text};

std::string read_spec_file(const std::string& relative) {
    std::ifstream in(std::string(REBOUND_SPEC_DIR) + "/" + relative, std::ios::binary);
    REQUIRE(in.good());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string describe(const Diagnostics& diagnostics) {
    std::string out;
    for (const Diagnostic& d : diagnostics) {
        out += format_diagnostic(d) + "\n";
    }
    return out;
}

// Parses `text`, requiring no errors.
Document parse_clean(const std::string& text, Syntax syntax) {
    const ParseResult result = parse(text, "emitted", syntax);
    INFO("text:\n" << text << "diagnostics:\n" << describe(result.diagnostics));
    REQUIRE_FALSE(has_errors(result.diagnostics));
    return result.document;
}

// The content of a Document: positions and the file name dropped.
Document content(Document d) {
    d = strip_positions(std::move(d));
    d.file.clear();
    return d;
}

// What the DSL keeps of `fields` (see emit_text.cpp): a missing exponential multiplier becomes
// 2, values foreign to their type disappear (empty lists stay:
// `retry on none`).
void keep_dsl_expressible(PolicyFields& f, bool is_defaults) {
    if (is_defaults) {
        f.scalars.erase(rebound::PolicyField::Extends);
    }
    if (f.backoff) {
        BackoffNode& b = *f.backoff;
        const BackoffType type = b.type.value;
        const bool has_initial = type == BackoffType::Linear || type == BackoffType::Exponential;
        if (type != BackoffType::Fixed) {
            b.delay.reset();
        }
        if (!has_initial) {
            b.initial.reset();
            b.max.reset();
        }
        if (type != BackoffType::Linear) {
            b.increment.reset();
        }
        if (type != BackoffType::Exponential) {
            b.multiplier.reset();
        } else if (!b.multiplier) {
            b.multiplier = field(Backoff::kDefaultMultiplier);
        }
    }
    if (f.jitter && f.jitter->type.value != JitterType::Bounded) {
        f.jitter->amount.reset();
    }
    if (f.jitter && f.jitter->type.value != JitterType::Proportional) {
        f.jitter->factor.reset();
    }
}

// A DSL breaker's `trip ratio` line states all three values of the rule, and `open` its period;
// `server delay` starts with its use. What the file leaves out prints as its default.
void keep_dsl_expressible(BreakerNode& b) {
    const BreakerSettings defaults;
    if (b.failure_ratio || b.minimum_calls || b.window) {
        if (!b.failure_ratio) {
            b.failure_ratio = field(defaults.failure_ratio);
        }
        if (!b.minimum_calls) {
            b.minimum_calls = field(std::int64_t{defaults.minimum_calls});
        }
        if (!b.window) {
            b.window = field(defaults.window);
        }
    }
    if (b.max_open_for && !b.open_for) {
        b.open_for = field(defaults.open_for);
    }
}

Document dsl_expressible(Document d) {
    for (BreakerNode& b : d.breakers) {
        keep_dsl_expressible(b);
    }
    const auto state_use = [](PolicyFields& f) {
        if (f.server_delay && !f.server_delay->use) {
            f.server_delay->use = field(ServerDelayUse::Max);
        }
    };
    for (PolicyNode& p : d.policies) {
        state_use(p.fields);
    }
    if (d.defaults) {
        state_use(d.defaults->fields);
    }
    if (d.defaults) {
        keep_dsl_expressible(d.defaults->fields, true);
    }
    for (PolicyNode& p : d.policies) {
        keep_dsl_expressible(p.fields, false);
    }
    return d;
}

// What `document` should read back as after a trip through `syntax`.
Document expected_after_trip(const Document& document, Syntax syntax) {
    return content(syntax == Syntax::Text ? dsl_expressible(document) : document);
}

std::vector<HandlerBinding> bindings_of(const Document& d) {
    std::vector<HandlerBinding> out;
    for (const HandlerNode& h : d.handlers) {
        std::optional<bool> idempotent;
        if (h.idempotent) {
            idempotent = h.idempotent->value;
        }
        out.push_back({h.key.value, h.policy.value, idempotent});
    }
    return out;
}

// emit -> parse gives back `document` (up to what `syntax` can say), the same resolved policies
// and bindings, and emitting again gives the same text.
void check_round_trip(const Document& document, Syntax syntax) {
    const std::string text = emit(document, syntax);
    INFO("syntax " << to_string(syntax) << ", emitted:\n" << text);
    const Document reread = parse_clean(text, syntax);
    CHECK(content(reread) == expected_after_trip(document, syntax));
    CHECK(resolve_policies(reread) == resolve_policies(document));
    CHECK(bindings_of(reread) == bindings_of(expected_after_trip(document, syntax)));
    CHECK(emit(reread, syntax) == text);
}

// --- Expected texts ---------------------------------------------------------------------------

constexpr const char* kSmallYaml = R"(rebound: 1
service: payments
policies:
  interactive:
    max_attempts: 3
    backoff: { type: exponential, initial: 50ms, multiplier: 2.0, max: 200ms }
    jitter: equal
    retry_on: [deadlock]
handlers:
  ApproveCase: interactive
default: interactive
)";

constexpr const char* kSmallJson = R"({
  "rebound": 1,
  "service": "payments",
  "policies": {
    "interactive": {
      "max_attempts": 3,
      "backoff": {
        "type": "exponential",
        "initial": "50ms",
        "multiplier": 2.0,
        "max": "200ms"
      },
      "jitter": "equal",
      "retry_on": [
        "deadlock"
      ]
    }
  },
  "handlers": {
    "ApproveCase": "interactive"
  },
  "default": "interactive"
}
)";

constexpr const char* kSmallText = R"(rebound 1
service payments

policy interactive {
  attempts 3
  backoff exponential 50ms x2 max 200ms
  jitter equal
  retry on deadlock
}

handler ApproveCase uses interactive
default uses interactive
)";

constexpr const char* kRichYaml = R"(rebound: 1
service: orders
defaults:
  max_attempts: 4
  backoff: { type: linear, initial: 2s, increment: 2s, max: 1m }
  jitter: full
  on_exhausted: fail
policies:
  base:
    max_retries: 2
    backoff: { type: fixed, delay: 1500ms }
    jitter: none
    deadline: 2m
    min_attempt_budget: 250us
    attempt_timeout: 1s
    retry_on: [deadlock, transient, { sqlstate: "40001" }, { sqlstate_class: "08" }, { native: 1213, vendor: mysql }, { error: io.timeout }, { http: 503 }, { http: 5xx }, { message: "lock \"x\" \\ wait" }]
    never_retry_on: [constraint_violation, { sqlstate_class: "23" }]
    retry_if: [is_transient_api, db.custom]
    on_exhausted: dead_letter
    budget: { max_tokens: 100, token_ratio: 0.1 }
    routes:
      - { up_to: 10s, target: "orders.retry.10s" }
      - { up_to: 1m, target: "orders.retry.1m" }
  burst:
    extends: base
    max_attempts: 5
    backoff: { type: exponential, initial: 100ms, multiplier: 1.5, max: 5s }
    jitter: { type: bounded, amount: 1s }
  gentle:
    backoff: { type: exponential, initial: 1s }
    jitter: { type: proportional, factor: 0.025 }
    retry_on: []
  steady:
    backoff: { type: linear, initial: 2s, increment: 500ms }
    jitter: decorrelated
  still:
    max_attempts: 1
    backoff: { type: none }
handlers:
  ApproveCase: base
  RiskBackfill: { policy: burst, idempotent: true }
  "orders.*": { policy: gentle, idempotent: false }
  Refund: steady
default: base
)";

constexpr const char* kRichJson = R"({
  "rebound": 1,
  "service": "orders",
  "defaults": {
    "max_attempts": 4,
    "backoff": { "type": "linear", "initial": "2s", "increment": "2s", "max": "1m" },
    "jitter": "full",
    "on_exhausted": "fail"
  },
  "policies": {
    "base": {
      "max_retries": 2,
      "backoff": { "type": "fixed", "delay": "1500ms" },
      "jitter": "none",
      "deadline": "2m",
      "min_attempt_budget": "250us",
      "attempt_timeout": "1s",
      "retry_on": [
        "deadlock", "transient", { "sqlstate": "40001" }, { "sqlstate_class": "08" },
        { "native": 1213, "vendor": "mysql" }, { "error": "io.timeout" }, { "http": 503 },
        { "http": "5xx" }, { "message": "lock \"x\" \\ wait" }
      ],
      "never_retry_on": ["constraint_violation", { "sqlstate_class": "23" }],
      "retry_if": ["is_transient_api", "db.custom"],
      "on_exhausted": "dead_letter",
      "budget": { "max_tokens": 100, "token_ratio": 0.1 },
      "routes": [
        { "up_to": "10s", "target": "orders.retry.10s" },
        { "up_to": "1m", "target": "orders.retry.1m" }
      ]
    },
    "burst": {
      "extends": "base",
      "max_attempts": 5,
      "backoff": { "type": "exponential", "initial": "100ms", "multiplier": 1.5, "max": "5s" },
      "jitter": { "type": "bounded", "amount": "1s" }
    },
    "gentle": {
      "backoff": { "type": "exponential", "initial": "1s" },
      "jitter": { "type": "proportional", "factor": 0.025 },
      "retry_on": []
    },
    "steady": {
      "backoff": { "type": "linear", "initial": "2s", "increment": "500ms" },
      "jitter": "decorrelated"
    },
    "still": {
      "max_attempts": 1,
      "backoff": { "type": "none" }
    }
  },
  "handlers": {
    "ApproveCase": "base",
    "RiskBackfill": { "policy": "burst", "idempotent": true },
    "orders.*": { "policy": "gentle", "idempotent": false },
    "Refund": "steady"
  },
  "default": "base"
})";

constexpr const char* kRichText = R"(rebound 1
service orders

defaults {
  attempts 4
  backoff linear 2s +2s max 1m
  jitter full
  on exhausted fail
}

policy base {
  retries 2
  backoff fixed 1500ms
  jitter none
  deadline 2m
  min_attempt_budget 250us
  attempt_timeout 1s
  retry on deadlock, transient, sqlstate 40001, sqlstate class 08, native mysql 1213, error io.timeout, http 503, http 5xx, message "lock \"x\" \\ wait"
  never on constraint_violation, sqlstate class 23
  retry if is_transient_api, db.custom
  on exhausted dead_letter
  budget tokens 100 ratio 0.1
  route up to 10s -> "orders.retry.10s"
  route up to 1m -> "orders.retry.1m"
}

policy burst extends base {
  attempts 5
  backoff exponential 100ms x1.5 max 5s
  jitter +-1s
}

policy gentle {
  backoff exponential 1s x2
  jitter 2.5%
  retry on none
}

policy steady {
  backoff linear 2s +500ms
  jitter decorrelated
}

policy still {
  attempts 1
  backoff none
}

handler ApproveCase uses base
handler RiskBackfill uses burst idempotent
handler orders.* uses gentle not idempotent
handler Refund uses steady
default uses base
)";

}  // namespace

// --- Exact output -----------------------------------------------------------------------------

TEST_CASE("emit: a small document in each syntax", "[emit]") {
    const Document d = small_document();
    CHECK(emit_yaml(d) == kSmallYaml);
    CHECK(emit_json(d) == kSmallJson);
    CHECK(emit_text(d) == kSmallText);
}

TEST_CASE("emit: dispatches on the syntax", "[emit]") {
    const Document d = small_document();
    CHECK(emit(d, Syntax::Yaml) == emit_yaml(d));
    CHECK(emit(d, Syntax::Json) == emit_json(d));
    CHECK(emit(d, Syntax::Text) == emit_text(d));
}

TEST_CASE("emit: every field, matcher, backoff and jitter form in YAML", "[emit]") {
    CHECK(emit_yaml(rich_document()) == kRichYaml);
}

TEST_CASE("emit: every field, matcher, backoff and jitter form in JSON", "[emit]") {
    const std::string text = emit_json(rich_document());
    CHECK(text.back() == '\n');
    CHECK(nlohmann::ordered_json::parse(text) == nlohmann::ordered_json::parse(kRichJson));
}

TEST_CASE("emit: every field, matcher, backoff and jitter form in the DSL", "[emit]") {
    CHECK(emit_text(rich_document()) == kRichText);
}

TEST_CASE("emit: an empty document", "[emit]") {
    const Document empty;
    CHECK(emit_yaml(empty) == "{}\n");
    CHECK(emit_json(empty) == "{}\n");
    CHECK(emit_text(empty).empty());
}

TEST_CASE("emit: empty sections and bodies", "[emit]") {
    Document d = document_header("svc");
    d.defaults = DefaultsNode{};
    d.policies.push_back(policy("p", {}));
    CHECK(emit_yaml(d) == "rebound: 1\nservice: svc\ndefaults: {}\npolicies:\n  p: {}\n");
    CHECK(emit_text(d) == "rebound 1\nservice svc\n\ndefaults {\n}\n\npolicy p {\n}\n");

    Document no_policies = document_header("svc");
    CHECK(emit_yaml(no_policies) == "rebound: 1\nservice: svc\npolicies: {}\n");
    no_policies.has_policies_section = false;
    CHECK(emit_yaml(no_policies) == "rebound: 1\nservice: svc\n");
}

TEST_CASE("emit: absent fields stay absent", "[emit]") {
    Document d;
    d.default_policy = name("p");
    CHECK(emit_yaml(d) == "default: p\n");
    CHECK(emit_json(d) == "{\n  \"default\": \"p\"\n}\n");
    CHECK(emit_text(d) == "default uses p\n");
}

TEST_CASE("emit: durations in the largest exact unit", "[emit]") {
    const auto deadline_of = [](Duration d) { return emit_yaml(one_policy(with_deadline(d))); };
    CHECK(contains(deadline_of(1500ms), "deadline: 1500ms\n"));
    CHECK(contains(deadline_of(2min), "deadline: 2m\n"));
    CHECK(contains(deadline_of(250us), "deadline: 250us\n"));
    CHECK(contains(deadline_of(1h), "deadline: 1h\n"));
    CHECK(contains(deadline_of(90s), "deadline: 90s\n"));
    CHECK(contains(deadline_of(0us), "deadline: 0ms\n"));
    CHECK(contains(deadline_of(3600001ms), "deadline: 3600001ms\n"));
    CHECK(contains(emit_json(one_policy(with_deadline(1500ms))), "\"deadline\": \"1500ms\""));
    CHECK(contains(emit_text(one_policy(with_deadline(2min))), "  deadline 2m\n"));
}

TEST_CASE("emit: multipliers read back exactly", "[emit]") {
    const auto yaml_of = [](double m) { return emit_yaml(one_policy(with_multiplier(m))); };
    const auto text_of = [](double m) { return emit_text(one_policy(with_multiplier(m))); };
    CHECK(contains(yaml_of(2.0), "multiplier: 2.0 }"));
    CHECK(contains(text_of(2.0), "backoff exponential 1s x2\n"));
    CHECK(contains(yaml_of(1.1), "multiplier: 1.1 }"));
    CHECK(contains(text_of(1.1), " x1.1\n"));
    CHECK(contains(yaml_of(0.1 + 0.2), "multiplier: 0.30000000000000004 }"));
    CHECK(contains(text_of(100.0), " x100\n"));
    CHECK(contains(emit_json(one_policy(with_multiplier(2.0))), "\"multiplier\": 2.0"));
}

TEST_CASE("emit: proportional jitter as an exact percentage in the DSL", "[emit]") {
    const auto text_of = [](double f) {
        return emit_text(one_policy(with_proportional_jitter(f)));
    };
    CHECK(contains(text_of(0.2), "  jitter 20%\n"));
    CHECK(contains(text_of(0.025), "  jitter 2.5%\n"));
    CHECK(contains(text_of(1.0), "  jitter 100%\n"));
    CHECK(contains(text_of(0.001), "  jitter 0.1%\n"));
    CHECK(contains(text_of(0.5), "  jitter 50%\n"));
    CHECK(contains(text_of(0.123456), "  jitter 12.3456%\n"));
    CHECK(contains(text_of(0.07), "  jitter 7%\n"));
    CHECK(contains(emit_yaml(one_policy(with_proportional_jitter(0.2))),
                   "jitter: { type: proportional, factor: 0.2 }\n"));
}

TEST_CASE("emit: YAML quotes exactly the strings a reader would misread", "[emit]") {
    Document d = document_header("true");
    d.policies.push_back(policy("123", {}));
    d.policies.push_back(policy("No", {}));
    d.policies.push_back(policy("a: b", {}));
    d.policies.push_back(policy("#x", {}));
    d.policies.push_back(policy("-lead", {}));
    d.policies.push_back(policy(".inf", {}));
    d.policies.push_back(policy("", {}));
    d.policies.push_back(policy("plain_name-1.2", {}));
    d.handlers.push_back(handler("orders.*", "null"));
    d.handlers.push_back(handler("Exact", "y"));
    CHECK(emit_yaml(d) == R"(rebound: 1
service: "true"
policies:
  "123": {}
  "No": {}
  "a: b": {}
  "#x": {}
  "-lead": {}
  ".inf": {}
  "": {}
  plain_name-1.2: {}
handlers:
  "orders.*": "null"
  Exact: "y"
)");
}

TEST_CASE("emit: free text is quoted and escaped", "[emit]") {
    const std::string message = "say \"hi\" \\ a\tb\nc\x01 caf\xc3\xa9";
    const Document d = one_policy(with_message(message));
    CHECK(contains(emit_yaml(d), R"(retry_on: [{ message: "say \"hi\" \\ a\tb\nc\x01 café" }])"));
    CHECK(contains(emit_text(d), R"(retry on message "say \"hi\" \\ a\tb\nc\x01 café")"));
    const auto json = nlohmann::json::parse(emit_json(d));
    CHECK(json["policies"]["p"]["retry_on"][0]["message"] == message);

    PolicyFields routed;
    routed.routes = routes({route(1s, "a \"b\"")});
    CHECK(contains(emit_yaml(one_policy(routed)), R"(- { up_to: 1s, target: "a \"b\"" })"));
    CHECK(contains(emit_text(one_policy(routed)), R"(route up to 1s -> "a \"b\"")"));
}

TEST_CASE("emit: stated idempotent false", "[emit]") {
    Document d = document_header("svc");
    d.handlers.push_back(handler("H", "p", false));
    CHECK(contains(emit_yaml(d), "  H: { policy: p, idempotent: false }\n"));
    CHECK(contains(emit_json(d), R"("H": {
      "policy": "p",
      "idempotent": false
    })"));
    CHECK(contains(emit_text(d), "handler H uses p not idempotent\n"));
}

TEST_CASE("emit: empty lists and the default multiplier in the DSL", "[emit]") {
    PolicyFields f;
    f.retry_on = ListNode<Located<Matcher>>{};
    f.never_retry_on = ListNode<Located<Matcher>>{};
    f.retry_if = ListNode<Located<std::string>>{};
    f.routes = ListNode<RouteNode>{};
    f.backoff = exponential(1s);
    const Document d = one_policy(f);
    CHECK(emit_text(d) ==
          "rebound 1\nservice svc\n\npolicy p {\n  backoff exponential 1s x2\n  retry on none\n"
          "  never on none\n  retry if none\n  routes none\n}\n");
    CHECK(contains(emit_yaml(d), R"(    backoff: { type: exponential, initial: 1s }
    retry_on: []
    never_retry_on: []
    retry_if: []
    routes: []
)"));
}

TEST_CASE("emit: incomplete or out-of-range values do not crash", "[emit]") {
    PolicyFields f;
    f.backoff = exponential(std::nullopt, std::numeric_limits<double>::quiet_NaN());
    f.jitter = bounded(std::nullopt);
    f.set(rebound::PolicyField::Deadline, duration(Duration::min()));
    f.set(rebound::PolicyField::AttemptTimeout, duration(-5ms));
    f.retry_on = matchers({Matcher::of_category(static_cast<ErrorCategory>(200)),
                           Matcher::native(static_cast<Vendor>(99), -1),
                           Matcher::message("bad \xff utf-8")});
    f.budget = budget(std::nullopt, std::numeric_limits<double>::infinity());
    f.routes = routes({RouteNode{}});
    Document d = one_policy(f);
    d.policies.push_back(policy("fixed", {}));
    d.policies.back().fields.backoff = fixed(std::nullopt);
    d.policies.back().fields.jitter = proportional(std::nullopt);
    d.policies.back().fields.backoff->type.value = static_cast<BackoffType>(77);
    d.handlers.push_back(HandlerNode{});

    for (const Syntax syntax : kSyntaxes) {
        CHECK_NOTHROW(emit(d, syntax));
    }
    const std::string text = emit_text(d);
    CHECK(contains(text, "  backoff exponential xnan\n"));
    CHECK(contains(text, "  jitter bounded\n"));
    CHECK(contains(text, "  deadline -9223372036854775808us\n"));
    CHECK(contains(text, "  retry on unknown, native generic -1, message"));
    CHECK(contains(text, "  budget ratio inf\n"));
    CHECK(contains(text, "  route up to\n"));
    CHECK(contains(text, "  jitter proportional\n"));
    const std::string yaml = emit_yaml(d);
    CHECK(contains(yaml, "multiplier: .nan }"));
    CHECK(contains(yaml, "attempt_timeout: \"-5ms\"\n"));
    CHECK(contains(yaml, "budget: { token_ratio: .inf }"));
    CHECK(contains(yaml, "routes:\n      - {}\n"));
    CHECK(contains(emit_json(d), "\"token_ratio\": null"));
}

// --- Round trips through the front ends -------------------------------------------------------

TEST_CASE("emit: the rich document reads back the same in each syntax", "[emit][roundtrip]") {
    for (const Syntax syntax : kSyntaxes) {
        check_round_trip(rich_document(), syntax);
    }
}

TEST_CASE("emit: the small document reads back the same in each syntax", "[emit][roundtrip]") {
    for (const Syntax syntax : kSyntaxes) {
        check_round_trip(small_document(), syntax);
    }
}

TEST_CASE("emit: awkward names and text read back the same", "[emit][roundtrip]") {
    Document d = document_header("null");
    d.policies.push_back(policy("yes", with_message("say \"hi\" \\ # : - a\tb\nc caf\xc3\xa9")));
    d.policies.push_back(policy("True", with_proportional_jitter(0.07)));
    d.policies.back().fields.set(rebound::PolicyField::Extends, name("yes"));
    d.policies.back().fields.routes = routes({route(1s, "#q: \"x\""), route(2s, "123")});
    d.handlers.push_back(handler("orders.*", "yes"));
    d.handlers.push_back(handler("Off", "True", true));
    d.default_policy = name("yes");
    for (const Syntax syntax : kSyntaxes) {
        check_round_trip(d, syntax);
    }
}

TEST_CASE("emit: numbers read back exactly", "[emit][roundtrip]") {
    for (const double multiplier : {2.0, 1.1, 0.1 + 0.2 + 1.0, 1.0 + 1e-15, 99.99999999999999}) {
        for (const Syntax syntax : kSyntaxes) {
            check_round_trip(one_policy(with_multiplier(multiplier)), syntax);
        }
    }
    for (const double factor : {0.2, 0.025, 0.07, 0.1 + 0.2, 1e-3, 0.123456789012345, 1.0}) {
        for (const Syntax syntax : kSyntaxes) {
            check_round_trip(one_policy(with_proportional_jitter(factor)), syntax);
        }
    }
}

TEST_CASE("emit: conformance files read back the same in each syntax", "[emit][roundtrip]") {
    const std::string file = GENERATE(as<std::string>{}, "01-fixed.yaml", "02-linear.yaml",
                                      "03-exponential-bounded-jitter.yaml", "04-tiers.yaml",
                                      "04-tiers.rebound", "05-deadline.yaml");
    const Syntax source_syntax = syntax_for_path(file).value_or(Syntax::Yaml);
    const Document original = parse_clean(read_spec_file("conformance/" + file), source_syntax);
    INFO("file " << file);
    REQUIRE(original.service.has_value());  // the front end is not a placeholder
    for (const Syntax syntax : kSyntaxes) {
        check_round_trip(original, syntax);
    }
}

TEST_CASE("emit: breakers and server delay settings read back the same in each syntax",
          "[emit][roundtrip]") {
    const std::string yaml = R"(rebound: 1
service: checkout
defaults:
  server_delay: { cap: 1m }
breakers:
  full:
    failure_ratio: 0.25
    minimum_calls: 8
    window: 2s
    open_for: 750ms
    max_open_for: 1m
    half_open_calls: 3
    slow_call: 1500ms
    failures: [transient, { sqlstate_class: "08" }, { http: 503 }]
  partial:
    failure_ratio: 0.75
    max_open_for: 30s
  counting:
    consecutive_failures: 4
    failures: []
  bare:
policies:
  interactive:
    breaker: full
    server_delay: { use: max, cap: 2s, over_cap: cap, spread: 0.125 }
  batch:
    extends: interactive
    breaker: partial
    server_delay: { use: ignore }
  quiet:
    breaker: counting
    server_delay: { over_cap: ignore }
  other:
    breaker: bare
)";
    const Document original = parse_clean(yaml, Syntax::Yaml);
    REQUIRE(original.breakers.size() == 4);
    for (const Syntax syntax : kSyntaxes) {
        check_round_trip(original, syntax);
        const Document reread = parse_clean(emit(original, syntax), syntax);
        CHECK(resolve_breakers(reread) == resolve_breakers(original));
    }
    const std::string text = emit_text(original);
    CHECK(contains(text,
                   "breaker full {\n  trip ratio 25% of 8 calls in 2s\n  open 750ms max 1m\n"
                   "  half open 3 calls\n  slow call 1500ms\n"
                   "  failures transient, sqlstate class 08, http 503\n}\n"));
    CHECK(contains(text,
                   "breaker partial {\n  trip ratio 75% of 20 calls in 10s\n"
                   "  open 5s max 30s\n}\n"));
    CHECK(contains(text,
                   "breaker counting {\n  trip after 4 consecutive failures\n"
                   "  failures none\n}\n"));
    CHECK(contains(text, "breaker bare {\n}\n"));
    CHECK(contains(text, "  server delay max cap 2s over cap cap spread 12.5%\n  breaker full\n"));
    CHECK(contains(text, "  server delay ignore\n"));
    CHECK(contains(text, "  server delay max over cap ignore\n"));
}
