// Text helpers shared by the loaders (the YAML and DSL front ends, the vendor-map loader and the
// compiler), so that they read numbers and spell suggestions one way. Private to rebound::dsl.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace rebound::dsl::detail {

// `text` as a finite double, when all of it is one number in std::from_chars' form (no leading
// '+'); nullopt otherwise, with `out_of_range` set when it is a number too large for a double.
std::optional<double> finite_double(std::string_view text, bool& out_of_range) noexcept;

}  // namespace rebound::dsl::detail
