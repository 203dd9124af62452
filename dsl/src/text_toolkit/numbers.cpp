#include "rebound/dsl/text_toolkit/numbers.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace rebound::dsl {
namespace {

bool is_digit(char c) noexcept {
    return c >= '0' && c <= '9';
}

bool all_digits(std::string_view text) noexcept {
    return !text.empty() && std::all_of(text.begin(), text.end(), is_digit);
}

}  // namespace

std::optional<double> finite_double(std::string_view text, bool& out_of_range) noexcept {
    out_of_range = false;
    double value = 0.0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc::result_out_of_range ||
        (error == std::errc{} && !std::isfinite(value))) {
        out_of_range = true;
        return std::nullopt;
    }
    if (error != std::errc{} || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

bool is_integer_text(std::string_view text) noexcept {
    if (!text.empty() && text.front() == '-') {
        text.remove_prefix(1);
    }
    return all_digits(text);
}

bool is_decimal_text(std::string_view text) noexcept {
    if (!text.empty() && text.front() == '-') {
        text.remove_prefix(1);
    }
    const std::size_t dot = text.find('.');
    const std::string_view fraction =
        dot == std::string_view::npos ? std::string_view("0") : text.substr(dot + 1);
    return all_digits(text.substr(0, dot)) && all_digits(fraction);
}

std::optional<double> decimal_value(std::string_view text, bool& out_of_range) {
    out_of_range = false;
    if (!is_decimal_text(text)) {
        return std::nullopt;
    }
    return finite_double(text, out_of_range);
}

std::string percent_as_fraction(std::string_view text) {
    std::string sign;
    if (text.front() == '-') {
        sign = "-";
        text.remove_prefix(1);
    }
    const std::size_t dot = text.find('.');
    const std::string whole(text.substr(0, dot));
    const std::string fraction(dot == std::string_view::npos ? "" : text.substr(dot + 1));
    const std::string digits = whole + fraction;
    const std::ptrdiff_t point = static_cast<std::ptrdiff_t>(whole.size()) - 2;
    if (point <= 0) {
        return sign + "0." + std::string(static_cast<std::size_t>(-point), '0') + digits;
    }
    const auto split = static_cast<std::size_t>(point);
    return sign + digits.substr(0, split) + "." + digits.substr(split);
}

}  // namespace rebound::dsl
