// How a service runs its work through Rebound: handlers registered next to their types, policies
// loaded from a directory into a reloadable store, an executor with metrics and JSON logs.
//
//   rebound_example_executor_service [POLICY_DIRECTORY]
//
// Without an argument it runs on its embedded copy of examples/policies/payments.yaml. The same
// code is walked through in docs/executor.md.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "common/command_line.hpp"
#include "common/temporary_directory.hpp"
#include "executor_service/embedded_policy.hpp"
#include "rebound/dsl/policy_directory.hpp"
#include "rebound/dsl/policy_file_watcher.hpp"
#include "rebound/observability/json_log_listener.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/retry_metrics.hpp"

namespace {

// A command handler: its name and retry tier sit next to its definition, like an annotation.
struct ApproveCase {
    REBOUND_HANDLER("ApproveCase", "interactive");

    int calls = 0;
    void operator()(const rebound::AttemptInfo& attempt) {
        ++calls;
        if (attempt.attempt == 1) {  // the database picks us as a deadlock victim once
            rebound::ErrorDescription error;
            error.category = rebound::ErrorCategory::Deadlock;
            error.sqlstate = "40P01";
            error.message = "deadlock detected";
            throw rebound::Error(error);
        }
    }
};

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Runs a command handler through a RetryExecutor, under the policies of a directory "
        "kept current by a file watcher."};
    std::optional<std::filesystem::path> policy_directory;
    app.add_option("POLICY_DIRECTORY", policy_directory,
                   "Directory of policy files (default: a temporary copy of the embedded "
                   "examples/policies/payments.yaml)");
    if (const std::optional<int> status = examples::parse_command_line(app, argc, argv)) {
        return *status;
    }
    // Without an argument, the embedded policy in a directory of its own, removed when the
    // service ends: the store and its watcher read files.
    std::optional<examples::TemporaryDirectory> embedded;
    if (!policy_directory) {
        embedded.emplace("rebound-executor-service");
        std::ofstream(embedded->path() / "payments.yaml") << executor_service::kEmbeddedPolicy;
    }
    const std::filesystem::path directory = embedded ? embedded->path() : *policy_directory;

    // 1. Registration, once at start-up.
    rebound::HandlerRegistry handlers;
    handlers.add<ApproveCase>();

    // 2. Policies: load the directory, then keep it current while the service runs.
    rebound::dsl::PolicyDirectoryStore store;
    const auto report = [](const rebound::dsl::Diagnostics& diagnostics) {
        for (const auto& d : diagnostics) {
            std::cerr << rebound::dsl::format_diagnostic(d) << '\n';
        }
    };
    const rebound::dsl::DirectoryLoadOptions load_options{.handlers = &handlers};
    if (!rebound::dsl::reload_policy_directory(store, directory, load_options, report)) {
        return 1;
    }
    rebound::dsl::PolicyFileWatcher watcher(store, directory, load_options, report);

    // 3. One executor for the service, with metrics and JSON logs.
    rebound::RetryMetrics metrics;
    rebound::observability::JsonLogListener log(std::cout);
    const rebound::RetryExecutor executor(
        {.listeners = {&metrics, &log},
         .resolver = rebound::dsl::make_resolver(store, handlers, "payments")});

    // 4. Run work under the handler's policy.
    ApproveCase approve;
    const rebound::RunResult result =
        executor.run("ApproveCase", [&](const rebound::AttemptInfo& attempt) { approve(attempt); },
                     {.command_id = "cmd-0001"});

    std::cout << "outcome " << rebound::to_string(result.outcome) << " after " << result.attempts
              << " attempts under policy '" << result.policy->name() << "' (via "
              << rebound::to_string(result.via) << ")\n"
              << rebound::to_string(
                     handlers.explain("ApproveCase", store.current()->service("payments").get()))
              << '\n'
              << metrics.render();
    return result.succeeded() ? 0 : 1;
}
