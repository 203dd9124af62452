#include "cli_support.hpp"

#include <algorithm>
#include <charconv>
#include <iostream>
#include <limits>
#include <system_error>

#include "rebound/dsl/terminal_text.hpp"

namespace rebound::cli {
namespace {

// `text` as a T from `min` to `max` (by default the range of T), or a CLI::ValidationError
// naming `option` and the range.
template <typename T>
T strict_number(const std::string& option, const std::string& text,
                T min = std::numeric_limits<T>::min(), T max = std::numeric_limits<T>::max()) {
    T value{};
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc{} || end != text.data() + text.size() || value < min || value > max) {
        throw CLI::ValidationError(option, "expected a whole number from " + std::to_string(min) +
                                               " to " + std::to_string(max) + ", got '" +
                                               dsl::printable(text) + "'");
    }
    return value;
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

CLI::Option* add_bounded_option(CLI::App& command, const std::string& name, int& target, int min,
                                int max, const std::string& description) {
    return command
        .add_option_function<std::string>(
            name,
            [&target, name, min, max](const std::string& text) {
                target = strict_number<int>(name, text, min, max);
            },
            description)
        ->type_name("INT");
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

}  // namespace rebound::cli
