// Vocabularies: the words a user writes or reads for the values of an enumeration.
//
// Each enumeration whose values appear in files, on the command line or in output (a jitter kind,
// a backoff type, a decision's reason, a breaker's state, ...) has one constexpr table of
// WordRow<Enum>, {value, wire word, help text}, next to the enumeration, and names it through
// `vocabulary(Enum)`:
//
//     inline constexpr WordRow<Color> kColorWords[] = {{Color::Red, "red", "..."}, ...};
//     constexpr std::span<const WordRow<Color>> vocabulary(Color) noexcept { return kColorWords; }
//     static_assert(is_vocabulary(kColorWords));
//
// Everything else derives from that table: to_string, parse_word, the words the front ends
// accept and suggest, the schema's `enum` arrays and the command line's help and checks. The
// functions here are constexpr and allocation-free, so the decision path may use them.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>

namespace rebound {

template <typename Enum>
struct WordRow {
    Enum value;
    std::string_view word;  // as written in files and output
    std::string_view help;  // what the value means, for help texts and the schema
};

// Whether `table` holds each of the values 0..N-1 once, each with a distinct, non-empty word. The
// rows are in the order users read them (messages, help, schema); most follow the enumeration.
template <typename Row, std::size_t N>
constexpr bool is_vocabulary(const Row (&table)[N]) noexcept {
    for (std::size_t i = 0; i < N; ++i) {
        std::size_t holding_i = 0;
        for (std::size_t j = 0; j < N; ++j) {
            holding_i += static_cast<std::size_t>(table[j].value) == i ? 1 : 0;
            if (j != i && table[j].word == table[i].word) {
                return false;
            }
        }
        if (holding_i != 1 || table[i].word.empty()) {
            return false;
        }
    }
    return true;
}

// An enumeration that names its table through `vocabulary(Enum)` (found by argument-dependent
// lookup).
template <typename Enum>
concept Vocabulary = std::is_enum_v<Enum> && requires(Enum value) {
    { vocabulary(value).size() } -> std::convertible_to<std::size_t>;
};

// The table's row of `value`, or nullptr for a value outside the enumeration. One load where the
// table follows the enumeration, a search of its few rows otherwise.
template <Vocabulary Enum>
constexpr const auto* find_row(Enum value) noexcept {
    const auto table = vocabulary(value);
    const auto index = static_cast<std::size_t>(value);
    if (index < table.size() && table[index].value == value) {
        return &table[index];
    }
    for (const auto& row : table) {
        if (row.value == value) {
            return &row;
        }
    }
    return static_cast<decltype(&table[0])>(nullptr);
}

// The value's wire word; empty for a value outside the enumeration.
template <Vocabulary Enum>
constexpr std::string_view to_string(Enum value) noexcept {
    const auto* row = find_row(value);
    return row != nullptr ? row->word : std::string_view{};
}

// The value whose wire word is `word`, or nullopt.
template <Vocabulary Enum>
constexpr std::optional<Enum> parse_word(std::string_view word) noexcept {
    for (const auto& row : vocabulary(Enum{})) {
        if (row.word == word) {
            return row.value;
        }
    }
    return std::nullopt;
}

// Every wire word of the vocabulary, in table order.
template <Vocabulary Enum>
inline constexpr auto kWireWords = [] {
    std::array<std::string_view, vocabulary(Enum{}).size()> words{};
    for (std::size_t i = 0; i < words.size(); ++i) {
        words[i] = vocabulary(Enum{})[i].word;
    }
    return words;
}();

namespace detail {

// Text built at compile time: writes into `out`, or only counts when `out` is null.
struct TextSink {
    char* out = nullptr;
    std::size_t size = 0;

    constexpr void add(std::string_view text) noexcept {
        for (const char c : text) {
            if (out != nullptr) {
                out[size] = c;
            }
            ++size;
        }
    }
};

// "a, b or c", each word as Markdown code when `Code` holds.
template <Vocabulary Enum, bool Code>
struct WordListText {
    constexpr void operator()(TextSink& sink) const noexcept {
        const auto table = vocabulary(Enum{});
        const std::string_view quote = Code ? "`" : "";
        for (std::size_t i = 0; i < table.size(); ++i) {
            sink.add(i == 0 ? "" : i + 1 == table.size() ? " or " : ", ");
            sink.add(quote);
            sink.add(table[i].word);
            sink.add(quote);
        }
    }
};

// "a: help of a; b: help of b".
template <Vocabulary Enum>
struct WordHelpText {
    constexpr void operator()(TextSink& sink) const noexcept {
        const auto table = vocabulary(Enum{});
        for (std::size_t i = 0; i < table.size(); ++i) {
            sink.add(i == 0 ? "" : "; ");
            sink.add(table[i].word);
            sink.add(": ");
            sink.add(table[i].help);
        }
    }
};

template <typename Writer>
inline constexpr auto kStaticText = [] {
    constexpr std::size_t size = [] {  // NOLINT(readability-identifier-naming): a local count
        TextSink count;
        Writer{}(count);
        return count.size;
    }();
    std::array<char, size> text{};
    TextSink sink{text.data()};
    Writer{}(sink);
    return text;
}();

}  // namespace detail

// "fixed, linear, exponential or none": the words as a docs range states them.
template <Vocabulary Enum>
inline constexpr std::string_view kWordList{
    detail::kStaticText<detail::WordListText<Enum, false>>.data(),
    detail::kStaticText<detail::WordListText<Enum, false>>.size()};

// "`fail` or `dead_letter`": the same, each word as Markdown code.
template <Vocabulary Enum>
inline constexpr std::string_view kCodeWordList{
    detail::kStaticText<detail::WordListText<Enum, true>>.data(),
    detail::kStaticText<detail::WordListText<Enum, true>>.size()};

// "max: wait the longer ...; ignore: never use hints": each word with its help.
template <Vocabulary Enum>
inline constexpr std::string_view kWordHelp{detail::kStaticText<detail::WordHelpText<Enum>>.data(),
                                            detail::kStaticText<detail::WordHelpText<Enum>>.size()};

}  // namespace rebound
