#include "yaml/scalars.hpp"
#include "rebound/dsl/text_toolkit/numbers.hpp"

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <system_error>

namespace rebound::dsl::yaml {
namespace {

bool all_digits(std::string_view text) noexcept {
    if (text.empty()) {
        return false;
    }
    for (const char c : text) {
        if (!is_digit(c)) {
            return false;
        }
    }
    return true;
}

std::string_view without_sign(std::string_view text) noexcept {
    if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
        text.remove_prefix(1);
    }
    return text;
}

}  // namespace

bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}

// YAML 1.2 core schema integer (decimal form): [-+]?[0-9]+
bool looks_like_integer(std::string_view text) noexcept {
    return all_digits(without_sign(text));
}

// YAML 1.2 core schema float, finite forms: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool looks_like_float(std::string_view text) noexcept {
    text = without_sign(text);
    const std::size_t exponent = text.find_first_of("eE");
    const std::string_view mantissa = text.substr(0, exponent);
    if (exponent != std::string_view::npos && !looks_like_integer(text.substr(exponent + 1))) {
        return false;
    }
    const std::size_t dot = mantissa.find('.');
    if (dot == std::string_view::npos) {
        return all_digits(mantissa);
    }
    const std::string_view whole = mantissa.substr(0, dot);
    const std::string_view fraction = mantissa.substr(dot + 1);
    if (whole.empty()) {
        return all_digits(fraction);
    }
    return all_digits(whole) && (fraction.empty() || all_digits(fraction));
}

// YAML 1.2 core schema infinities and NaN.
bool looks_like_non_finite(std::string_view text) noexcept {
    const std::string_view magnitude = without_sign(text);
    return magnitude == ".inf" || magnitude == ".Inf" || magnitude == ".INF" || text == ".nan" ||
           text == ".NaN" || text == ".NAN";
}

// A decimal integer, optionally negative (a leading + is refused), with overflow detection.
ParsedInteger parse_integer(std::string_view text) noexcept {
    // A leading '+' is YAML 1.2 but not Rebound: numbers are written unsigned in every syntax
    // (the DSL has no '+' either), so `+3` is the same error in YAML and in the DSL.
    if (!looks_like_integer(text) || text.front() == '+') {
        return {};
    }
    std::int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc::result_out_of_range) {
        return {IntegerStatus::TooLarge, 0};
    }
    if (error != std::errc{} || end != text.data() + text.size()) {
        return {};
    }
    return {IntegerStatus::Ok, value};
}

// A finite YAML number (integer or float form); nullopt with `out_of_range` set when it does not
// fit a double.
std::optional<double> parse_finite_number(std::string_view text, bool& out_of_range) noexcept {
    out_of_range = false;
    if (!looks_like_float(text) || text.front() == '+') {
        return std::nullopt;  // unsigned, as parse_integer
    }
    return finite_double(text, out_of_range);
}

}  // namespace rebound::dsl::yaml
