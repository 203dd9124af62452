#include "field_locations.hpp"

#include <algorithm>
#include <array>
#include <optional>

namespace rebound::dsl::detail {
namespace {

using PositionOf = SourcePosition (*)(const PolicyFields&, std::size_t index);
using Inherit = void (*)(PolicyFields& child, const PolicyFields& base);

struct FieldLocation {
    PolicyField id;
    PositionOf position;
    Inherit inherit;  // top-level fields that a policy takes from its base; null otherwise
    // A top-level duration field (FieldKind::TimeSpan): its member, and an example value for
    // messages ("expected a duration such as 3s after 'deadline'"). Null and empty otherwise.
    Field<Duration> PolicyFields::*duration = nullptr;
    std::string_view example{};
};

template <typename Value>
SourcePosition position_of(const std::optional<Value>& value) {
    return value ? value->position : SourcePosition{};
}

// A top-level value: `deadline`, `backoff`, ...
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
    if (!child.max_attempts && !child.max_retries) {
        child.max_attempts = base.max_attempts;
        child.max_retries = base.max_retries;
    }
}

// A resolved max_attempts may come from max_retries.
SourcePosition attempts_at(const PolicyFields& f, std::size_t /*index*/) {
    return f.max_attempts ? f.max_attempts->position : position_of(f.max_retries);
}

template <auto Node>
SourcePosition type_at(const PolicyFields& f, std::size_t /*index*/) {
    const auto& node = f.*Node;
    return node ? node->type.position : SourcePosition{};
}

// A top-level field that a policy inherits whole from its base.
template <auto Member>
constexpr FieldLocation top_level(PolicyField id) {
    return {id, value_at<Member>, take_if_absent<Member>};
}

// A top-level duration field: read, written and inherited alike (duration_fields()).
template <auto Member>
constexpr FieldLocation top_level_duration(PolicyField id, std::string_view example) {
    return {id, value_at<Member>, take_if_absent<Member>, Member, example};
}

using F = PolicyFields;
using enum PolicyField;

constexpr std::array kLocations{
    FieldLocation{Name, nowhere, nullptr},  // the compiler takes the policy's key
    FieldLocation{Extends, value_at<&F::extends>, nullptr},
    FieldLocation{MaxAttempts, attempts_at, take_attempts_if_absent},
    FieldLocation{MaxRetries, value_at<&F::max_retries>, nullptr},  // with max_attempts
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
    top_level_duration<&F::deadline>(Deadline, "3s"),
    top_level_duration<&F::min_attempt_budget>(MinAttemptBudget, "100ms"),
    top_level_duration<&F::attempt_timeout>(AttemptTimeout, "1s"),
    FieldLocation{RetryOn, item_at<&F::retry_on>, take_if_absent<&F::retry_on>},
    FieldLocation{NeverRetryOn, item_at<&F::never_retry_on>, take_if_absent<&F::never_retry_on>},
    FieldLocation{RetryIf, item_at<&F::retry_if>, take_if_absent<&F::retry_if>},
    top_level<&F::on_exhausted>(OnExhausted),
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
    top_level<&F::breaker>(Breaker),
};

// One row per PolicyField, in enum order, so that a field's row is at its enum value.
static_assert(
    [] {
        std::size_t i = 0;
        for (const auto& row : kLocations) {
            if (static_cast<std::size_t>(row.id) != i++) {
                return false;
            }
        }
        return i == kPolicyFieldCount;
    }(),
    "kLocations places every PolicyField, in enum order");

// The rows of kLocations that are top-level durations, in table order (checked against the table
// by tests/dsl/field_table_test.cpp).
constexpr auto kDurationFields = [] {
    constexpr std::size_t kCount = static_cast<std::size_t>(
        std::count_if(kLocations.begin(), kLocations.end(),
                      [](const FieldLocation& location) { return location.duration != nullptr; }));
    std::array<DurationField, kCount> fields{};
    std::size_t i = 0;
    for (const FieldLocation& location : kLocations) {
        if (location.duration != nullptr) {
            fields.at(i++) = {location.id, location.duration, location.example};
        }
    }
    return fields;
}();

const FieldLocation& location_of(PolicyField field) noexcept {
    return kLocations[static_cast<std::size_t>(field)];
}

}  // namespace

SourcePosition position_in(const PolicyFields& fields, PolicyField field, std::size_t index) {
    const SourcePosition own = location_of(field).position(fields, index);
    if (own.known() || is_top_level(field)) {
        return own;
    }
    return location_of(info_of(field).parent).position(fields, index);
}

void inherit_absent_fields(PolicyFields& child, const PolicyFields& base) {
    for (const FieldLocation& location : kLocations) {
        if (location.inherit != nullptr) {
            location.inherit(child, base);
        }
    }
}

std::span<const DurationField> duration_fields() noexcept {
    return kDurationFields;
}

const DurationField* duration_field(PolicyField field) noexcept {
    for (const DurationField& duration : kDurationFields) {
        if (duration.id == field) {
            return &duration;
        }
    }
    return nullptr;
}

const DurationField* duration_field_spelt(std::string_view keyword) noexcept {
    for (const DurationField& duration : kDurationFields) {
        if (info_of(duration.id).dsl_keyword == keyword) {
            return &duration;
        }
    }
    return nullptr;
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
            if (info.place == FieldPlace::InsideParent) {
                all[static_cast<std::size_t>(info.parent)].push_back(info.wire_name);
            }
        }
        return all;
    }();
    return keys[static_cast<std::size_t>(parent)];
}

}  // namespace rebound::dsl::detail

namespace rebound::dsl {

const Field<Duration>* duration_in(const PolicyFields& fields, PolicyField field) noexcept {
    const detail::DurationField* duration = detail::duration_field(field);
    return duration != nullptr ? &(fields.*(duration->member)) : nullptr;
}

}  // namespace rebound::dsl
