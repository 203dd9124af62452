// rebound explain PATH [--handler NAME | --policy NAME] [--format text|json]
//
// Without a selector: every policy, then the file's handler bindings and default (docs/cli.md).
#include <iostream>
#include <memory>

#include "cli_support.hpp"
#include "explain_report.hpp"
#include "rebound/dsl/diagnostic.hpp"
#include "rebound/dsl/text_toolkit/suggestions.hpp"

namespace rebound::cli {
namespace {

struct ExplainOptions {
    std::string path;
    std::string handler;
    std::string policy;
    std::string format = "text";
};

// "did you mean 'x'?" for a policy name of `set`, else the list of its policies.
std::string policy_suggestion(const PolicySet& set, std::string_view unknown) {
    std::vector<std::string_view> names;
    for (const auto& policy : set.policies()) {
        names.push_back(policy->name());
    }
    names.push_back(PolicySet::builtin()->name());
    return dsl::suggestion_for(unknown, names);
}

int run_explain(const ExplainOptions& options) {
    int exit_code = kExitOk;
    const auto loaded = load_or_report(options.path, exit_code);
    if (!loaded) {
        return exit_code;
    }
    const PolicySet& set = *loaded->policy_set;
    const bool json = options.format == "json";

    if (!options.handler.empty() || !options.policy.empty()) {
        HandlerResolution resolution;
        const HandlerResolution* handler = nullptr;
        std::shared_ptr<const Policy> policy;
        if (!options.handler.empty()) {
            resolution = set.resolve(options.handler);
            handler = &resolution;
            policy = resolution.policy;
        } else {
            policy = set.find(options.policy);
            if (!policy) {
                std::cerr << printable(options.path) << ": no policy named '"
                          << printable(options.policy)
                          << "': " << printable(policy_suggestion(set, options.policy)) << '\n';
                return kExitInputErrors;
            }
        }
        std::optional<HandlerCalls> calls;
        if (handler != nullptr) {
            calls = handler_calls(loaded->document, set, options.handler);
        }
        const HandlerCalls* stated = calls ? &*calls : nullptr;
        if (json) {
            print_line(json_output(
                explain_json(set.service(), *policy, handler, options.handler, stated), 1));
        } else {
            print_text(explain_text(set.service(), *policy, handler, options.handler, stated));
        }
        return kExitOk;
    }
    if (json) {
        Json all{{"service", set.service()}, {"policies", Json::array()}};
        for (const auto& policy : set.policies()) {
            all["policies"].push_back(explain_json(set.service(), *policy));
        }
        all["handlers"] = bindings_json(set);
        all["default"] = set.default_policy() ? Json(*set.default_policy()) : Json(nullptr);
        print_line(json_output(all, 1));
    } else {
        for (const auto& policy : set.policies()) {
            print_text(explain_text(set.service(), *policy));
        }
        print_text(bindings_text(set));
    }
    return kExitOk;
}

}  // namespace

void register_explain(CLI::App& app, CommandOutcome& outcome) {
    auto options = std::make_shared<ExplainOptions>();
    CLI::App* command = app.add_subcommand(
        "explain", "Show resolved policies (after inheritance) and their schedules");
    command->add_option("PATH", options->path, "Policy file (.yaml .yml .json .rebound)")
        ->required();
    auto* handler = command->add_option("--handler", options->handler,
                                        "Explain the policy this handler resolves to, and why");
    auto* policy = command->add_option("--policy", options->policy, "Explain one policy by name");
    handler->excludes(policy);
    command->add_option("--format", options->format, "Output format")
        ->check(CLI::IsMember({"text", "json"}));
    command->callback([options, &outcome] { outcome.exit_code = run_explain(*options); });
}

}  // namespace rebound::cli
