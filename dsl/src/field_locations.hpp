// Where each field of the policy table (rebound/policy_field.hpp) lives in a Document's
// PolicyFields: the position of its value, and how a policy inherits it. Private to rebound::dsl.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "rebound/dsl/document.hpp"
#include "rebound/policy_field.hpp"

namespace rebound::dsl::detail {

// The position of `field`'s own value (of item `index` for a value in a list field), or of the
// field that holds it when the value itself is absent; unknown when neither was written.
SourcePosition position_in(const PolicyFields& fields, PolicyField field, std::size_t index);

// Gives `child` each top-level field it lacks from `base` (compile.hpp's merge_fields).
void inherit_absent_fields(PolicyFields& child, const PolicyFields& base);

// The row of the top-level scalar field written in a policy body whose DSL keyword is `keyword`
// (`attempts`, `deadline`, ...), or null.
const PolicyFieldInfo* scalar_field_spelt(std::string_view keyword) noexcept;

// The word of the Word field `info`'s vocabulary that `text` is, if any.
std::optional<std::string_view> word_in(const PolicyFieldInfo& info, std::string_view text);

// The keys a policy mapping may hold (`extends` included), in the table's order.
const std::vector<std::string_view>& policy_keys();

// The top-level field whose key is `wire_name`, if any.
std::optional<PolicyField> policy_field_named(std::string_view wire_name);

// The keys of the mapping of a Group or GroupList field (backoff, jitter, budget, a route).
const std::vector<std::string_view>& keys_inside(PolicyField parent);

// The keys of a learned hedge delay's mapping (`quantile`, `min`, `max`), from the table's
// `delay.*` rows.
const std::vector<std::string_view>& learned_delay_keys();

}  // namespace rebound::dsl::detail
