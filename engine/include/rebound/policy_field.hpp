// PolicyField: the identity of every value of a policy, and the one table that describes them.
//
// The table (policy_fields()) is the single place a field of the policy language is defined: its
// key in YAML and JSON, its DSL keyword, the kind of value, its range and default as the docs
// state them, and what it means. The validator, the file compiler, the front ends' key lists and
// did-you-mean candidates, and the checks of the JSON Schema and the docs all read it, so a new
// field is one row here plus the semantics that use it.
//
// A validation problem names a PolicyField and, for an item of a list field, the item's index;
// paths such as "routes[2].up_to" are spelt from the table (field_path), never parsed back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "rebound/duration.hpp"

namespace rebound {

struct PolicySpec;

// In table order: each top-level field is followed by the fields inside it.
enum class PolicyField : std::uint8_t {
    Name,
    Extends,
    MaxAttempts,
    MaxRetries,
    Backoff,
    BackoffType,
    BackoffDelay,
    BackoffInitial,
    BackoffIncrement,
    BackoffMultiplier,
    BackoffMax,
    Jitter,
    JitterType,
    JitterAmount,
    JitterFactor,
    Deadline,
    MinAttemptBudget,
    AttemptTimeout,
    RetryOn,
    NeverRetryOn,
    RetryIf,
    OnExhausted,
    Budget,
    BudgetMaxTokens,
    BudgetTokenRatio,
    Routes,
    RouteUpTo,
    RouteTarget,
    ServerDelay,
    ServerDelayUse,
    ServerDelayCap,
    ServerDelayOverCap,
    ServerDelaySpread,
    Breaker,
    Hedge,
    HedgeDelay,
    HedgeQuantile,  // the three of a learned delay, inside `delay` ("hedge.delay.quantile")
    HedgeMin,
    HedgeMax,
    HedgeMaxExtraLoad,
    HedgeBurst,
    HedgeOnFailure,
    HedgeWindow,
    HedgeWarmup,  // last: kPolicyFieldCount counts up to here
};

inline constexpr std::size_t kPolicyFieldCount =
    static_cast<std::size_t>(PolicyField::HedgeWarmup) + 1;

enum class FieldKind : std::uint8_t {
    Name,         // a name ([A-Za-z_][A-Za-z0-9_.-]*)
    Count,        // a whole number within [min, max]
    Number,       // a decimal number
    TimeSpan,     // a duration such as 250ms
    Text,         // quoted text
    Word,         // one word of a fixed vocabulary (a type, an action)
    Group,        // a mapping of the fields that name it as their parent
    MatcherList,  // a list of matchers
    NameList,     // a list of names
    GroupList,    // a list of mappings of the fields that name it as their parent
};

// Where a field may be written.
enum class FieldPlace : std::uint8_t {
    NotWritten,    // named by problems only (a policy's name is its key, not a field)
    PolicyOnly,    // in a policy, not in `defaults`
    PolicyBody,    // in a policy and in `defaults`
    InsideParent,  // inside its parent's mapping
};

// Where a top-level scalar field lives in a PolicySpec, one accessor pair per kind of value, so
// that the compiler, the validator and `explain` move every such field alike. A row sets the pair
// of its kind; the others stay null, and all stay null for a field with no place in a PolicySpec
// (extends) and for groups and lists, which their own code moves.
struct SpecDuration {  // TimeSpan
    // The value; nullopt when an optional field is unset (a deadline of `none`).
    std::optional<Duration> (*get)(const PolicySpec& spec) = nullptr;
    void (*set)(PolicySpec& spec, Duration value) = nullptr;
    bool positive = false;  // the validator requires a set value above 0 (range "duration > 0")
};

struct SpecCount {  // Count; a value is within the row's [min, max] before it is set
    std::int64_t (*get)(const PolicySpec& spec) = nullptr;
    void (*set)(PolicySpec& spec, std::int64_t value) = nullptr;
};

struct SpecNumber {  // Number
    double (*get)(const PolicySpec& spec) = nullptr;
    void (*set)(PolicySpec& spec, double value) = nullptr;
};

// Name, Text and Word; a Word's value is one of the row's `words`.
struct SpecText {
    std::string_view (*get)(const PolicySpec& spec) = nullptr;
    void (*set)(PolicySpec& spec, std::string_view value) = nullptr;
};

struct SpecPlace {
    SpecDuration duration;
    SpecCount count;
    SpecNumber number;
    SpecText text;
};

// The bounds of a Number field, as its `range` text states them.
struct NumberBounds {
    double min = 0;
    double max = 0;
    bool min_excluded = false;  // "> 1.0 and <= 100": min itself is not allowed
};

struct PolicyFieldInfo {
    PolicyField id;
    PolicyField parent;            // the field that holds it; itself for a top-level field
    std::string_view wire_name;    // key in YAML and JSON (within the parent's mapping)
    std::string_view dsl_keyword;  // the DSL statement that states it; empty where none
    FieldKind kind;
    FieldPlace place;
    std::int64_t min = 0;  // Count: the inclusive range
    std::int64_t max = 0;
    std::string_view range;          // the values allowed, as the docs state them
    std::string_view default_value;  // the built-in default, as the docs state it
    std::string_view docs;           // what the field means, for the docs and the schema
    // Top-level scalar fields, for messages: a sample value ("3s" in "expected a duration such as
    // 3s after 'deadline'", "3" for a count) or, for a Name or Word, what a value is ("a policy
    // name", "on_exhausted action").
    std::string_view example{};
    SpecPlace in_spec{};                        // top-level scalar fields only
    NumberBounds bounds{};                      // Number fields
    std::span<const std::string_view> words{};  // Word fields: the vocabulary, in enum order
};

// Whether a field of `kind` holds one value (not a group or a list).
constexpr bool is_scalar(FieldKind kind) noexcept {
    return kind == FieldKind::Name || kind == FieldKind::Count || kind == FieldKind::Number ||
           kind == FieldKind::TimeSpan || kind == FieldKind::Text || kind == FieldKind::Word;
}

// Every field, in PolicyField order.
std::span<const PolicyFieldInfo> policy_fields() noexcept;

const PolicyFieldInfo& info_of(PolicyField field) noexcept;

// Whether `field` is a top-level field of a policy (its own parent).
bool is_top_level(PolicyField field) noexcept;

// "backoff.max", "routes.up_to": the field's path without item indexes.
std::string field_path(PolicyField field);

// "routes[2].up_to", "retry_on[0]": the path of one value, `index` being the item of the list
// field on the path (ignored when there is none).
std::string field_path(PolicyField field, std::size_t index);

}  // namespace rebound
