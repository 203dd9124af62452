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

// Words of the language, with their candidates for "did you mean".
std::optional<BackoffType> parse_backoff_type(std::string_view word) noexcept;
std::optional<JitterType> parse_jitter_word(
    std::string_view word) noexcept;  // none full equal decorrelated
std::optional<ExhaustedAction> parse_exhausted_action(std::string_view word) noexcept;
const std::vector<std::string_view>& backoff_type_words();
const std::vector<std::string_view>& jitter_words();  // the four plain words
const std::vector<std::string_view>& exhausted_action_words();
std::optional<ServerDelayUse> parse_server_delay_use(std::string_view word) noexcept;
std::optional<OverCapAction> parse_over_cap_action(std::string_view word) noexcept;
const std::vector<std::string_view>& server_delay_use_words();  // max ignore
const std::vector<std::string_view>& over_cap_action_words();   // stop cap ignore
std::optional<HedgeOnFailure> parse_hedge_on_failure(std::string_view word) noexcept;
const std::vector<std::string_view>& hedge_on_failure_words();  // next wait
const std::vector<std::string_view>& category_names();          // every category
const std::vector<std::string_view>& category_words();          // every category and `transient`
const std::vector<std::string_view>& vendor_words();

}  // namespace rebound::dsl
