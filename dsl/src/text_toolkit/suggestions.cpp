#include "rebound/dsl/text_toolkit/suggestions.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rebound::dsl {
namespace {

// Levenshtein distance, for did-you-mean hints on short words.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] =
                std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// The one candidate that has `word` as a whole `_`-separated part ("attempts" in
// "max_attempts"), or empty when none or several do: users often write the short form.
std::string word_part_match(std::string_view word,
                            const std::vector<std::string_view>& candidates) {
    constexpr std::size_t kShortestPart = 4;
    if (word.size() < kShortestPart) {
        return {};
    }
    std::string_view found;
    for (const std::string_view candidate : candidates) {
        if (candidate.size() <= word.size()) {
            continue;
        }
        const bool is_suffix =
            candidate.ends_with(word) && candidate[candidate.size() - word.size() - 1] == '_';
        const bool is_prefix = candidate.starts_with(word) && candidate[word.size()] == '_';
        if (is_suffix || is_prefix) {
            if (!found.empty()) {
                return {};
            }
            found = candidate;
        }
    }
    return std::string(found);
}

}  // namespace

std::string closest_match(std::string_view word, const std::vector<std::string_view>& candidates) {
    if (word.size() > kLongestSuggestedWord) {
        return {};
    }
    std::string_view best;
    std::size_t best_distance = 0;
    for (const std::string_view candidate : candidates) {
        const std::size_t distance = edit_distance(word, candidate);
        if (best.empty() || distance < best_distance) {
            best = candidate;
            best_distance = distance;
        }
    }
    // Close means: at most a third of the word's letters differ (and at least one may).
    const std::size_t allowed = std::max<std::size_t>(1, word.size() / 3);
    if (best.empty() || best_distance > allowed) {
        return word_part_match(word, candidates);
    }
    return std::string(best);
}

std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates) {
    const std::string close =
        closest_match(word, std::vector<std::string_view>(candidates.begin(), candidates.end()));
    return close.empty() ? std::string{} : "did you mean '" + close + "'?";
}

std::string did_you_mean(std::string_view word,
                         std::initializer_list<std::string_view> candidates) {
    return did_you_mean(word,
                        std::span<const std::string_view>(candidates.begin(), candidates.size()));
}

std::string join_words(std::span<const std::string_view> words) {
    std::string joined;
    for (const std::string_view word : words) {
        if (!joined.empty()) {
            joined += ", ";
        }
        joined += word;
    }
    return joined;
}

std::string suggestion_for(std::string_view word, std::span<const std::string_view> candidates) {
    std::string suggestion = did_you_mean(word, candidates);
    return suggestion.empty() ? "expected one of " + join_words(candidates) : suggestion;
}

}  // namespace rebound::dsl
