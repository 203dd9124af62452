#include "text/vocabulary.hpp"

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "field_locations.hpp"
#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/syntax.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"
#include "rebound/error_category.hpp"
#include "rebound/policy_field.hpp"
#include "text/text_helpers.hpp"

namespace rebound::dsl::text {
namespace {

// The keywords that start a matcher other than a category (`sqlstate 40001`, `http 503`).
const std::vector<std::string_view> matcher_keywords{"sqlstate", "native", "error",
                                                     "http",     "grpc",   "message"};

}  // namespace

// The statements of a policy block, spelt as above, from the field table. Two-word statements
// first, so that a tie goes to them ("retries_on" is as far from "retries" as from "retry_on",
// and means the latter).
const std::vector<Spelling>& block_spellings() {
    static const std::vector<std::string> underscored = [] {
        std::vector<std::string> words;
        for (const PolicyFieldInfo& info : policy_fields()) {
            if (info.place == FieldPlace::PolicyBody &&
                info.dsl_keyword.find(' ') != std::string_view::npos) {
                std::string word(info.dsl_keyword);
                std::replace(word.begin(), word.end(), ' ', '_');
                words.push_back(std::move(word));
            }
        }
        return words;
    }();
    static const std::vector<Spelling> spellings = [] {
        std::vector<Spelling> all;
        std::size_t next_underscored = 0;
        for (const PolicyFieldInfo& info : policy_fields()) {
            if (info.place == FieldPlace::PolicyBody &&
                info.dsl_keyword.find(' ') != std::string_view::npos) {
                all.push_back({underscored[next_underscored++], info.dsl_keyword});
            }
        }
        const auto written = [&all](std::string_view word) {
            return std::any_of(all.begin(), all.end(),
                               [word](const Spelling& s) { return s.written == word; });
        };
        for (const PolicyFieldInfo& info : policy_fields()) {
            if (info.place == FieldPlace::PolicyBody && !written(info.wire_name) &&
                info.wire_name != info.dsl_keyword) {
                all.push_back({info.wire_name, info.dsl_keyword});
            }
        }
        for (const PolicyFieldInfo& info : policy_fields()) {
            if (info.place == FieldPlace::PolicyBody &&
                info.dsl_keyword.find(' ') == std::string_view::npos) {
                all.push_back({info.dsl_keyword, info.dsl_keyword});
            }
        }
        return all;
    }();
    return spellings;
}

// "attempts, retries, ..., route, routes none": the statements of a policy block.
const std::string& block_statement_list() {
    static const std::string list = [] {
        std::string all;
        for (const PolicyFieldInfo& info : policy_fields()) {
            if (info.place == FieldPlace::PolicyBody) {
                all += std::string(info.dsl_keyword) + ", ";
            }
        }
        return all + "routes none";
    }();
    return list;
}

std::string scalar_argument_message(PolicyField field) {
    const PolicyFieldInfo& info = info_of(field);
    const std::string keyword = "'" + std::string(info.dsl_keyword) + "'";
    const std::string example(info.example);
    switch (info.kind) {
        case FieldKind::Count:
            return "expected a whole number after " + keyword + ", as in '" +
                   std::string(info.dsl_keyword) + " " + example + "'";
        case FieldKind::Number:
            return "expected a number such as " + example + " after " + keyword;
        case FieldKind::TimeSpan:
            return "expected a duration such as " + example + " after " + keyword;
        case FieldKind::Word: {
            std::string words;
            for (std::size_t i = 0; i < info.words.size(); ++i) {
                words += (i == 0 ? "" : i + 1 == info.words.size() ? " or " : ", ");
                words += info.words[i];
            }
            return "expected " + words + " after " + keyword;
        }
        default:  // Name, Text: the example says what the value is
            return "expected " + example + " after " + keyword;
    }
}

std::string statement_suggestion(std::string_view word, std::span<const Spelling> spellings) {
    if (word.ends_with(':')) {
        word.remove_suffix(1);  // YAML habit: `max_attempts: 3`
    }
    std::vector<std::string_view> written;
    for (const Spelling& spelling : spellings) {
        written.push_back(spelling.written);
    }
    const std::string close = closest_match(word, written);
    for (const Spelling& spelling : spellings) {
        if (spelling.written == close) {
            return "did you mean '" + std::string(spelling.meant) + "'?";
        }
    }
    return {};
}

// Every category, `transient`, and the matcher keywords (`sqlstat` is a misspelled keyword).
const std::vector<std::string_view>& matcher_words() {
    static const std::vector<std::string_view> words = [] {
        std::vector<std::string_view> all = category_words();
        all.insert(all.end(), matcher_keywords.begin(), matcher_keywords.end());
        return all;
    }();
    return words;
}

// Whether the line's code (before any comment) ends with '{': it opens a block.
bool opens_block(std::string_view line) {
    const std::string_view code = line.substr(0, line.find('#'));
    const std::size_t last = code.find_last_not_of(" \t");
    return last != std::string_view::npos && code[last] == '{';
}

// For a `retry on` / `never on` line that did not parse: "did you mean 'sqlstate'?" when an
// item that is no category is close to a matcher keyword (`sqlstat 40001` fails at `40001`).
std::string misspelt_matcher_keyword(const LineParts& parts) {
    if (parts.statement != Statement::RetryOn && parts.statement != Statement::NeverOn) {
        return {};
    }
    for (const Token& token : parts.tokens) {
        if (token.role != Role::Category || token.text == kTransientGroupName ||
            parse_category(token.text)) {
            continue;
        }
        std::string suggestion = did_you_mean(token.text, matcher_keywords);
        if (!suggestion.empty()) {
            return suggestion;
        }
    }
    return {};
}
}  // namespace rebound::dsl::text
