#include "cli_support.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iostream>
#include <limits>
#include <sstream>
#include <system_error>
#include <type_traits>

namespace rebound::cli {
namespace {

// `value` as the range in a message: "0.001", "100000", "-3".
template <typename T>
std::string number_text(T value) {
    std::ostringstream text;
    text << value;
    return text.str();
}

// `text` as a T within [min, max], or a CLI::ValidationError naming `option` and the range. A
// whole number (integral T) is decimal digits; a floating-point one is a finite decimal number.
template <typename T>
T strict_number(const std::string& option, const std::string& text,
                T min = std::numeric_limits<T>::lowest(), T max = std::numeric_limits<T>::max()) {
    T value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    bool valid = error == std::errc{} && end == text.data() + text.size();
    if constexpr (std::is_floating_point_v<T>) {
        valid = valid && std::isfinite(value);
    }
    if (!valid || value < min || value > max) {
        throw CLI::ValidationError(
            option, std::string(std::is_integral_v<T> ? "expected a whole number from "
                                                      : "expected a number from ") +
                        number_text(min) + " to " + number_text(max) + ", got '" + printable(text) +
                        "'");
    }
    return value;
}

template <typename T>
CLI::Option* add_strict_option(CLI::App& command, const std::string& name, T& target, T min, T max,
                               const std::string& description) {
    return command
        .add_option_function<std::string>(
            name,
            [&target, name, min, max](const std::string& text) {
                target = strict_number<T>(name, text, min, max);
            },
            description)
        ->type_name(std::is_integral_v<T> ? "INT" : "NUMBER");
}

template <typename T>
CLI::Option* add_strict_list_option(CLI::App& command, const std::string& name,
                                    std::vector<T>& target, T min, T max,
                                    const std::string& description) {
    return command
        .add_option_function<std::vector<std::string>>(
            name,
            [&target, name, min, max](const std::vector<std::string>& texts) {
                target.clear();
                for (const std::string& text : texts) {
                    target.push_back(strict_number<T>(name, text, min, max));
                }
            },
            description)
        ->delimiter(',')
        ->type_name(std::is_integral_v<T> ? "INT,..." : "NUMBER,...");
}

}  // namespace

CLI::Option* add_native_code_option(CLI::App& command, std::optional<std::int64_t>& target,
                                    const std::string& description) {
    return command
        .add_option_function<std::string>(
            "--native",
            [&target](const std::string& text) {
                target = strict_number<std::int64_t>("--native", text);
            },
            description)
        ->type_name("INT");
}

CLI::Option* add_seed_option(CLI::App& command, std::uint64_t& target) {
    return command
        .add_option_function<std::string>(
            "--seed",
            [&target](const std::string& text) {
                target = strict_number<std::uint64_t>("--seed", text);
            },
            "Seed of the random source (0 to 18446744073709551615; default 1)")
        ->type_name("UINT");
}

CLI::Option* add_whole_number_option(CLI::App& command, const std::string& name, int& target,
                                     int min, int max, const std::string& description) {
    return add_strict_option(command, name, target, min, max, description);
}

CLI::Option* add_whole_numbers_option(CLI::App& command, const std::string& name,
                                      std::vector<int>& target, int min, int max,
                                      const std::string& description) {
    return add_strict_list_option(command, name, target, min, max, description);
}

CLI::Option* add_number_option(CLI::App& command, const std::string& name, double& target,
                               double min, double max, const std::string& description) {
    return add_strict_option(command, name, target, min, max, description);
}

CLI::Option* add_numbers_option(CLI::App& command, const std::string& name,
                                std::vector<double>& target, double min, double max,
                                const std::string& description) {
    return add_strict_list_option(command, name, target, min, max, description);
}

std::optional<dsl::LoadResult> load_or_report(const std::string& path, int& exit_code) {
    dsl::LoadResult result = dsl::load_file(path);
    for (const dsl::Diagnostic& d : result.diagnostics) {
        std::cerr << dsl::format_diagnostic(d, result.source) << '\n';
    }
    if (result.policy_set) {
        return result;
    }
    const bool unreadable = std::any_of(
        result.diagnostics.begin(), result.diagnostics.end(),
        [](const dsl::Diagnostic& d) { return d.code == dsl::DiagnosticCode::UnreadableFile; });
    exit_code = unreadable ? kExitUsage : kExitInputErrors;
    return std::nullopt;
}

void print_line(std::string_view text) {
    std::cout << text;
    if (text.empty() || text.back() != '\n') {
        std::cout << '\n';
    }
}

void print_text(std::string_view text) {
    print_line(printable_lines(text));
}

}  // namespace rebound::cli
