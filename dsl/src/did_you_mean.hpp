// "did you mean 'x'?": the one spelling of a suggestion, for every loader. Private to rebound::dsl.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace rebound::dsl::detail {

// "did you mean 'x'?" when one of `candidates` is close to `word` (closest_match), else empty.
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace rebound::dsl::detail
