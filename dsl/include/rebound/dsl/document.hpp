// Document: the intermediate form of one service file, shared by every front end.
//
// A Document records what the text states, nothing more: fields left out are absent (not yet
// defaulted), `extends` is not yet resolved, and every value keeps the position of its text.
// The YAML, JSON and DSL front ends fill it; the validator and compiler (compile.hpp) read it;
// the emitters (emit.hpp) print it back in any syntax.
//
// Front-end contract:
//   - A value that cannot be read (wrong type, bad duration, unknown word) is reported and left
//     absent; the rest of the file is still read so that every problem is reported at once.
//   - A key or definition given twice is reported at the second place, with the first position
//     in the message; the first one is kept.
//   - Enumerations are stored typed (BackoffType, Matcher, ...); numbers are stored wide (int64,
//     double) so that range checks happen in one place, the validator.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "rebound/backoff.hpp"
#include "rebound/dsl/source_position.hpp"
#include "rebound/duration.hpp"
#include "rebound/hedge.hpp"
#include "rebound/jitter.hpp"
#include "rebound/matcher.hpp"
#include "rebound/policy_field.hpp"
#include "rebound/policy_spec.hpp"

namespace rebound::dsl {

template <typename T>
using Field = std::optional<Located<T>>;

// `backoff`: the type, and whichever fields the text gave (validated per type later).
struct BackoffNode {
    Located<BackoffType> type;
    Field<Duration> delay;
    Field<Duration> initial;
    Field<Duration> increment;
    Field<double> multiplier;
    Field<Duration> max;
    SourcePosition position;  // of the whole backoff value
    friend bool operator==(const BackoffNode&, const BackoffNode&) = default;
};

// `jitter`: a word (none, full, equal, decorrelated), a bare duration (bounded), or a mapping.
struct JitterNode {
    Located<JitterType> type;
    Field<Duration> amount;  // bounded
    Field<double> factor;    // proportional
    SourcePosition position;
    friend bool operator==(const JitterNode&, const JitterNode&) = default;
};

struct BudgetNode {
    Field<std::int64_t> max_tokens;
    Field<double> token_ratio;
    SourcePosition position;
    friend bool operator==(const BudgetNode&, const BudgetNode&) = default;
};

struct RouteNode {
    Field<Duration> up_to;
    Field<std::string> target;
    SourcePosition position;
    friend bool operator==(const RouteNode&, const RouteNode&) = default;
};

// `server_delay`: how server delay hints are used (docs/resilience.md).
struct ServerDelayNode {
    Field<ServerDelayUse> use;
    Field<Duration> cap;
    Field<OverCapAction> over_cap;
    Field<double> spread;
    SourcePosition position;
    friend bool operator==(const ServerDelayNode&, const ServerDelayNode&) = default;
};

// `hedge`: hedged attempts (docs/hedging.md), as written. `hedge: none` (DSL `hedge none`) is a
// node with `none` set and nothing else: it drops a hedge the policy would inherit. Ranges, the
// choice between a fixed and a learned delay, and what a fixed delay must not have are the
// validator's rules.
struct HedgeNode {
    bool none = false;
    Field<Duration> delay;   // a fixed delay
    bool learned = false;    // the delay is `{ quantile, min, max }` (DSL `after pQ within ..`)
    Field<double> quantile;  // learned: a fraction in (0, 1)
    Field<Duration> min;     // learned
    Field<Duration> max;     // learned
    SourcePosition learned_position;  // of the learned delay's mapping (DSL: of `pQ`)
    Field<double> max_extra_load;     // a fraction
    Field<std::int64_t> burst;
    Field<HedgeOnFailure> on_failure;
    Field<Duration> window;
    Field<std::int64_t> warmup;
    SourcePosition position;  // of the whole hedge value
    friend bool operator==(const HedgeNode&, const HedgeNode&) = default;
};

// A list value with the position of the list itself.
template <typename T>
struct ListNode {
    std::vector<T> items;
    SourcePosition position;
    friend bool operator==(const ListNode&, const ListNode&) = default;
};

// The value of a top-level scalar field (rebound::is_scalar) as written, by the field's kind: a
// Count as int64, a Number as double, a TimeSpan as Duration; a Name, Text or Word as its text (a
// Word as the word of the field's vocabulary, policy_field.hpp).
using ScalarValue = std::variant<std::int64_t, double, Duration, std::string>;

// The fields of one policy (or of `defaults`) as written.
struct PolicyFields {
    // The top-level scalar fields given (extends, max_attempts, deadline, on_exhausted, ...), by
    // field: the front ends, the compiler and the emitters handle each kind alike, from the
    // field table.
    std::map<PolicyField, Located<ScalarValue>> scalars;
    std::optional<BackoffNode> backoff;
    std::optional<JitterNode> jitter;
    std::optional<ListNode<Located<Matcher>>> retry_on;
    std::optional<ListNode<Located<Matcher>>> never_retry_on;
    std::optional<ListNode<Located<std::string>>> retry_if;
    std::optional<BudgetNode> budget;
    std::optional<ListNode<RouteNode>> routes;
    std::optional<ServerDelayNode> server_delay;
    std::optional<HedgeNode> hedge;

    // The value of the top-level scalar field `field`, when given and of that type.
    Field<std::int64_t> count(PolicyField field) const { return scalar<std::int64_t>(field); }
    Field<double> number(PolicyField field) const { return scalar<double>(field); }
    Field<Duration> duration(PolicyField field) const { return scalar<Duration>(field); }
    Field<std::string> text(PolicyField field) const { return scalar<std::string>(field); }

    // Sets the top-level scalar field `field` to `value` (of the type its kind stores).
    template <typename T>
    void set(PolicyField field, const Located<T>& value) {
        scalars.insert_or_assign(field, Located<ScalarValue>{value.value, value.position});
    }

    // As above, or leaves `field` unset when `value` is absent (a value the front end could not
    // read).
    template <typename T>
    void set(PolicyField field, const Field<T>& value) {
        if (value) {
            set(field, *value);
        }
    }

    friend bool operator==(const PolicyFields&, const PolicyFields&) = default;

  private:
    template <typename T>
    Field<T> scalar(PolicyField field) const {
        const auto found = scalars.find(field);
        if (found == scalars.end()) {
            return std::nullopt;
        }
        const T* value = std::get_if<T>(&found->second.value);
        return value != nullptr ? Field<T>{Located<T>{*value, found->second.position}}
                                : std::nullopt;
    }
};

// `breakers:` entry: one circuit breaker as written (docs/resilience.md); absent settings take
// the defaults when compiled.
struct BreakerNode {
    Located<std::string> name;
    Field<double> failure_ratio;
    Field<std::int64_t> minimum_calls;
    Field<Duration> window;
    Field<std::int64_t> consecutive_failures;
    Field<Duration> open_for;
    Field<Duration> max_open_for;
    Field<std::int64_t> half_open_calls;
    Field<Duration> slow_call;
    std::optional<ListNode<Located<Matcher>>> failures;
    SourcePosition position;  // of the definition (the name)
    friend bool operator==(const BreakerNode&, const BreakerNode&) = default;
};

struct PolicyNode {
    Located<std::string> name;
    PolicyFields fields;
    SourcePosition position;  // of the definition (the name)
    // The front end reported an error while reading the policy's values, in its own text or in
    // text it reuses (a YAML alias), or stopped reading before its end: its fields are
    // incomplete, so nothing is judged from them (compile_valid_parts leaves the policy out).
    bool read_with_errors = false;
    friend bool operator==(const PolicyNode&, const PolicyNode&) = default;
};

struct DefaultsNode {
    PolicyFields fields;
    SourcePosition position;
    friend bool operator==(const DefaultsNode&, const DefaultsNode&) = default;
};

// `handlers:` entry: an exact handler name or a `prefix.*` pattern bound to a policy, with what
// the handler calls and how often its trigger is redelivered.
struct HandlerNode {
    Located<std::string> key;
    Located<std::string> policy;
    Field<bool> idempotent;
    std::optional<ListNode<Located<std::string>>> calls;  // handler names (docs/resilience.md)
    Field<std::int64_t> redeliveries;
    SourcePosition position;
    friend bool operator==(const HandlerNode&, const HandlerNode&) = default;
};

struct Document {
    std::string file;  // as given by the caller, for diagnostics
    Field<std::int64_t> version;
    Field<std::string> service;
    std::optional<DefaultsNode> defaults;
    bool has_policies_section = false;
    SourcePosition policies_position;
    std::vector<BreakerNode> breakers;  // in file order, names unique
    std::vector<PolicyNode> policies;   // in file order, names unique
    std::vector<HandlerNode> handlers;  // in file order, keys unique
    Field<std::string> default_policy;
    friend bool operator==(const Document&, const Document&) = default;
};

}  // namespace rebound::dsl
