// rebound simulate [--scenario contention|failure-rate|brownout|hedging] [--strategies a,b,...]
//                  [--policy FILE --handler NAME] [--clients N,N,...] [--runs N] [--seed N]
//                  [--failure-rates X,X,...] [--requests N] [--retries N] [--max-tokens N]
//                  [--token-ratio R] [--capacity N] [--base D] [--mean D] [--slow-fraction X]
//                  [--slow D] [--attempts N] [--max-extra-load P] [--format text|csv] [--svg FILE]
// (docs/simulate.md)
#include <algorithm>
#include <charconv>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/syntax.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"
#include "rebound/simulation/brownout.hpp"
#include "rebound/simulation/experiment.hpp"
#include "rebound/simulation/failure_rate.hpp"
#include "rebound/simulation/hedging.hpp"
#include "rebound/simulation/report.hpp"
#include "rebound/simulation/strategy.hpp"

namespace rebound::cli {
namespace {

constexpr int kMaxClients = 10000;
constexpr int kMaxRuns = 100000;
constexpr int kMaxRequests = 10'000'000;
constexpr int kMaxRetries = 999;
constexpr int kMaxTokens = 100000;
constexpr double kMinTokenRatio = 0.001;
constexpr double kMaxTokenRatio = 1000.0;
constexpr double kMinCapacity = 10.0;
constexpr double kMaxCapacity = 100000.0;
constexpr int kMinHedgingAttempts = 2;
constexpr int kMaxHedgingAttempts = 10;
constexpr Duration kMaxHedgingLatency = std::chrono::hours(1);

struct SimulateOptions {
    std::string scenario = "contention";
    std::vector<std::string> strategies;
    std::string policy_path;
    std::string handler;
    std::vector<int> clients;
    int runs = 100;
    std::uint64_t seed = 1;
    std::string format = "text";
    std::string svg_path;
    // failure-rate and brownout
    std::vector<double> failure_rates;
    int requests = 100'000;
    int retries = 3;
    int max_tokens = 100;
    double token_ratio = 0.1;
    double capacity = 1000.0;
    // hedging
    std::string base = "1ms";
    std::string mean = "4ms";
    double slow_fraction = 0.01;
    std::string slow = "100ms";
    int attempts = 2;
    std::string max_extra_load;  // empty: no token limit
    // Whether the command line gave them (brownout: only those replace the policy file's).
    bool retries_given = false;
    bool max_tokens_given = false;
    bool token_ratio_given = false;
};

// "unknown strategy 'NAME': did you mean 'X'?", or the list of the scenario's strategies.
void report_unknown_strategy(const std::string& name, const std::vector<std::string_view>& known) {
    const std::string suggestion = dsl::did_you_mean(name, known);
    std::cerr << "rebound simulate: unknown strategy '" << printable(name) << "': ";
    if (!suggestion.empty()) {
        std::cerr << suggestion << "\n";
        return;
    }
    std::cerr << "expected one of";
    for (const std::string_view strategy : known) {
        std::cerr << ' ' << strategy;
    }
    std::cerr << '\n';
}

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
            report_unknown_strategy(name, names);
            return std::nullopt;
        }
        strategies.push_back(std::move(*strategy));
    }
    return strategies;
}

// The policy the handler resolves to in the policy file, and the name it is reported under:
// the policy's, prefixed with `file:` when a built-in strategy has the same name.
std::optional<std::pair<std::string, std::shared_ptr<const Policy>>> policy_of_handler(
    const SimulateOptions& options, const std::vector<std::string>& builtin_names, int& exit_code,
    std::string_view what_is_modelled) {
    const auto loaded = load_or_report(options.policy_path, exit_code);
    if (!loaded) {
        return std::nullopt;
    }
    const HandlerResolution resolution = loaded->policy_set->resolve(options.handler);
    std::string name = resolution.policy->name();
    if (std::find(builtin_names.begin(), builtin_names.end(), name) != builtin_names.end()) {
        name = "file:" + name;
    }
    std::cerr << "rebound simulate: handler '" << printable(options.handler) << "' uses policy '"
              << printable(resolution.policy->name()) << "' (" << to_string(resolution.via) << "); "
              << what_is_modelled << '\n';
    return std::make_pair(std::move(name), resolution.policy);
}

std::optional<simulation::Strategy> policy_strategy(
    const SimulateOptions& options, const std::vector<simulation::Strategy>& builtins,
    int& exit_code) {
    std::vector<std::string> names;
    names.reserve(builtins.size());
    for (const simulation::Strategy& builtin : builtins) {
        names.push_back(builtin.name());
    }
    auto found = policy_of_handler(
        options, names, exit_code,
        "simulated with its backoff and jitter, its clients retry until they succeed "
        "(max_attempts, deadline and budget are not modelled)");
    if (!found) {
        return std::nullopt;
    }
    return simulation::Strategy(std::move(found->first), std::move(found->second));
}

// The client strategies `options` chooses among `builtins` (all when none is named and no policy
// file is given), plus the policy file's. Prints a usage error and returns nullopt for an
// unknown name.
std::optional<std::vector<simulation::ClientStrategy>> chosen_client_strategies(
    const SimulateOptions& options, std::vector<simulation::ClientStrategy> builtins,
    int& exit_code) {
    std::vector<std::string> names;
    names.reserve(builtins.size());
    for (const auto& builtin : builtins) {
        names.push_back(builtin.name);
    }
    std::vector<simulation::ClientStrategy> chosen;
    if (options.strategies.empty() && options.policy_path.empty()) {
        chosen = builtins;
    }
    for (const std::string& name : options.strategies) {
        const auto found = std::find_if(builtins.begin(), builtins.end(),
                                        [&](const auto& builtin) { return builtin.name == name; });
        if (found == builtins.end()) {
            report_unknown_strategy(name,
                                    std::vector<std::string_view>(names.begin(), names.end()));
            exit_code = kExitUsage;
            return std::nullopt;
        }
        if (std::none_of(chosen.begin(), chosen.end(),
                         [&](const auto& strategy) { return strategy.name == name; })) {
            chosen.push_back(*found);
        }
    }
    if (!options.policy_path.empty()) {
        auto found = policy_of_handler(
            options, names, exit_code,
            "simulated with its max_attempts, backoff, jitter, deadline, budget and breaker, "
            "each client with its own budget and breaker");
        if (!found) {
            return std::nullopt;
        }
        chosen.push_back(
            {std::move(found->first), simulation::copies_of(std::move(found->second))});
    }
    return chosen;
}

bool write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
        std::cerr << "rebound simulate: cannot write '" << printable(path) << "'\n";
        return false;
    }
    return true;
}

// Writes the chart when --svg asks for it, then prints `text` (the table or the CSV).
int report(const SimulateOptions& options, const std::string& svg, const std::string& text) {
    if (!options.svg_path.empty() && !write_file(options.svg_path, svg)) {
        return kExitUsage;
    }
    print_text(text);
    return kExitOk;
}

int run_contention(const SimulateOptions& options) {
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
    return report(
        options, simulation::format_svg(rows),
        options.format == "csv" ? simulation::format_csv(rows) : simulation::format_table(rows));
}

// The one client count of the failure-rate and brownout scenarios.
std::optional<int> single_client_count(const SimulateOptions& options) {
    if (options.clients.size() > 1) {
        std::cerr << "rebound simulate: --scenario " << options.scenario
                  << " takes one client count (--clients K), got " << options.clients.size()
                  << '\n';
        return std::nullopt;
    }
    return options.clients.empty() ? 1 : options.clients.front();
}

int run_failure_rate(const SimulateOptions& options) {
    const std::optional<int> clients = single_client_count(options);
    if (!clients) {
        return kExitUsage;
    }
    int exit_code = kExitOk;
    const auto strategies = chosen_client_strategies(
        options,
        simulation::failure_rate_builtins(options.retries,
                                          BudgetSettings{options.max_tokens, options.token_ratio}),
        exit_code);
    if (!strategies) {
        return exit_code;
    }
    simulation::FailureRateSettings settings;
    if (!options.failure_rates.empty()) {
        settings.failure_rates = options.failure_rates;
    }
    settings.requests = options.requests;
    settings.clients = *clients;
    settings.seed = options.seed;
    const auto rows = simulation::run_failure_rate(*strategies, settings);
    return report(options, simulation::format_failure_rate_svg(rows),
                  options.format == "csv" ? simulation::format_failure_rate_csv(rows)
                                          : simulation::format_failure_rate_table(rows));
}

int run_brownout(const SimulateOptions& options) {
    const std::optional<int> clients = single_client_count(options);
    if (!clients) {
        return kExitUsage;
    }
    int exit_code = kExitOk;
    simulation::BrownoutOverrides overrides;
    if (options.retries_given) {
        overrides.retries = options.retries;
    }
    if (options.max_tokens_given) {
        overrides.max_tokens = options.max_tokens;
    }
    if (options.token_ratio_given) {
        overrides.token_ratio = options.token_ratio;
    }
    std::vector<simulation::ClientStrategy> builtins;
    try {
        builtins = simulation::brownout_builtins(overrides);
    } catch (const std::invalid_argument& e) {
        std::cerr << "rebound simulate: " << e.what() << '\n';
        return kExitUsage;
    }
    const auto strategies = chosen_client_strategies(options, std::move(builtins), exit_code);
    if (!strategies) {
        return exit_code;
    }
    simulation::BrownoutSettings settings;
    settings.capacity = options.capacity;
    settings.clients = *clients;
    settings.seed = options.seed;
    const auto results = simulation::run_brownout(*strategies, settings);
    return report(options, simulation::format_brownout_svg(results, settings),
                  options.format == "csv" ? simulation::format_brownout_csv(results)
                                          : simulation::format_brownout_table(results, settings));
}

// A latency option of the hedging scenario: a duration from 0 to 1h. Prints a usage error and
// returns nullopt otherwise.
std::optional<Duration> hedging_duration(const std::string& name, const std::string& text) {
    std::string error;
    const std::optional<Duration> value = dsl::parse_duration(text, error);
    if (!value) {
        std::cerr << "rebound simulate: " << name << ": " << printable(error) << '\n';
        return std::nullopt;
    }
    if (*value > kMaxHedgingLatency) {
        std::cerr << "rebound simulate: " << name << ": must be at most 1h, got '"
                  << printable(text) << "'\n";
        return std::nullopt;
    }
    return value;
}

// --max-extra-load: a percentage above 0% and at most 100% (5%, 2.5%), or the same as a fraction
// (0.05). Prints a usage error and returns nullopt otherwise.
std::optional<double> extra_load_option(const std::string& text) {
    const bool percent = !text.empty() && text.back() == '%';
    const std::string_view number(text.data(), text.size() - (percent ? 1 : 0));
    const bool plain = !number.empty() && std::all_of(number.begin(), number.end(), [](char c) {
        return (c >= '0' && c <= '9') || c == '.';
    });
    double value = 0.0;
    const auto [end, failure] =
        plain ? std::from_chars(number.data(), number.data() + number.size(), value)
              : std::from_chars_result{number.data(), std::errc::invalid_argument};
    const double fraction = percent ? value / 100.0 : value;
    if (failure != std::errc() || end != number.data() + number.size() || !(fraction > 0.0) ||
        fraction > 1.0) {
        std::cerr << "rebound simulate: --max-extra-load: expected a percentage above 0% and at "
                     "most 100% such as 5%, got '"
                  << printable(text) << "'\n";
        return std::nullopt;
    }
    return fraction;
}

// The hedging scenario's strategies: those named (each once), or the defaults.
std::optional<std::vector<simulation::HedgingStrategy>> hedging_strategies(
    const SimulateOptions& options) {
    if (options.strategies.empty()) {
        return simulation::default_hedging_strategies();
    }
    std::vector<simulation::HedgingStrategy> strategies;
    for (const std::string& name : options.strategies) {
        std::string error;
        auto strategy = simulation::parse_hedging_strategy(name, error);
        if (!strategy) {
            std::cerr << "rebound simulate: --strategies: " << printable(error) << '\n';
            return std::nullopt;
        }
        if (std::none_of(strategies.begin(), strategies.end(),
                         [&](const auto& chosen) { return chosen.name == strategy->name; })) {
            strategies.push_back(std::move(*strategy));
        }
    }
    return strategies;
}

int run_hedging(const SimulateOptions& options) {
    if (!options.policy_path.empty()) {
        std::cerr << "rebound simulate: --scenario hedging takes no --policy: its strategies are "
                     "none, hedge:DURATION and hedge:pQ\n";
        return kExitUsage;
    }
    const auto base = hedging_duration("--base", options.base);
    const auto mean = hedging_duration("--mean", options.mean);
    const auto slow = hedging_duration("--slow", options.slow);
    const auto strategies = hedging_strategies(options);
    if (!base || !mean || !slow || !strategies) {
        return kExitUsage;
    }
    simulation::HedgingSettings settings;
    settings.base = *base;
    settings.mean = *mean;
    settings.slow = *slow;
    settings.slow_fraction = options.slow_fraction;
    settings.requests = options.requests;
    settings.seed = options.seed;
    settings.attempts = options.attempts;
    if (!options.max_extra_load.empty()) {
        settings.max_extra_load = extra_load_option(options.max_extra_load);
        if (!settings.max_extra_load) {
            return kExitUsage;
        }
    }
    const auto rows = simulation::run_hedging(*strategies, settings);
    return report(options, simulation::format_hedging_svg(rows, settings),
                  options.format == "csv" ? simulation::format_hedging_csv(rows)
                                          : simulation::format_hedging_table(rows, settings));
}

int run_simulate(const SimulateOptions& options) {
    if (options.scenario == "hedging") {
        return run_hedging(options);
    }
    if (options.scenario == "failure-rate") {
        return run_failure_rate(options);
    }
    if (options.scenario == "brownout") {
        return run_brownout(options);
    }
    return run_contention(options);
}

}  // namespace

void register_simulate(CLI::App& app, CommandOutcome& outcome) {
    auto o = std::make_shared<SimulateOptions>();
    CLI::App* command = app.add_subcommand(
        "simulate",
        "Simulate optimistic-concurrency contention (\"Exponential Backoff And Jitter\", 2015) "
        "with the engine's backoff and jitter");
    command->add_option("--scenario", o->scenario, "What to simulate")
        ->check(CLI::IsMember({"contention", "failure-rate", "brownout", "hedging"}))
        ->capture_default_str();
    command
        ->add_option("--strategies", o->strategies,
                     "Built-in strategies (default: all, or none when --policy is given). "
                     "contention: exponential, full, equal, decorrelated, none; failure-rate: "
                     "none, retries, budget, breaker; brownout: the handlers of "
                     "simulation/policies/brownout.yaml, none, immediate, backoff, backoff.budget, "
                     "backoff.default-budget, backoff.breaker, backoff.budget.breaker; "
                     "hedging: none, hedge:DURATION, hedge:pQ (default none, hedge:10ms, "
                     "hedge:p90, hedge:p95, hedge:p99)")
        ->delimiter(',');
    CLI::Option* policy =
        command->add_option("--policy", o->policy_path, "Policy file whose handler to simulate too")
            ->check(CLI::ExistingFile);
    CLI::Option* handler =
        command->add_option("--handler", o->handler, "Handler whose policy to simulate");
    policy->needs(handler);
    handler->needs(policy);
    // Every numeric option is read strictly (cli_support.hpp): `nan`, `inf`, `0x10` and values
    // out of range are usage errors.
    add_whole_numbers_option(*command, "--clients", o->clients, 1, kMaxClients,
                             "contention: client counts (default 10,20,...,190); failure-rate "
                             "and brownout: the number of clients, each with its own budget and "
                             "breaker (default 1)");
    add_whole_number_option(*command, "--runs", o->runs, 1, kMaxRuns,
                            "Runs per point, averaged (default 100)");
    add_seed_option(*command, o->seed);
    add_numbers_option(*command, "--failure-rates", o->failure_rates, 0.0, 1.0,
                       "failure-rate: the downstream failure rates, fractions from 0 to 1 "
                       "(default 0,0.1,...,1)");
    add_whole_number_option(*command, "--requests", o->requests, 1, kMaxRequests,
                            "failure-rate: requests per point; hedging: requests (default 100000)");
    add_whole_number_option(*command, "--retries", o->retries, 0, kMaxRetries,
                            "failure-rate and brownout: retries (N; default 3)");
    add_whole_number_option(*command, "--max-tokens", o->max_tokens, 1, kMaxTokens,
                            "failure-rate and brownout: budget max_tokens (default 100)");
    add_number_option(*command, "--token-ratio", o->token_ratio, kMinTokenRatio, kMaxTokenRatio,
                      "failure-rate and brownout: budget token_ratio (default 0.1)");
    add_number_option(*command, "--capacity", o->capacity, kMinCapacity, kMaxCapacity,
                      "brownout: server capacity, requests/s (default 1000)");
    command->add_option("--base", o->base,
                        "hedging: the fixed part of an attempt's latency (default 1ms)");
    command->add_option("--mean", o->mean,
                        "hedging: the mean of the exponential part of an attempt's latency "
                        "(default 4ms)");
    add_number_option(*command, "--slow-fraction", o->slow_fraction, 0.0, 1.0,
                      "hedging: the share of attempts that take --slow instead (default 0.01)");
    command->add_option("--slow", o->slow,
                        "hedging: the latency of a slow attempt (default 100ms)");
    add_whole_number_option(*command, "--attempts", o->attempts, kMinHedgingAttempts,
                            kMaxHedgingAttempts,
                            "hedging: attempts per request, the first included (default 2)");
    command->add_option("--max-extra-load", o->max_extra_load,
                        "hedging: hedge tokens earned per request, such as 5% (default 100%: no "
                        "token limit)");
    command->add_option("--format", o->format, "Output format")
        ->check(CLI::IsMember({"text", "csv"}))
        ->capture_default_str();
    command->add_option("--svg", o->svg_path, "Also write a chart of the results to this SVG file");
    command->callback([o, command, &outcome] {
        o->retries_given = command->count("--retries") > 0;
        o->max_tokens_given = command->count("--max-tokens") > 0;
        o->token_ratio_given = command->count("--token-ratio") > 0;
        outcome.exit_code = run_simulate(*o);
    });
}

}  // namespace rebound::cli
