#include "field_locations.hpp"

#include <algorithm>
#include <array>
#include <optional>

namespace rebound::dsl::detail {
namespace {

using enum PolicyField;

using PositionOf = SourcePosition (*)(const PolicyFields&, std::size_t index);
using Inherit = void (*)(PolicyFields& child, const PolicyFields& base);

struct FieldLocation {
    PolicyField id;
    PositionOf position;
    Inherit inherit;  // top-level fields that a policy takes from its base; null otherwise
};

template <typename Value>
SourcePosition position_of(const std::optional<Value>& value) {
    return value ? value->position : SourcePosition{};
}

// A top-level group: `backoff`, ...
template <auto Member>
SourcePosition value_at(const PolicyFields& f, std::size_t /*index*/) {
    return position_of(f.*Member);
}

// An item of a top-level list: `retry_on[2]`, `routes[1]`.
template <auto List>
SourcePosition item_at(const PolicyFields& f, std::size_t index) {
    const auto& list = f.*List;
    return list && index < list->items.size() ? list->items[index].position : SourcePosition{};
}

// A value inside a top-level mapping: `backoff.max`.
template <auto Node, auto Member>
SourcePosition member_at(const PolicyFields& f, std::size_t /*index*/) {
    const auto& node = f.*Node;
    return node ? position_of((*node).*Member) : SourcePosition{};
}

// A value inside an item of a top-level list: `routes[1].up_to`.
template <auto List, auto Member>
SourcePosition item_member_at(const PolicyFields& f, std::size_t index) {
    const auto& list = f.*List;
    return list && index < list->items.size() ? position_of(list->items[index].*Member)
                                              : SourcePosition{};
}

SourcePosition nowhere(const PolicyFields& /*fields*/, std::size_t /*index*/) {
    return {};
}

template <auto Member>
void take_if_absent(PolicyFields& child, const PolicyFields& base) {
    if (!(child.*Member) && base.*Member) {
        child.*Member = base.*Member;
    }
}

// max_attempts and max_retries state one value: a policy that gives either takes neither.
void take_attempts_if_absent(PolicyFields& child, const PolicyFields& base) {
    if (!child.scalars.contains(MaxAttempts) && !child.scalars.contains(MaxRetries)) {
        for (const PolicyField field : {MaxAttempts, MaxRetries}) {
            if (const auto given = base.scalars.find(field); given != base.scalars.end()) {
                child.scalars.insert(*given);
            }
        }
    }
}

// A top-level scalar value: `deadline`, `on_exhausted`, ...
SourcePosition scalar_at(const PolicyFields& f, PolicyField field) {
    const auto given = f.scalars.find(field);
    return given != f.scalars.end() ? given->second.position : SourcePosition{};
}

template <PolicyField Field>
SourcePosition scalar_position(const PolicyFields& f, std::size_t /*index*/) {
    return scalar_at(f, Field);
}

// A resolved max_attempts may come from max_retries.
SourcePosition attempts_at(const PolicyFields& f, std::size_t /*index*/) {
    const SourcePosition attempts = scalar_at(f, MaxAttempts);
    return attempts.known() ? attempts : scalar_at(f, MaxRetries);
}

template <auto Node>
SourcePosition type_at(const PolicyFields& f, std::size_t /*index*/) {
    const auto& node = f.*Node;
    return node ? node->type.position : SourcePosition{};
}

// A hedge's delay: the fixed duration, or the learned delay's mapping.
SourcePosition hedge_delay_at(const PolicyFields& f, std::size_t /*index*/) {
    if (!f.hedge) {
        return {};
    }
    return f.hedge->delay ? f.hedge->delay->position : f.hedge->learned_position;
}

// A top-level field that a policy inherits whole from its base.
template <auto Member>
constexpr FieldLocation top_level(PolicyField id) {
    return {id, value_at<Member>, take_if_absent<Member>};
}

using F = PolicyFields;

// Every field but the top-level scalars that follow the common rule (scalar_at, inherited when
// absent unless written in a policy only): groups, lists and the values inside them, and the
// scalars with a rule of their own.
constexpr std::array kLocations{
    FieldLocation{Name, nowhere, nullptr},  // the compiler takes the policy's key
    FieldLocation{MaxAttempts, attempts_at, take_attempts_if_absent},
    FieldLocation{MaxRetries, scalar_position<MaxRetries>, nullptr},  // with max_attempts
    top_level<&F::backoff>(Backoff),
    FieldLocation{BackoffType, type_at<&F::backoff>, nullptr},
    FieldLocation{BackoffDelay, member_at<&F::backoff, &BackoffNode::delay>, nullptr},
    FieldLocation{BackoffInitial, member_at<&F::backoff, &BackoffNode::initial>, nullptr},
    FieldLocation{BackoffIncrement, member_at<&F::backoff, &BackoffNode::increment>, nullptr},
    FieldLocation{BackoffMultiplier, member_at<&F::backoff, &BackoffNode::multiplier>, nullptr},
    FieldLocation{BackoffMax, member_at<&F::backoff, &BackoffNode::max>, nullptr},
    top_level<&F::jitter>(Jitter),
    FieldLocation{JitterType, type_at<&F::jitter>, nullptr},
    FieldLocation{JitterAmount, member_at<&F::jitter, &JitterNode::amount>, nullptr},
    FieldLocation{JitterFactor, member_at<&F::jitter, &JitterNode::factor>, nullptr},
    FieldLocation{RetryOn, item_at<&F::retry_on>, take_if_absent<&F::retry_on>},
    FieldLocation{NeverRetryOn, item_at<&F::never_retry_on>, take_if_absent<&F::never_retry_on>},
    FieldLocation{RetryIf, item_at<&F::retry_if>, take_if_absent<&F::retry_if>},
    top_level<&F::budget>(Budget),
    FieldLocation{BudgetMaxTokens, member_at<&F::budget, &BudgetNode::max_tokens>, nullptr},
    FieldLocation{BudgetTokenRatio, member_at<&F::budget, &BudgetNode::token_ratio>, nullptr},
    FieldLocation{Routes, item_at<&F::routes>, take_if_absent<&F::routes>},
    FieldLocation{RouteUpTo, item_member_at<&F::routes, &RouteNode::up_to>, nullptr},
    FieldLocation{RouteTarget, item_member_at<&F::routes, &RouteNode::target>, nullptr},
    top_level<&F::server_delay>(ServerDelay),
    FieldLocation{ServerDelayUse, member_at<&F::server_delay, &ServerDelayNode::use>, nullptr},
    FieldLocation{ServerDelayCap, member_at<&F::server_delay, &ServerDelayNode::cap>, nullptr},
    FieldLocation{ServerDelayOverCap, member_at<&F::server_delay, &ServerDelayNode::over_cap>,
                  nullptr},
    FieldLocation{ServerDelaySpread, member_at<&F::server_delay, &ServerDelayNode::spread>,
                  nullptr},
    top_level<&F::hedge>(Hedge),
    FieldLocation{HedgeDelay, hedge_delay_at, nullptr},
    FieldLocation{HedgeQuantile, member_at<&F::hedge, &HedgeNode::quantile>, nullptr},
    FieldLocation{HedgeMin, member_at<&F::hedge, &HedgeNode::min>, nullptr},
    FieldLocation{HedgeMax, member_at<&F::hedge, &HedgeNode::max>, nullptr},
    FieldLocation{HedgeMaxExtraLoad, member_at<&F::hedge, &HedgeNode::max_extra_load>, nullptr},
    FieldLocation{HedgeBurst, member_at<&F::hedge, &HedgeNode::burst>, nullptr},
    FieldLocation{HedgeOnFailure, member_at<&F::hedge, &HedgeNode::on_failure>, nullptr},
    FieldLocation{HedgeWindow, member_at<&F::hedge, &HedgeNode::window>, nullptr},
    FieldLocation{HedgeWarmup, member_at<&F::hedge, &HedgeNode::warmup>, nullptr},
};

// The row of `field` in kLocations, or null for a scalar that follows the common rule.
const FieldLocation* location_of(PolicyField field) noexcept {
    const auto* found = std::find_if(kLocations.begin(), kLocations.end(),
                                     [field](const FieldLocation& row) { return row.id == field; });
    return found != kLocations.end() ? found : nullptr;
}

SourcePosition own_position(const PolicyFields& fields, PolicyField field, std::size_t index) {
    const FieldLocation* location = location_of(field);
    return location != nullptr ? location->position(fields, index) : scalar_at(fields, field);
}

}  // namespace

SourcePosition position_in(const PolicyFields& fields, PolicyField field, std::size_t index) {
    const SourcePosition own = own_position(fields, field, index);
    if (own.known() || is_top_level(field)) {
        return own;
    }
    return own_position(fields, info_of(field).parent, index);
}

void inherit_absent_fields(PolicyFields& child, const PolicyFields& base) {
    for (const FieldLocation& location : kLocations) {
        if (location.inherit != nullptr) {
            location.inherit(child, base);
        }
    }
    for (const auto& [field, value] : base.scalars) {
        if (location_of(field) == nullptr && info_of(field).place == FieldPlace::PolicyBody) {
            child.scalars.try_emplace(field, value);
        }
    }
}

const PolicyFieldInfo* scalar_field_spelt(std::string_view keyword) noexcept {
    for (const PolicyFieldInfo& info : policy_fields()) {
        if (info.place == FieldPlace::PolicyBody && is_scalar(info.kind) &&
            info.dsl_keyword == keyword) {
            return &info;
        }
    }
    return nullptr;
}
std::optional<std::string_view> word_in(const PolicyFieldInfo& info, std::string_view text) {
    const auto found = std::find(info.words.begin(), info.words.end(), text);
    return found != info.words.end() ? std::optional(*found) : std::nullopt;
}

const std::vector<std::string_view>& policy_keys() {
    static const std::vector<std::string_view> keys = [] {
        std::vector<std::string_view> all;
        for (const PolicyFieldInfo& info : policy_fields()) {
            if (info.place == FieldPlace::PolicyOnly || info.place == FieldPlace::PolicyBody) {
                all.push_back(info.wire_name);
            }
        }
        return all;
    }();
    return keys;
}

std::optional<PolicyField> policy_field_named(std::string_view wire_name) {
    for (const PolicyFieldInfo& info : policy_fields()) {
        if (info.wire_name == wire_name && is_top_level(info.id)) {
            return info.id;
        }
    }
    return std::nullopt;
}

const std::vector<std::string_view>& keys_inside(PolicyField parent) {
    static const std::array<std::vector<std::string_view>, kPolicyFieldCount> keys = [] {
        std::array<std::vector<std::string_view>, kPolicyFieldCount> all;
        for (const PolicyFieldInfo& info : policy_fields()) {
            // "delay.quantile": a key of a mapping inside the parent's (learned_delay_keys).
            if (info.place == FieldPlace::InsideParent &&
                info.wire_name.find('.') == std::string_view::npos) {
                all[static_cast<std::size_t>(info.parent)].push_back(info.wire_name);
            }
        }
        return all;
    }();
    return keys[static_cast<std::size_t>(parent)];
}

const std::vector<std::string_view>& learned_delay_keys() {
    static const std::vector<std::string_view> keys = [] {
        constexpr std::string_view kPrefix = "delay.";
        std::vector<std::string_view> all;
        for (const PolicyFieldInfo& info : policy_fields()) {
            if (info.parent == PolicyField::Hedge && info.wire_name.starts_with(kPrefix)) {
                all.push_back(info.wire_name.substr(kPrefix.size()));
            }
        }
        return all;
    }();
    return keys;
}

}  // namespace rebound::dsl::detail
