// How the policy language spells a value: the emitters (emit.hpp) and `rebound explain` both
// spell through these, so every output of the project writes one policy the same way.
#pragma once

#include <string>

#include "rebound/duration.hpp"
#include "rebound/matcher.hpp"

namespace rebound::dsl {

// "50ms", "1500ms", "2m", "250us": the largest unit that keeps the value exact, always with a
// unit.
std::string duration_spelling(Duration d);

// The shortest decimal (fixed notation, no exponent) that reads back as exactly `value`:
// 2 -> "2", 0.1 -> "0.1", 1.1 -> "1.1".
std::string number_spelling(double value);

// `fraction` as a percentage without the '%': 0.2 -> "20", 0.07 -> "7", 0.025 -> "2.5" (exact,
// with no binary rounding of a product).
std::string percent_spelling(double fraction);

// A matcher as the DSL writes it in `retry on` and `never on`: `deadlock`, `sqlstate 40001`,
// `sqlstate class 08`, `native postgresql 40001`, `http 5xx`, `message "text"`.
std::string matcher_spelling(const Matcher& matcher);

}  // namespace rebound::dsl
