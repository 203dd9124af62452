// The three syntaxes of a service file and the shared readers of their values.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/backoff.hpp"
#include "rebound/duration.hpp"
#include "rebound/jitter.hpp"
#include "rebound/policy_spec.hpp"
#include "rebound/vocabulary.hpp"

namespace rebound::dsl {

enum class Syntax { Yaml, Json, Text };

std::string_view to_string(Syntax s) noexcept;

// By file extension: .yaml .yml -> Yaml, .json -> Json, .rebound -> Text; otherwise nullopt.
std::optional<Syntax> syntax_for_path(std::string_view path) noexcept;

// A duration written with a unit: `250us`, `50ms`, `1.5s`, `2m`, `1h` (no space, no sign).
// Returns the duration, or nullopt with `error` set to a sentence such as
// "expected a duration such as 250ms, got '5 seconds'". Values above 30 days are returned as
// they are (the validator reports them) unless they overflow, which is an error here.
std::optional<Duration> parse_duration(std::string_view text, std::string& error);

// The words of a vocabulary (rebound/vocabulary.hpp: the backoff types, jitter kinds, actions,
// ...), in its table's order, for messages and "did you mean"; parse_word<Enum> reads one.
template <Vocabulary Enum>
const std::vector<std::string_view>& words_of() {
    static const std::vector<std::string_view> words(kWireWords<Enum>.begin(),
                                                     kWireWords<Enum>.end());
    return words;
}

// The jitter kinds written as a word alone (is_bare_word: none, full, equal, decorrelated).
std::optional<JitterType> parse_bare_jitter_word(std::string_view word) noexcept;
const std::vector<std::string_view>& bare_jitter_words();

const std::vector<std::string_view>& category_names();  // every category
const std::vector<std::string_view>& category_words();  // every category and `transient`
const std::vector<std::string_view>& vendor_words();

}  // namespace rebound::dsl
