// Suggestions for a word that is not one of the allowed ones: the closest allowed word ("did you
// mean 'max_attempts'?") or the list of them. Both front ends, the compiler, lint and the CLI
// suggest through these, so a misspelling gets the same hint wherever it is written.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rebound::dsl {

// Words longer than this get no guess: the edit distance is quadratic in length, and so long a
// word is no misspelling.
inline constexpr std::size_t kLongestSuggestedWord = 64;

// The closest candidate within a small edit distance (at most a third of the word's letters), or
// the one candidate that has `word` as a whole `_`-separated part ("attempts" in
// "max_attempts"); empty when none is close or `word` is longer than kLongestSuggestedWord.
std::string closest_match(std::string_view word, const std::vector<std::string_view>& candidates);

// "did you mean 'x'?" when one candidate is close (closest_match), else empty.
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates);
std::string did_you_mean(std::string_view word, std::initializer_list<std::string_view> candidates);

// The words separated by ", ".
std::string join_words(std::span<const std::string_view> words);

// did_you_mean(word, candidates) when a candidate is close, else "expected one of a, b, c".
std::string suggestion_for(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace rebound::dsl
