#include "rebound/dsl/syntax.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>

#include "rebound/error_category.hpp"
#include "rebound/vendor.hpp"

namespace rebound::dsl {
namespace {

struct DurationUnit {
    std::string_view suffix;
    std::int64_t micros;
};

// Longest suffixes first so that "ms" is not read as "m" followed by garbage.
constexpr DurationUnit kDurationUnits[] = {
    {"us", 1}, {"ms", 1000}, {"s", 1000000}, {"m", 60000000}, {"h", 3600000000},
};

// Durations larger than this are rejected here (the validator's limit is 30 days; this keeps
// arithmetic on the parsed value far from overflow).
constexpr double kLargestParsedMicros = 1e15;

bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}

// True when `word` is one of the duration units (us, ms, s, m, h).
bool is_duration_unit(std::string_view word) noexcept {
    return std::any_of(std::begin(kDurationUnits), std::end(kDurationUnits),
                       [&](const DurationUnit& unit) { return unit.suffix == word; });
}

}  // namespace

std::string_view to_string(Syntax s) noexcept {
    switch (s) {
        case Syntax::Yaml:
            return "yaml";
        case Syntax::Json:
            return "json";
        case Syntax::Text:
            break;
    }
    return "dsl";
}

std::optional<Syntax> syntax_for_path(std::string_view path) noexcept {
    if (path.ends_with(".yaml") || path.ends_with(".yml")) {
        return Syntax::Yaml;
    }
    if (path.ends_with(".json")) {
        return Syntax::Json;
    }
    if (path.ends_with(".rebound")) {
        return Syntax::Text;
    }
    return std::nullopt;
}

std::optional<Duration> parse_duration(std::string_view text, std::string& error) {
    const auto fail = [&](std::string why) -> std::optional<Duration> {
        error = std::move(why);
        return std::nullopt;
    };
    const std::string quoted = "'" + std::string(text) + "'";
    if (text.empty()) {
        return fail("expected a duration such as 250ms, got an empty value");
    }
    if (text.front() == '-') {
        return fail("durations must not be negative, got " + quoted);
    }
    std::size_t digits_end = 0;
    while (digits_end < text.size() && (is_digit(text[digits_end]) || text[digits_end] == '.')) {
        ++digits_end;
    }
    const std::string_view number = text.substr(0, digits_end);
    const std::string_view unit = text.substr(digits_end);
    const bool well_formed_number = !number.empty() && is_digit(number.front()) &&
                                    is_digit(number.back()) &&
                                    number.find('.') == number.rfind('.');
    if (!well_formed_number) {
        return fail("expected a duration such as 250ms, got " + quoted);
    }
    const bool unit_is_word =
        std::all_of(unit.begin(), unit.end(), [](char c) { return c >= 'a' && c <= 'z'; });
    const std::size_t unit_start = unit.find_first_not_of(" \t");
    if (!unit_is_word && unit_start != 0 && unit_start != std::string_view::npos &&
        is_duration_unit(unit.substr(unit_start))) {
        return fail("a duration has no space before its unit: write " + std::string(number) +
                    std::string(unit.substr(unit_start)) + ", not " + quoted);
    }
    if (!unit_is_word) {
        return fail("expected a duration such as 250ms, got " + quoted);
    }
    if (unit.empty()) {
        return fail("duration " + quoted + " needs a unit: us, ms, s, m or h (such as " +
                    std::string(number) + "ms)");
    }
    const DurationUnit* found = nullptr;
    for (const DurationUnit& candidate : kDurationUnits) {
        if (candidate.suffix == unit) {
            found = &candidate;
        }
    }
    if (found == nullptr) {
        return fail("unknown duration unit in " + quoted + ": use us, ms, s, m or h");
    }
    // Whole part and fraction are read separately so that 0.1s is exactly 100000us.
    const auto dot = number.find('.');
    const std::string_view whole = number.substr(0, dot);
    const std::string_view fraction = dot == std::string_view::npos ? "" : number.substr(dot + 1);
    if (whole.size() > 15) {
        return fail("duration " + quoted + " is too large (the limit is 30 days)");
    }
    std::int64_t whole_value = 0;
    for (const char c : whole) {
        whole_value = whole_value * 10 + (c - '0');
    }
    if (static_cast<double>(whole_value) * static_cast<double>(found->micros) >
        kLargestParsedMicros) {
        return fail("duration " + quoted + " is too large (the limit is 30 days)");
    }
    std::int64_t micros = whole_value * found->micros;
    // fraction digits: value = digits / 10^len * unit; must be a whole number of microseconds.
    std::int64_t scale = found->micros;
    for (const char c : fraction) {
        if (scale % 10 != 0) {
            return fail("duration " + quoted + " is finer than a microsecond");
        }
        scale /= 10;
        micros += (c - '0') * scale;
    }
    return Duration{micros};
}

std::optional<JitterType> parse_bare_jitter_word(std::string_view word) noexcept {
    const std::optional<JitterType> type = parse_word<JitterType>(word);
    return type && is_bare_word(*type) ? type : std::nullopt;
}

const std::vector<std::string_view>& bare_jitter_words() {
    static const std::vector<std::string_view> words = [] {
        std::vector<std::string_view> bare;
        for (const JitterKindRow& row : kJitterKinds) {
            if (is_bare_word(row.value)) {
                bare.push_back(row.word);
            }
        }
        return bare;
    }();
    return words;
}

const std::vector<std::string_view>& category_names() {
    static const std::vector<std::string_view> words = [] {
        std::vector<std::string_view> all;
        all.reserve(std::size(kCategoryTable));
        for (const CategoryInfo& info : kCategoryTable) {
            all.push_back(info.wire_name);
        }
        return all;
    }();
    return words;
}

const std::vector<std::string_view>& category_words() {
    static const std::vector<std::string_view> words = [] {
        std::vector<std::string_view> all = category_names();
        all.push_back(kTransientGroupName);
        return all;
    }();
    return words;
}

const std::vector<std::string_view>& vendor_words() {
    static const std::vector<std::string_view> words = [] {
        std::vector<std::string_view> all;
        all.reserve(std::size(kVendorTable));
        for (const VendorInfo& info : kVendorTable) {
            all.push_back(info.wire_name);
        }
        return all;
    }();
    return words;
}

}  // namespace rebound::dsl
