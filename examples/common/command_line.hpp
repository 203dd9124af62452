// How the examples end on their command line, as the `rebound` tool does (tools/src/main.cpp):
// `--help` prints the options and exits 0; a bad argument prints CLI11's message and exits 2.
#pragma once

#include <CLI/CLI.hpp>
#include <charconv>
#include <limits>
#include <optional>
#include <string>
#include <system_error>
#include <type_traits>

namespace examples {

// Parses the command line into `app`'s options. Returns the status the program exits with when it
// must end here (--help: 0; a bad argument: 2), or nothing when it goes on.
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        return app.exit(error) == 0 ? 0 : 2;
    }
    return std::nullopt;
}

// A whole number of type T written in decimal: one or more digits, no sign, no leading zero ("0"
// alone is allowed), at most T's largest value. Checked before the option's own conversion,
// CLI11's base-0 strtoll, which reads "010" as 8 and "0x10" as 16, "-1" into an unsigned option as
// its largest value, and a number past the largest as the largest: a reader of the command line
// expects 10 from the first and an error from the others. Added before a range check, which
// converts the same way. No description: the option's help already names its type.
template <typename T>
CLI::Validator decimal_whole_number() {
    static_assert(std::is_integral_v<T>);
    return CLI::Validator(
        [](const std::string& text) -> std::string {
            const bool digits_only =
                !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
            const bool leading_zero = text.size() > 1 && text.front() == '0';
            T value{};  // digits only: from_chars reads them all, or fails past T's largest
            if (digits_only && !leading_zero &&
                std::from_chars(text.data(), text.data() + text.size(), value).ec == std::errc{}) {
                return {};
            }
            return "expected a whole number from 0 to " +
                   std::to_string(std::numeric_limits<T>::max()) +
                   " in decimal digits (no sign, no leading zero), got '" + text + "'";
        },
        "");
}

}  // namespace examples
