// rebound convert PATH --to yaml|dsl|json [-o OUT]
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

int run_convert(const ConvertOptions& options) {
    int exit_code = kExitOk;
    const auto loaded = load_or_report(options.path, exit_code);
    if (!loaded) {
        return exit_code;
    }
    const std::string text = dsl::emit(loaded->document, target_syntax(options.to));
    if (options.output.empty()) {
        std::cout << text;
        return kExitOk;
    }
    std::ofstream out(options.output, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
        std::cerr << "rebound convert: cannot write " << options.output << '\n';
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
