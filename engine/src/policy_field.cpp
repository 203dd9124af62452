#include "rebound/policy_field.hpp"

#include <algorithm>
#include <array>
#include <type_traits>

#include "rebound/policy_spec.hpp"

namespace rebound {
namespace {

// The PolicySpec member of a top-level duration field (std::optional<Duration> or Duration).
template <auto Member, bool Positive>
constexpr SpecPlace duration_member() {
    SpecPlace place{};
    place.duration =
        SpecDuration{[](const PolicySpec& spec) -> std::optional<Duration> { return spec.*Member; },
                     [](PolicySpec& spec, Duration value) { spec.*Member = value; }, Positive};
    return place;
}

// The PolicySpec member (an int) of a top-level count field.
template <auto Member>
constexpr SpecPlace count_member() {
    SpecPlace place{};
    place.count = SpecCount{
        [](const PolicySpec& spec) -> std::int64_t { return spec.*Member; },
        [](PolicySpec& spec, std::int64_t value) { spec.*Member = static_cast<int>(value); }};
    return place;
}

// The PolicySpec member (a std::string) of a top-level name or text field.
template <auto Member>
constexpr SpecPlace text_member() {
    SpecPlace place{};
    place.text = SpecText{
        [](const PolicySpec& spec) -> std::string_view { return spec.*Member; },
        [](PolicySpec& spec, std::string_view value) { spec.*Member = std::string(value); }};
    return place;
}

// The PolicySpec member (an enumeration with a vocabulary, rebound/vocabulary.hpp) of a top-level
// word field. Precondition of the setter: the value is one of the vocabulary's words (the front
// ends check it against the row's `words` before it is set).
template <auto Member>
constexpr SpecPlace word_member() {
    SpecPlace place{};
    place.text =
        SpecText{[](const PolicySpec& spec) -> std::string_view { return to_string(spec.*Member); },
                 [](PolicySpec& spec, std::string_view value) {
                     using Enum = std::remove_reference_t<decltype(spec.*Member)>;
                     spec.*Member = parse_word<Enum>(value).value_or(Enum{});
                 }};
    return place;
}

// max_retries has no member of its own: it is max_attempts counted without the first attempt.
constexpr SpecPlace retries_in_attempts() {
    SpecPlace place{};
    place.count =
        SpecCount{[](const PolicySpec& spec) -> std::int64_t { return spec.max_attempts - 1; },
                  [](PolicySpec& spec, std::int64_t value) {
                      spec.max_attempts = static_cast<int>(value) + 1;
                  }};
    return place;
}

constexpr bool kPositive = true;

using enum PolicyField;
using enum FieldPlace;

// The policy language's fields (docs/policy-format.md, "Policy fields"). Each top-level row is
// followed by the rows of the fields inside it; the order is the canonical order of the key lists
// and of the docs. The texts of the top-level rows are those of docs/policy-format.md's field
// table, which a test checks against them.
constexpr std::array kFields{
    PolicyFieldInfo{Name, Name, "name", "", FieldKind::Name, NotWritten, 0, 0,
                    "[A-Za-z_][A-Za-z0-9_.-]*", "", "the policy's name"},
    PolicyFieldInfo{Extends, Extends, "extends", "extends", FieldKind::Name, PolicyOnly, 0, 0,
                    "name of a policy of the same file", "none",
                    "start from that policy's resolved fields; cycles are errors", "a policy name"},
    PolicyFieldInfo{MaxAttempts, MaxAttempts, "max_attempts", "attempts", FieldKind::Count,
                    PolicyBody, 1, 1000, "count 1..1000", "3",
                    "total attempts, the first one included", "3",
                    count_member<&PolicySpec::max_attempts>()},
    PolicyFieldInfo{MaxRetries, MaxRetries, "max_retries", "retries", FieldKind::Count, PolicyBody,
                    0, 999, "count 0..999", "",
                    "the same setting counted without the first attempt: `max_attempts = "
                    "max_retries + 1`. Give one of the two, never both in one policy",
                    "2", retries_in_attempts()},
    PolicyFieldInfo{Backoff, Backoff, "backoff", "backoff", FieldKind::Group, PolicyBody, 0, 0,
                    "see [Backoff](#backoff)", "exponential, initial 100ms, x2, max 30s",
                    "base delay before each retry"},
    PolicyFieldInfo{BackoffType, Backoff, "type", "", FieldKind::Word, InsideParent, 0, 0,
                    kWordList<rebound::BackoffType>, "exponential", "the backoff's shape"},
    PolicyFieldInfo{BackoffDelay, Backoff, "delay", "", FieldKind::TimeSpan, InsideParent, 0, 0,
                    "duration", "", "the delay of fixed backoff"},
    PolicyFieldInfo{BackoffInitial, Backoff, "initial", "", FieldKind::TimeSpan, InsideParent, 0, 0,
                    "duration", "100ms", "the first delay of linear and exponential backoff"},
    PolicyFieldInfo{BackoffIncrement, Backoff, "increment", "", FieldKind::TimeSpan, InsideParent,
                    0, 0, "duration", "", "what linear backoff adds per retry"},
    PolicyFieldInfo{BackoffMultiplier,
                    Backoff,
                    "multiplier",
                    "",
                    FieldKind::Number,
                    InsideParent,
                    0,
                    0,
                    "> 1.0 and <= 100",
                    "2.0",
                    "what exponential backoff multiplies the delay by per retry",
                    "",
                    {},
                    {1.0, 100, true}},
    PolicyFieldInfo{BackoffMax, Backoff, "max", "", FieldKind::TimeSpan, InsideParent, 0, 0,
                    "duration, not below initial", "30s",
                    "the longest delay of linear and exponential backoff"},
    PolicyFieldInfo{Jitter, Jitter, "jitter", "jitter", FieldKind::Group, PolicyBody, 0, 0,
                    "see [Jitter](#jitter)", "`full`", "randomisation of the base delay"},
    PolicyFieldInfo{JitterType, Jitter, "type", "", FieldKind::Word, InsideParent, 0, 0,
                    kWordList<rebound::JitterType>, "full", "the jitter's kind"},
    PolicyFieldInfo{JitterAmount, Jitter, "amount", "", FieldKind::TimeSpan, InsideParent, 0, 0,
                    "duration", "", "the bound of bounded jitter"},
    PolicyFieldInfo{JitterFactor,
                    Jitter,
                    "factor",
                    "",
                    FieldKind::Number,
                    InsideParent,
                    0,
                    0,
                    "0 < factor <= 1",
                    "",
                    "the share of proportional jitter",
                    "",
                    {},
                    {0, 1, true}},
    PolicyFieldInfo{Deadline, Deadline, "deadline", "deadline", FieldKind::TimeSpan, PolicyBody, 0,
                    0, "duration > 0", "none",
                    "total time budget, measured from the start of the first attempt", "3s",
                    duration_member<&PolicySpec::deadline, kPositive>()},
    PolicyFieldInfo{
        MinAttemptBudget, MinAttemptBudget, "min_attempt_budget", "min_attempt_budget",
        FieldKind::TimeSpan, PolicyBody, 0, 0, "duration", "0",
        "never start a retry unless at least this much of the deadline is left after the wait",
        "100ms", duration_member<&PolicySpec::min_attempt_budget, !kPositive>()},
    PolicyFieldInfo{AttemptTimeout, AttemptTimeout, "attempt_timeout", "attempt_timeout",
                    FieldKind::TimeSpan, PolicyBody, 0, 0, "duration > 0", "none",
                    "per-attempt time limit handed to the work (the ODBC adapter sets the query "
                    "timeout from it)",
                    "1s", duration_member<&PolicySpec::attempt_timeout, kPositive>()},
    PolicyFieldInfo{RetryOn, RetryOn, "retry_on", "retry on", FieldKind::MatcherList, PolicyBody, 0,
                    0, "list of [matchers](#matchers)", "empty", "include rules"},
    PolicyFieldInfo{NeverRetryOn, NeverRetryOn, "never_retry_on", "never on",
                    FieldKind::MatcherList, PolicyBody, 0, 0, "list of matchers", "empty",
                    "exclude rules; they win over everything"},
    PolicyFieldInfo{RetryIf, RetryIf, "retry_if", "retry if", FieldKind::NameList, PolicyBody, 0, 0,
                    "list of predicate names", "empty",
                    "predicates registered in code; an unknown name is an error at load time when "
                    "a registry is given, a warning in lint"},
    PolicyFieldInfo{
        OnExhausted,
        OnExhausted,
        "on_exhausted",
        "on exhausted",
        FieldKind::Word,
        PolicyBody,
        0,
        0,
        kCodeWordList<ExhaustedAction>,
        "`fail`",
        "`dead_letter` hands the work item and last error to the registered dead-letter sink",
        "on_exhausted action",
        word_member<&PolicySpec::on_exhausted>(),
        {},
        kWireWords<ExhaustedAction>},
    PolicyFieldInfo{Budget, Budget, "budget", "budget", FieldKind::Group, PolicyBody, 0, 0,
                    "`{ max_tokens: 1..100000, token_ratio: 0.001..1000 }`, both required; "
                    "`token_ratio` has at most 3 decimals",
                    "none", "retry throttling shared by every use of this policy in one process"},
    PolicyFieldInfo{BudgetMaxTokens, Budget, "max_tokens", "tokens", FieldKind::Count, InsideParent,
                    1, 100000, "count 1..100000", "", "the size of the token bucket"},
    PolicyFieldInfo{BudgetTokenRatio,
                    Budget,
                    "token_ratio",
                    "ratio",
                    FieldKind::Number,
                    InsideParent,
                    0,
                    0,
                    "0.001..1000, at most 3 decimals",
                    "",
                    "the tokens a success puts back",
                    "",
                    {},
                    {0.001, 1000}},
    PolicyFieldInfo{
        Routes, Routes, "routes", "route", FieldKind::GroupList, PolicyBody, 0, 0,
        "list of `{ up_to: duration, target: name }`, `up_to` strictly increasing", "none",
        "for asynchronous consumers: the decision names the first route whose `up_to` >= the "
        "delay, or the last route"},
    PolicyFieldInfo{RouteUpTo, Routes, "up_to", "up to", FieldKind::TimeSpan, InsideParent, 0, 0,
                    "duration", "", "the longest delay the route takes"},
    PolicyFieldInfo{RouteTarget, Routes, "target", "", FieldKind::Text, InsideParent, 0, 0,
                    "name ([A-Za-z_][A-Za-z0-9_.-]*)", "", "where the route sends the retry"},
    PolicyFieldInfo{ServerDelay, ServerDelay, "server_delay", "server delay", FieldKind::Group,
                    PolicyBody, 0, 0, "`{ use, cap, over_cap, spread }`",
                    "use max, cap 5m, over_cap stop, spread 0",
                    "how server delay hints are used (docs/resilience.md)"},
    PolicyFieldInfo{ServerDelayUse, ServerDelay, "use", "", FieldKind::Word, InsideParent, 0, 0,
                    kWordList<rebound::ServerDelayUse>, "max", kWordHelp<rebound::ServerDelayUse>},
    PolicyFieldInfo{ServerDelayCap, ServerDelay, "cap", "cap", FieldKind::TimeSpan, InsideParent, 0,
                    0, "duration > 0", "5m", "a hint above the cap is handled by over_cap"},
    PolicyFieldInfo{ServerDelayOverCap, ServerDelay, "over_cap", "over cap", FieldKind::Word,
                    InsideParent, 0, 0, kWordList<OverCapAction>, "stop", kWordHelp<OverCapAction>},
    PolicyFieldInfo{ServerDelaySpread,
                    ServerDelay,
                    "spread",
                    "spread",
                    FieldKind::Number,
                    InsideParent,
                    0,
                    0,
                    "0..1",
                    "0",
                    "the hint h becomes a uniform draw in [h, h * (1 + spread)]",
                    "",
                    {},
                    {0, 1}},
    PolicyFieldInfo{Breaker, Breaker, "breaker", "breaker", FieldKind::Name, PolicyBody, 0, 0,
                    "name of a breaker declared under `breakers:`", "none",
                    "the circuit breaker guarding this policy's calls", "a breaker name",
                    text_member<&PolicySpec::breaker>()},
    PolicyFieldInfo{Hedge, Hedge, "hedge", "hedge", FieldKind::Group, PolicyBody, 0, 0,
                    "see [Hedging](#hedging); not with backoff, jitter, routes or "
                    "min_attempt_budget",
                    "none",
                    "hedged attempts: more copies of an idempotent call while the first is slow "
                    "(docs/hedging.md)"},
    PolicyFieldInfo{HedgeDelay, Hedge, "delay", "after", FieldKind::TimeSpan, InsideParent, 0, 0,
                    "duration > 0, or `{ quantile, min, max }`", "",
                    "fixed: hedge k starts k * delay after the first attempt; learned: a quantile "
                    "of the handler's latencies"},
    PolicyFieldInfo{HedgeQuantile,
                    Hedge,
                    "delay.quantile",
                    "",
                    FieldKind::Number,
                    InsideParent,
                    0,
                    0,
                    "a percentage in (0%, 100%) or a number in (0, 1)",
                    "",
                    "the quantile of the latencies of the last window",
                    "",
                    {},
                    {0, 1, true}},
    PolicyFieldInfo{HedgeMin, Hedge, "delay.min", "", FieldKind::TimeSpan, InsideParent, 0, 0,
                    "duration", "0", "the shortest learned delay"},
    PolicyFieldInfo{HedgeMax, Hedge, "delay.max", "", FieldKind::TimeSpan, InsideParent, 0, 0,
                    "duration > min, required", "", "the longest learned delay"},
    PolicyFieldInfo{HedgeMaxExtraLoad,
                    Hedge,
                    "max_extra_load",
                    "extra",
                    FieldKind::Number,
                    InsideParent,
                    0,
                    0,
                    "(0%, 100%]",
                    "5%",
                    "the hedge tokens a run earns: hedges add at most this share of load",
                    "",
                    {},
                    {0, 1, true}},
    PolicyFieldInfo{HedgeBurst, Hedge, "burst", "burst", FieldKind::Count, InsideParent, 1, 1000,
                    "count 1..1000", "10", "hedge tokens at the start and at most"},
    PolicyFieldInfo{HedgeOnFailure, Hedge, "on_failure", "on failure", FieldKind::Word,
                    InsideParent, 0, 0, kWordList<rebound::HedgeOnFailure>, "next",
                    kWordHelp<rebound::HedgeOnFailure>},
    PolicyFieldInfo{HedgeWindow, Hedge, "window", "window", FieldKind::TimeSpan, InsideParent, 0, 0,
                    "1s..1h, learned delays only", "30s",
                    "the latencies a learned delay is taken from"},
    PolicyFieldInfo{HedgeWarmup, Hedge, "warmup", "warmup", FieldKind::Count, InsideParent, 1,
                    100000, "count 1..100000, learned delays only", "100",
                    "no timed hedge until the window holds this many latencies"},
};

// One row per PolicyField, in enum order, so that a field's row is at its enum value.
static_assert(
    [] {
        std::size_t i = 0;
        for (const auto& row : kFields) {
            if (static_cast<std::size_t>(row.id) != i++) {
                return false;
            }
        }
        return i == kPolicyFieldCount;
    }(),
    "kFields lists every PolicyField in enum order");

// Every top-level scalar field that a PolicySpec holds says where, through the accessors of its
// kind (extends, written in a policy only, is consumed by resolution), and a top-level duration
// field is validated as positive exactly when its documented range says so.
static_assert(
    [] {
        for (const auto& row : kFields) {
            const bool in_spec = row.place == PolicyBody && is_scalar(row.kind);
            const SpecPlace& place = row.in_spec;
            const bool duration = place.duration.get != nullptr && place.duration.set != nullptr;
            const bool count = place.count.get != nullptr && place.count.set != nullptr;
            const bool number = place.number.get != nullptr && place.number.set != nullptr;
            const bool text = place.text.get != nullptr && place.text.set != nullptr;
            if (duration != (in_spec && row.kind == FieldKind::TimeSpan) ||
                count != (in_spec && row.kind == FieldKind::Count) ||
                number != (in_spec && row.kind == FieldKind::Number) ||
                text != (in_spec && (row.kind == FieldKind::Name || row.kind == FieldKind::Text ||
                                     row.kind == FieldKind::Word))) {
                return false;
            }
            if (duration && place.duration.positive != (row.range == "duration > 0")) {
                return false;
            }
            if (row.place != NotWritten && row.parent == row.id && is_scalar(row.kind) &&
                row.example.empty()) {
                return false;
            }
            if ((row.kind == FieldKind::Word && row.place == PolicyBody) != !row.words.empty()) {
                return false;
            }
            if (row.kind == FieldKind::Number && !(row.bounds.min < row.bounds.max)) {
                return false;
            }
        }
        return true;
    }(),
    "kFields places every top-level scalar field in PolicySpec, with its documented range");

bool is_list(PolicyField field) noexcept {
    const FieldKind kind = kFields[static_cast<std::size_t>(field)].kind;
    return kind == FieldKind::MatcherList || kind == FieldKind::NameList ||
           kind == FieldKind::GroupList;
}

}  // namespace

std::span<const PolicyFieldInfo> policy_fields() noexcept {
    return kFields;
}

const PolicyFieldInfo& info_of(PolicyField field) noexcept {
    return kFields[static_cast<std::size_t>(field)];
}

bool is_top_level(PolicyField field) noexcept {
    return info_of(field).parent == field;
}

std::string field_path(PolicyField field) {
    const PolicyFieldInfo& info = info_of(field);
    if (is_top_level(field)) {
        return std::string(info.wire_name);
    }
    return std::string(info_of(info.parent).wire_name) + "." + std::string(info.wire_name);
}

std::string field_path(PolicyField field, std::size_t index) {
    const PolicyFieldInfo& info = info_of(field);
    std::string path(info_of(info.parent).wire_name);
    if (is_list(info.parent)) {
        path += "[" + std::to_string(index) + "]";
    }
    if (!is_top_level(field)) {
        path += "." + std::string(info.wire_name);
    }
    return path;
}

}  // namespace rebound
