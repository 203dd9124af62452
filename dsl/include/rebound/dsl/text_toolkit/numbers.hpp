// Numbers as the policy languages write them: integers, decimals and percentages. Both front ends
// and the vendor-map loader read numbers through these, so `0.2` and `20%` mean one value in every
// syntax.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rebound::dsl {

// `text` as a finite double, when all of it is one number in std::from_chars' form (no leading
// '+'); nullopt otherwise, with `out_of_range` set when it is a number too large for a double.
std::optional<double> finite_double(std::string_view text, bool& out_of_range) noexcept;

// [-]digits
bool is_integer_text(std::string_view text) noexcept;

// [-]digits[.digits]
bool is_decimal_text(std::string_view text) noexcept;

// A decimal as a double, or nullopt when it does not fit (`out_of_range`) or is no decimal.
std::optional<double> decimal_value(std::string_view text, bool& out_of_range);

// The decimal `text` (a percentage) divided by 100, by moving its point two places left, so that
// 20 reads as exactly the double nearest 0.2 (and 2.5 as that nearest 0.025), like YAML's
// `factor: 0.2`. Precondition: is_decimal_text(text).
std::string percent_as_fraction(std::string_view text);

}  // namespace rebound::dsl
