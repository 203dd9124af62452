// rebound convert PATH --to yaml|dsl|json [-o OUT]
//
// Comments are not carried over; lint suppression comments that are dropped are named on stderr.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli_support.hpp"
#include "rebound/dsl/emit.hpp"

namespace rebound::cli {
namespace {

struct ConvertOptions {
    std::string path;
    std::string to;
    std::string output;
};

dsl::Syntax target_syntax(const std::string& name) {
    if (name == "yaml") {
        return dsl::Syntax::Yaml;
    }
    return name == "json" ? dsl::Syntax::Json : dsl::Syntax::Text;
}

// Warns on stderr about each lint suppression comment (`# rebound: disable-next-line ...`,
// `# rebound: disable-file ...`) of `source`: the emitters write no comments, so the converted
// file would lint differently.
void warn_about_dropped_suppressions(const std::string& path, std::string_view source) {
    std::uint32_t line_number = 0;
    for (std::size_t start = 0; start < source.size();) {
        const std::size_t end = std::min(source.find('\n', start), source.size());
        std::string_view line = source.substr(start, end - start);
        ++line_number;
        start = end + 1;
        const std::size_t hash = line.find('#');
        if (hash == std::string_view::npos) {
            continue;
        }
        const std::size_t marker = line.find("rebound:", hash);
        if (marker == std::string_view::npos ||
            line.find("disable-", marker) == std::string_view::npos) {
            continue;
        }
        if (line.ends_with('\r')) {
            line.remove_suffix(1);
        }
        std::cerr << printable(path) << ':' << line_number << ':' << hash + 1
                  << ": warning: convert drops comments, so this lint suppression is not carried "
                     "over: "
                  << printable(line.substr(hash)) << '\n';
    }
}

int run_convert(const ConvertOptions& options) {
    int exit_code = kExitOk;
    const auto loaded = load_or_report(options.path, exit_code);
    if (!loaded) {
        return exit_code;
    }
    const dsl::Syntax target = target_syntax(options.to);
    warn_about_dropped_suppressions(options.path, loaded->source);
    const std::string text = dsl::emit(loaded->document, target);
    if (options.output.empty()) {
        std::cout << text;
        return kExitOk;
    }
    std::ofstream out(options.output, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
        std::cerr << "rebound convert: cannot write " << printable(options.output) << '\n';
        return kExitUsage;
    }
    return kExitOk;
}

}  // namespace

void register_convert(CLI::App& app, CommandOutcome& outcome) {
    auto options = std::make_shared<ConvertOptions>();
    CLI::App* command =
        app.add_subcommand("convert", "Print a policy file in another syntax, canonically ordered");
    command->add_option("PATH", options->path, "Policy file (.yaml .yml .json .rebound)")
        ->required();
    command->add_option("--to", options->to, "Target syntax")
        ->required()
        ->check(CLI::IsMember({"yaml", "dsl", "json"}));
    command->add_option("-o,--output", options->output, "Write to this file instead of stdout");
    command->callback([options, &outcome] { outcome.exit_code = run_convert(*options); });
}

}  // namespace rebound::cli
