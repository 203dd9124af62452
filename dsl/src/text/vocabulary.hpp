// Words of the text DSL, for messages and did-you-mean: the statements as users misspell them,
// the lists of statements named in messages, the words of a matcher. Private to rebound::dsl.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rebound/policy_field.hpp"
#include "text/line_parts.hpp"

namespace rebound::dsl::text {

// A statement as users may misspell it: with '_' for the space of two-word statements, or as
// its YAML key.
struct Spelling {
    std::string_view written;
    std::string_view meant;
};

// The statements of a policy block, spelt as above, from the field table. Two-word statements
// first, so that a tie goes to them ("retries_on" is as far from "retries" as from "retry_on",
// and means the latter).
const std::vector<Spelling>& block_spellings();

inline constexpr Spelling kTopLevelSpellings[] = {
    {"policies", "policy"}, {"handlers", "handler"},  {"rebound", "rebound"},
    {"service", "service"}, {"defaults", "defaults"}, {"policy", "policy"},
    {"handler", "handler"}, {"default", "default"},   {"breakers", "breaker"},
    {"breaker", "breaker"},
};

// "attempts, retries, ..., route, routes none": the statements of a policy block.
const std::string& block_statement_list();

inline constexpr std::string_view kTopLevelStatementList =
    "rebound, service, defaults, breaker, policy, handler, default";

// "expected a duration such as 3s after 'deadline'": the message for a scalar field's statement
// whose argument is missing or broken, from the field table.
std::string scalar_argument_message(PolicyField field);

// "did you mean 'policy'?" when `word` is close to one of `spellings`, else empty.
std::string statement_suggestion(std::string_view word, std::span<const Spelling> spellings);

// Every category, `transient`, and the matcher keywords (`sqlstat` is a misspelled keyword).
const std::vector<std::string_view>& matcher_words();

// Whether the line's code (before any comment) ends with '{': it opens a block.
bool opens_block(std::string_view line);

// For a `retry on` / `never on` line that did not parse: "did you mean 'sqlstate'?" when an
// item that is no category is close to a matcher keyword (`sqlstat 40001` fails at `40001`).
std::string misspelt_matcher_keyword(const LineParts& parts);

}  // namespace rebound::dsl::text
