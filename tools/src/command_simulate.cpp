// rebound simulate [--strategies a,b,...] [--policy FILE --handler NAME] [--clients N,N,...]
//                  [--runs N] [--seed N] [--format text|csv] [--svg FILE]
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "rebound/dsl/diagnostic.hpp"
#include "rebound/simulation/experiment.hpp"
#include "rebound/simulation/report.hpp"
#include "rebound/simulation/strategy.hpp"

namespace rebound::cli {
namespace {

constexpr int kMaxClients = 10000;
constexpr int kMaxRuns = 100000;

struct SimulateOptions {
    std::vector<std::string> strategies;
    std::string policy_path;
    std::string handler;
    std::vector<int> clients;
    int runs = 100;
    std::uint64_t seed = 1;
    std::string format = "text";
    std::string svg_path;
};

// The built-in strategies named on the command line; all of them when none is named and no
// policy file is given. Prints a usage error and returns nullopt for an unknown name.
std::optional<std::vector<simulation::Strategy>> chosen_builtins(const SimulateOptions& options) {
    std::vector<simulation::Strategy> strategies;
    if (options.strategies.empty()) {
        if (options.policy_path.empty()) {
            strategies = simulation::builtin_strategies();
        }
        return strategies;
    }
    const std::vector<std::string_view> names(simulation::kBuiltinStrategyNames.begin(),
                                              simulation::kBuiltinStrategyNames.end());
    for (const std::string& name : options.strategies) {
        const bool repeated =
            std::any_of(strategies.begin(), strategies.end(),
                        [&](const auto& chosen) { return chosen.name() == name; });
        if (repeated) {
            continue;
        }
        auto strategy = simulation::builtin_strategy(name);
        if (!strategy) {
            const std::string suggestion = dsl::closest_match(name, names);
            std::cerr << "rebound simulate: unknown strategy '" << name << "': ";
            if (!suggestion.empty()) {
                std::cerr << "did you mean '" << suggestion << "'?\n";
            } else {
                std::cerr << "expected one of exponential full equal decorrelated none\n";
            }
            return std::nullopt;
        }
        strategies.push_back(std::move(*strategy));
    }
    return strategies;
}

// The policy the handler resolves to in the policy file, named after the policy (prefixed with
// `file:` when a chosen built-in has the same name).
std::optional<simulation::Strategy> policy_strategy(
    const SimulateOptions& options, const std::vector<simulation::Strategy>& builtins,
    int& exit_code) {
    const auto loaded = load_or_report(options.policy_path, exit_code);
    if (!loaded) {
        return std::nullopt;
    }
    const HandlerResolution resolution = loaded->policy_set->resolve(options.handler);
    std::string name = resolution.policy->name();
    for (const simulation::Strategy& builtin : builtins) {
        if (builtin.name() == name) {
            name = "file:" + name;
        }
    }
    std::cerr << "rebound simulate: handler '" << options.handler << "' uses policy '"
              << resolution.policy->name() << "' (" << to_string(resolution.via)
              << "); simulated with its backoff and jitter, its clients retry until they succeed "
                 "(max_attempts, deadline and budget are not modelled)\n";
    return simulation::Strategy(std::move(name), resolution.policy);
}

bool write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
        std::cerr << "rebound simulate: cannot write '" << path << "'\n";
        return false;
    }
    return true;
}

int run_simulate(const SimulateOptions& options) {
    auto strategies = chosen_builtins(options);
    if (!strategies) {
        return kExitUsage;
    }
    if (!options.policy_path.empty()) {
        int exit_code = kExitOk;
        auto strategy = policy_strategy(options, *strategies, exit_code);
        if (!strategy) {
            return exit_code;
        }
        strategies->push_back(std::move(*strategy));
    }
    simulation::ExperimentSettings settings;
    if (!options.clients.empty()) {
        settings.client_counts = options.clients;
    }
    settings.runs = options.runs;
    settings.seed = options.seed;
    const auto rows = simulation::run_experiment(*strategies, settings);
    if (!options.svg_path.empty() && !write_file(options.svg_path, simulation::format_svg(rows))) {
        return kExitUsage;
    }
    std::cout << (options.format == "csv" ? simulation::format_csv(rows)
                                          : simulation::format_table(rows));
    return kExitOk;
}

}  // namespace

void register_simulate(CLI::App& app, CommandOutcome& outcome) {
    auto o = std::make_shared<SimulateOptions>();
    CLI::App* command = app.add_subcommand(
        "simulate",
        "Simulate optimistic-concurrency contention (\"Exponential Backoff And Jitter\", 2015) "
        "with the engine's backoff and jitter");
    command
        ->add_option("--strategies", o->strategies,
                     "Built-in strategies: exponential, full, equal, decorrelated, none (default: "
                     "all, or none when --policy is given)")
        ->delimiter(',');
    CLI::Option* policy =
        command->add_option("--policy", o->policy_path, "Policy file whose handler to simulate too")
            ->check(CLI::ExistingFile);
    CLI::Option* handler =
        command->add_option("--handler", o->handler, "Handler whose policy to simulate");
    policy->needs(handler);
    handler->needs(policy);
    command->add_option("--clients", o->clients, "Client counts (default 10,20,...,190)")
        ->delimiter(',')
        ->check(CLI::Range(1, kMaxClients));
    command->add_option("--runs", o->runs, "Runs per point, averaged")
        ->check(CLI::Range(1, kMaxRuns))
        ->capture_default_str();
    add_seed_option(*command, o->seed);
    command->add_option("--format", o->format, "Output format")
        ->check(CLI::IsMember({"text", "csv"}))
        ->capture_default_str();
    command->add_option("--svg", o->svg_path, "Also write a chart of the results to this SVG file");
    command->callback([o, &outcome] { outcome.exit_code = run_simulate(*o); });
}

}  // namespace rebound::cli
