// The scalar forms of the YAML 1.2 core schema that the policy format reads (yaml-cpp resolves
// none itself). Private to rebound::dsl.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rebound::dsl::yaml {

bool is_digit(char c) noexcept;

// YAML 1.2 core schema integer (decimal form): [-+]?[0-9]+
bool looks_like_integer(std::string_view text) noexcept;

// YAML 1.2 core schema float, finite forms: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool looks_like_float(std::string_view text) noexcept;

// YAML 1.2 core schema infinities and NaN.
bool looks_like_non_finite(std::string_view text) noexcept;

enum class IntegerStatus { Ok, NotInteger, TooLarge };

struct ParsedInteger {
    IntegerStatus status = IntegerStatus::NotInteger;
    std::int64_t value = 0;
};

// A decimal integer, optionally negative (a leading + is refused), with overflow detection.
ParsedInteger parse_integer(std::string_view text) noexcept;

// A finite YAML number (integer or float form); nullopt with `out_of_range` set when it does not
// fit a double.
std::optional<double> parse_finite_number(std::string_view text, bool& out_of_range) noexcept;

}  // namespace rebound::dsl::yaml
