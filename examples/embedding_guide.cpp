// The program of docs/embedding.md, step by step: handlers registered like annotations, policies
// from a directory kept current by a watcher, one executor, Prometheus metrics and JSON logs.
//
//   rebound_example_embedding_guide [WORK_DIRECTORY]
//
// It writes its policy file into WORK_DIRECTORY/policies (a real service would have it deployed
// there; without an argument, a temporary directory removed at the end), runs two handlers, edits
// the file to show a live reload, and checks every outcome: it exits 0 only if everything happened
// as the guide says. The blocks between `// guide: NAME` and
// `// guide: end` appear verbatim in docs/embedding.md (checked by ctest
// example:embedding_guide_doc).
#include <CLI/CLI.hpp>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/command_line.hpp"
#include "common/temporary_directory.hpp"
#include "rebound/dsl/policy_directory.hpp"
#include "rebound/dsl/policy_file_watcher.hpp"
#include "rebound/observability/json_log_listener.hpp"
#include "rebound/retry_executor.hpp"
#include "rebound/retry_metrics.hpp"
#include "rebound/testing.hpp"

namespace {

// guide: policy-file
constexpr std::string_view kPaymentsPolicies = R"(rebound: 1
service: payments
policies:
  interactive:
    max_attempts: 3
    backoff: { type: exponential, initial: 10ms, multiplier: 2.0, max: 100ms }
    jitter: equal
    deadline: 2s
    retry_on: [deadlock, serialization_failure, lock_timeout]
    never_retry_on: [constraint_violation]
  background:
    extends: interactive
    max_attempts: 4
    retry_on: [deadlock, connection_lost, service_unavailable]
    on_exhausted: dead_letter
handlers:
  "orders.*": background
default: interactive
)";
// guide: end

// guide: handlers
// A command: its handler name and retry tier sit next to the type, like an annotation.
struct ApproveCase {
    REBOUND_HANDLER("ApproveCase", "interactive");
    static constexpr bool rebound_idempotent = true;

    void operator()(const rebound::AttemptInfo& attempt) const {
        if (attempt.attempt == 1) {  // chosen as a deadlock victim once
            throw rebound::Error(rebound::ErrorCategory::Deadlock, "deadlock detected");
        }
    }
};

// An event consumer: the file binds every "orders.*" handler to `background`, which wins over
// any tier given in code.
struct ShipOrder {
    REBOUND_HANDLER("orders.ShipOrder", "interactive");

    void operator()(const rebound::AttemptInfo&) const {
        throw rebound::Error(rebound::ErrorCategory::ServiceUnavailable, "carrier API down");
    }
};
// guide: end

// guide: dead-letters
// Where `on_exhausted: dead_letter` sends work that ran out of attempts.
class ParkedOrders final : public rebound::DeadLetterSink {
  public:
    bool accept(const rebound::DeadLetter& letter) override {
        std::lock_guard lock(mutex_);
        parked_.push_back(std::string(letter.command_id));
        return true;
    }
    std::size_t size() const {
        std::lock_guard lock(mutex_);
        return parked_.size();
    }

  private:
    mutable std::mutex mutex_;
    std::vector<std::string> parked_;
};
// guide: end

void write_file(const std::filesystem::path& path, std::string_view text) {
    std::ofstream out(path, std::ios::trunc);
    out << text;
}

bool expect(bool condition, const char* what) {
    if (!condition) {
        std::cerr << "embedding guide: unexpected: " << what << '\n';
    }
    return condition;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "The program of docs/embedding.md: runs its steps and checks that every outcome is "
        "the one the guide describes."};
    std::optional<std::filesystem::path> work_directory;
    app.add_option("WORK_DIRECTORY", work_directory,
                   "Where to write the policy files, in WORK_DIRECTORY/policies (default: a "
                   "temporary directory removed at the end)");
    if (const std::optional<int> status = examples::parse_command_line(app, argc, argv)) {
        return *status;
    }
    // Without an argument, a directory of its own, removed when the program ends.
    std::optional<examples::TemporaryDirectory> temporary;
    if (!work_directory) {
        temporary.emplace("rebound-embedding-guide");
    }
    const std::filesystem::path work = temporary ? temporary->path() : *work_directory;
    const std::filesystem::path directory = work / "policies";
    std::filesystem::remove_all(directory);
    std::filesystem::create_directories(directory);
    write_file(directory / "payments.yaml", kPaymentsPolicies);
    bool ok = true;

    // guide: registry
    rebound::HandlerRegistry handlers;
    handlers.add<ApproveCase>();
    handlers.add<ShipOrder>();
    // guide: end

    // guide: store
    const auto report = [](const rebound::dsl::Diagnostics& diagnostics) {
        for (const rebound::dsl::Diagnostic& diagnostic : diagnostics) {
            std::cerr << rebound::dsl::format_diagnostic(diagnostic) << '\n';
        }
    };
    const rebound::dsl::DirectoryLoadOptions load_options{.handlers = &handlers};
    rebound::dsl::PolicyDirectoryStore store;
    if (!rebound::dsl::reload_policy_directory(store, directory, load_options, report)) {
        return 1;  // no valid policies at start-up: refuse to start
    }
    // guide: end

    // guide: testing
    // In a unit test: no real waiting, and the exact delays the policy asked for.
    rebound::testing::ManualClock clock;
    rebound::testing::RecordingSleeper sleeper(&clock);    // advances the clock by each wait
    rebound::testing::ScriptedRandomSource random({0.0});  // every jitter draw at its low end
    const rebound::RetryExecutor under_test(
        {.clock = &clock,
         .sleeper = &sleeper,
         .random = &random,
         .resolver = rebound::dsl::make_resolver(store, handlers, "payments")});
    const rebound::RunResult tested =
        under_test.run(ApproveCase::rebound_handler_name, ApproveCase{});
    // tested.attempts == 2, sleeper.delays() == {5ms}: the 10ms backoff under equal jitter, and
    // clock.now() is 5ms later than before the run.
    // guide: end
    ok &= expect(tested.attempts == 2, "the test run: 2 attempts");
    ok &= expect(sleeper.delays() == std::vector<rebound::Duration>{std::chrono::milliseconds(5)},
                 "the test run: one wait of 5ms");
    ok &= expect(clock.now().time_since_epoch() == std::chrono::milliseconds(5),
                 "the test run: the manual clock moved by the wait");

    // The guide's watcher has no on_reload; here it tells main() when the edit below is live.
    std::mutex reload_mutex;
    std::condition_variable reloaded;
    int reload_count = 0;
    rebound::dsl::PolicyFileWatcherOptions watcher_options;
    watcher_options.on_reload = [&](bool swapped) {
        std::lock_guard lock(reload_mutex);
        reload_count += swapped ? 1 : 0;
        reloaded.notify_all();
    };
    // guide: watcher
    rebound::dsl::PolicyFileWatcher watcher(store, directory, load_options, report,
                                            watcher_options);
    // guide: end

    // guide: executor
    rebound::RetryMetrics metrics;
    rebound::observability::JsonLogListener json_log(std::cout);
    ParkedOrders parked;
    const rebound::RetryExecutor executor(
        {.listeners = {&metrics, &json_log},
         .dead_letter_sink = &parked,
         .resolver = rebound::dsl::make_resolver(store, handlers, "payments")});
    // guide: end

    // guide: run
    const rebound::RunResult approved =
        executor.run(ApproveCase::rebound_handler_name, ApproveCase{}, {.command_id = "cmd-1"});
    std::cout << "ApproveCase: " << rebound::to_string(approved.outcome) << " after "
              << approved.attempts << " attempts under '" << approved.policy->name() << "' (via "
              << rebound::to_string(approved.via) << ")\n";

    const rebound::RunResult shipped =
        executor.run(ShipOrder::rebound_handler_name, ShipOrder{}, {.command_id = "order-77"});
    std::cout << "ShipOrder: " << rebound::to_string(shipped.outcome) << " after "
              << shipped.attempts << " attempts under '" << shipped.policy->name() << "' (via "
              << rebound::to_string(shipped.via) << ")\n";
    // guide: end
    ok &= expect(approved.succeeded() && approved.attempts == 2, "ApproveCase result");
    ok &= expect(approved.via == rebound::ResolvedVia::Annotation, "ApproveCase via annotation");
    ok &= expect(shipped.outcome == rebound::RetryOutcome::DeadLettered && shipped.attempts == 4,
                 "ShipOrder dead-lettered after 4 attempts");
    ok &= expect(shipped.via == rebound::ResolvedVia::Binding, "ShipOrder via binding");
    ok &= expect(parked.size() == 1, "one parked order");

    // guide: explain
    const auto snapshot = store.current();
    std::cout << rebound::to_string(
                     handlers.explain("orders.ShipOrder", snapshot->service("payments").get()))
              << '\n';
    // guide: end

    // An operator edits the file: background now gives up after 2 attempts. The watcher reloads
    // it; runs that start afterwards use the new policy.
    std::string edited(kPaymentsPolicies);
    edited.replace(edited.find("max_attempts: 4"), 15, "max_attempts: 2");
    write_file(directory / "payments.yaml.tmp", edited);
    std::filesystem::rename(directory / "payments.yaml.tmp", directory / "payments.yaml");
    {
        std::unique_lock lock(reload_mutex);
        ok &= expect(
            reloaded.wait_for(lock, std::chrono::seconds(10), [&] { return reload_count >= 1; }),
            "the watcher reloaded the edited file");
    }
    const rebound::RunResult after_reload =
        executor.run(ShipOrder::rebound_handler_name, ShipOrder{}, {.command_id = "order-78"});
    std::cout << "ShipOrder after reload: " << rebound::to_string(after_reload.outcome) << " after "
              << after_reload.attempts << " attempts\n";
    ok &= expect(after_reload.attempts == 2, "ShipOrder after reload: 2 attempts");

    // guide: metrics
    const std::string exposition = metrics.render();  // serve it at GET /metrics
    std::cout << exposition;
    // guide: end
    ok &= expect(exposition.find("rebound_runs_total{handler=\"orders.ShipOrder\","
                                 "reason=\"dead_lettered\"} 2") != std::string::npos,
                 "two dead-lettered ShipOrder runs counted");

    // guide: shutdown
    watcher.stop();  // or let the destructors run: the watcher first, then the store
    // guide: end
    std::cout << (ok ? "embedding guide: all steps behaved as documented\n"
                     : "embedding guide: FAILED\n");
    return ok ? 0 : 1;
}
