#include <catch2/catch.hpp>

#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "rebound/decision.hpp"
#include "rebound/dsl/policy_directory.hpp"
#include "rebound/dsl/policy_file_watcher.hpp"
#include "rebound/resilience_registry.hpp"
#include "rebound/testing.hpp"

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using rebound::dsl::DiagnosticCode;

namespace {

// A fresh directory per test, removed afterwards.
class TemporaryDirectory {
  public:
    explicit TemporaryDirectory(std::string_view name)
        : path_(fs::temp_directory_path() /
                ("rebound-policy-directory-" + std::to_string(::getpid()) + "-" +
                 std::string(name))) {
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TemporaryDirectory() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    const fs::path& path() const { return path_; }

    // Writes through a temporary name and a rename, as deployment tools do.
    void write(std::string_view name, std::string_view text) const {
        const fs::path temporary = path_ / (std::string(name) + ".partial");
        std::ofstream(temporary) << text;
        fs::rename(temporary, path_ / name);
    }

  private:
    fs::path path_;
};

constexpr std::string_view kPaymentsYaml = R"(rebound: 1
service: payments
policies:
  interactive:
    max_attempts: 3
  background:
    max_attempts: 5
handlers:
  ApproveCase: interactive
default: background
)";

constexpr std::string_view kOrdersDsl = R"(rebound 1
service orders

policy interactive {
  attempts 2
}

policy background {
  attempts 7
}

handler orders.* uses background
)";

constexpr std::string_view kBillingJson = R"({
  "rebound": 1,
  "service": "billing",
  "policies": { "interactive": { "max_attempts": 4 }, "background": { "max_attempts": 6 } }
})";

std::string codes(const rebound::dsl::Diagnostics& diagnostics) {
    std::string text;
    for (const auto& d : diagnostics) {
        text += std::string(rebound::dsl::code_id(d.code)) + " " + d.message + "\n";
    }
    return text;
}

}  // namespace

TEST_CASE("a directory of YAML, JSON and DSL files loads into one snapshot", "[directory]") {
    TemporaryDirectory dir("mixed");
    dir.write("payments.yaml", kPaymentsYaml);
    dir.write("orders.rebound", kOrdersDsl);
    dir.write("billing.json", kBillingJson);
    dir.write("README.txt", "not a policy file");

    const auto result = rebound::dsl::load_policy_directory(dir.path());
    INFO(codes(result.diagnostics));
    REQUIRE(result.directory);
    CHECK(result.directory->services().size() == 3);
    CHECK(result.directory->files().size() == 3);
    CHECK(result.directory->service("orders")->find("background")->max_attempts() == 7);
    CHECK(result.directory->service("billing")->find("interactive")->max_attempts() == 4);
    CHECK(result.directory->service("nothing") == nullptr);
}

TEST_CASE("a directory with a bad file, a duplicate service or no file has no snapshot",
          "[directory]") {
    TemporaryDirectory dir("bad");
    auto result = rebound::dsl::load_policy_directory(dir.path());
    CHECK_FALSE(result.directory);
    CHECK(codes(result.diagnostics).starts_with("RB109"));

    dir.write("payments.yaml", kPaymentsYaml);
    dir.write("payments-copy.yml", kPaymentsYaml);
    result = rebound::dsl::load_policy_directory(dir.path());
    CHECK_FALSE(result.directory);
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.diagnostics[0].code == DiagnosticCode::DuplicateKey);
    CHECK(result.diagnostics[0].file.ends_with("payments.yaml"));  // the second in name order
    CHECK(result.diagnostics[0].position.line == 2);               // at its `service` value
    CHECK(result.diagnostics[0].position.column == 10);
    CHECK(rebound::dsl::format_diagnostic(result.diagnostics[0])
              .find("payments.yaml:2:10: error: service 'payments' is already defined in ") !=
          std::string::npos);
    fs::remove(dir.path() / "payments-copy.yml");

    dir.write("orders.rebound", "rebound 1\nservice orders\npolicy p { attempts many }\n");
    result = rebound::dsl::load_policy_directory(dir.path());
    CHECK_FALSE(result.directory);
    REQUIRE_FALSE(result.diagnostics.empty());
    CHECK(result.diagnostics[0].file.ends_with("orders.rebound"));
    CHECK(result.diagnostics[0].position.line == 3);
}

TEST_CASE("unknown annotation tiers are reported at load with the handler name", "[directory]") {
    TemporaryDirectory dir("tiers");
    dir.write("payments.yaml", kPaymentsYaml);
    rebound::HandlerRegistry registry;
    registry.add({.name = "RiskBackfill", .tier = "batch"});
    registry.add({.name = "ApproveCase"});
    const auto result = rebound::dsl::load_policy_directory(dir.path(), {.handlers = &registry});
    CHECK_FALSE(result.directory);
    REQUIRE(result.diagnostics.size() == 1);
    CHECK(result.diagnostics[0].code == DiagnosticCode::UnknownPolicy);
    CHECK(result.diagnostics[0].message ==
          "handler 'RiskBackfill' is registered in code with tier 'batch', which is not a policy "
          "of service 'payments'");
}

TEST_CASE("an exact binding that names no registered handler is a warning with did-you-mean",
          "[directory]") {
    TemporaryDirectory dir("unmatched");
    dir.write("payments.yaml", R"(rebound: 1
service: payments
policies:
  interactive: {}
handlers:
  payments.captur: interactive
  payments.refund: interactive
  "jobs.*": interactive
)");
    rebound::HandlerRegistry registry;
    registry.add({.name = "payments.capture", .tier = "interactive"});
    registry.add({.name = "payments.refund"});

    const auto warned = rebound::dsl::load_policy_directory(dir.path(), {.handlers = &registry});
    INFO(codes(warned.diagnostics));
    CHECK(warned.directory != nullptr);  // a warning: the directory still loads
    REQUIRE(warned.diagnostics.size() == 1);
    const rebound::dsl::Diagnostic& d = warned.diagnostics[0];
    CHECK(d.code == DiagnosticCode::UnknownHandler);
    CHECK(d.severity == rebound::dsl::Severity::Warning);
    CHECK(d.position.line == 6);
    CHECK(d.position.column == 3);
    CHECK(d.message.find("handler 'payments.captur' is bound") != std::string::npos);
    CHECK(d.suggestion == "did you mean 'payments.capture'?");

    const auto strict = rebound::dsl::load_policy_directory(
        dir.path(), {.handlers = &registry, .strict_bindings = true});
    CHECK(strict.directory == nullptr);
    REQUIRE(strict.diagnostics.size() == 1);
    CHECK(strict.diagnostics[0].severity == rebound::dsl::Severity::Error);

    // Without a registry nothing can be checked.
    CHECK(rebound::dsl::load_policy_directory(dir.path()).diagnostics.empty());
}

TEST_CASE("reload keeps the last good snapshot and the resolver follows the store", "[directory]") {
    TemporaryDirectory dir("reload");
    dir.write("payments.yaml", kPaymentsYaml);
    rebound::HandlerRegistry registry;
    registry.add({.name = "RiskBackfill", .tier = "interactive"});
    rebound::dsl::PolicyDirectoryStore store;
    const rebound::dsl::DirectoryLoadOptions options{.handlers = &registry};
    CHECK(rebound::dsl::reload_policy_directory(store, dir.path(), options));
    const auto resolver = rebound::dsl::make_resolver(store, registry, "payments");
    CHECK(resolver("ApproveCase").policy->max_attempts() == 3);
    CHECK(resolver("RiskBackfill").via == rebound::ResolvedVia::Annotation);
    CHECK(resolver("Other").via == rebound::ResolvedVia::Default);

    dir.write("payments.yaml", "rebound: 1\nservice: payments\npolicies: {}\n");
    rebound::dsl::Diagnostics reported;
    CHECK_FALSE(rebound::dsl::reload_policy_directory(store, dir.path(), options,
                                                      [&](const auto& d) { reported = d; }));
    CHECK_FALSE(reported.empty());
    CHECK(resolver("ApproveCase").policy->max_attempts() == 3);  // last good

    std::string changed(kPaymentsYaml);
    changed.replace(changed.find("max_attempts: 3"), 15, "max_attempts: 9");
    dir.write("payments.yaml", changed);
    CHECK(rebound::dsl::reload_policy_directory(store, dir.path(), options));
    CHECK(resolver("ApproveCase").policy->max_attempts() == 9);
    CHECK(store.generation() == 2);
}

TEST_CASE("a single policy file serves the executor's resolver like a directory", "[directory]") {
    TemporaryDirectory dir("single-file");
    dir.write("payments.yaml", kPaymentsYaml);
    dir.write("notes.txt", "not a policy");
    rebound::HandlerRegistry registry;
    rebound::dsl::PolicyDirectoryStore store;
    CHECK(rebound::dsl::reload_policy_directory(store, dir.path() / "payments.yaml",
                                                {.handlers = &registry}));
    const auto resolver = rebound::dsl::make_resolver(store, registry, "payments");
    CHECK(resolver("ApproveCase").policy->max_attempts() == 3);
    CHECK(resolver("ApproveCase").via == rebound::ResolvedVia::Binding);
    REQUIRE(store.current() != nullptr);
    CHECK(store.current()->files() == std::vector<fs::path>{dir.path() / "payments.yaml"});

    const auto not_a_policy = rebound::dsl::load_policy_directory(dir.path() / "notes.txt");
    CHECK(not_a_policy.directory == nullptr);
    REQUIRE(not_a_policy.diagnostics.size() == 1);
    CHECK(not_a_policy.diagnostics.front().code == DiagnosticCode::UnreadableFile);
    CHECK(not_a_policy.diagnostics.front().message.find("not a policy file") != std::string::npos);
}

TEST_CASE("the watcher reloads a changed file and stops cleanly", "[directory][watcher]") {
    TemporaryDirectory dir("watch");
    dir.write("payments.yaml", kPaymentsYaml);
    rebound::dsl::PolicyDirectoryStore store;
    REQUIRE(rebound::dsl::reload_policy_directory(store, dir.path()));

    std::mutex mutex;
    std::condition_variable reloaded;
    int swaps = 0;
    rebound::dsl::PolicyFileWatcherOptions options;
    options.settle = 20ms;
    options.on_reload = [&](bool swapped) {
        std::lock_guard lock(mutex);
        swaps += swapped ? 1 : 0;
        reloaded.notify_all();
    };
    rebound::dsl::PolicyFileWatcher watcher(store, dir.path(), {}, {}, options);

    std::string changed(kPaymentsYaml);
    changed.replace(changed.find("max_attempts: 3"), 15, "max_attempts: 8");
    dir.write("payments.yaml", changed);
    {
        // Waits for the watcher thread's event, not for time to pass.
        std::unique_lock lock(mutex);
        REQUIRE(reloaded.wait_for(lock, 10s, [&] { return swaps > 0; }));
    }
    CHECK(store.current()->service("payments")->find("interactive")->max_attempts() == 8);
    watcher.stop();
    watcher.stop();  // idempotent
    const auto reloads = watcher.reloads();
    dir.write("payments.yaml", kPaymentsYaml);
    CHECK(watcher.reloads() == reloads);
}

TEST_CASE("stopping the watcher during a settle period returns at once without reloading",
          "[directory][watcher]") {
    TemporaryDirectory dir("watch-stop");
    dir.write("payments.yaml", kPaymentsYaml);
    rebound::dsl::PolicyDirectoryStore store;
    REQUIRE(rebound::dsl::reload_policy_directory(store, dir.path()));
    rebound::dsl::PolicyFileWatcherOptions options;
    options.settle = std::chrono::hours(1);  // a pending reload would wait an hour
    {
        rebound::dsl::PolicyFileWatcher watcher(store, dir.path(), {}, {}, options);
        dir.write("payments.yaml", kPaymentsYaml);
        // The destructor must wake the thread from poll() and join it; a hang fails by timeout.
    }
    CHECK(store.generation() == 1);
    CHECK_THROWS_AS(rebound::dsl::PolicyFileWatcher(store, dir.path() / "missing", {}),
                    std::system_error);
}

TEST_CASE("a reload in the middle of an outage keeps the budget drained and the breaker open",
          "[directory][resilience]") {
    constexpr std::string_view kLedger = R"(rebound: 1
service: ledger
breakers:
  ledger-db: { consecutive_failures: 2, open_for: 1m }
policies:
  interactive:
    max_attempts: 3
    retry_on: [transient]
    budget: { max_tokens: 10, token_ratio: 0.1 }
    breaker: ledger-db
default: interactive
)";
    TemporaryDirectory dir("outage");
    dir.write("ledger.yaml", kLedger);
    rebound::ResilienceRegistry resilience;
    rebound::dsl::DirectoryLoadOptions options;
    options.compile.resilience = &resilience;
    rebound::dsl::PolicyDirectoryStore store;
    REQUIRE(rebound::dsl::reload_policy_directory(store, dir.path(), options));
    const auto before = store.current()->service("ledger")->find("interactive");
    REQUIRE(before->breaker() != nullptr);
    // The outage: six failures drain the budget below half, two trip the breaker.
    rebound::testing::ScriptedRandomSource random{0.5};
    const auto failure = rebound::ErrorDescription::of(rebound::ErrorCategory::ConnectionLost);
    for (int i = 0; i < 6; ++i) {
        static_cast<void>(rebound::decide(*before, failure, rebound::AttemptContext{}, random));
    }
    const auto now = rebound::default_clock().now();
    for (int i = 0; i < 2; ++i) {
        before->breaker()->record_error(before->breaker()->acquire(now), failure, now);
    }
    REQUIRE(before->breaker()->snapshot(now).state == rebound::BreakerState::Open);

    // An operator doubles the budget and reloads during the outage.
    std::string changed(kLedger);
    changed.replace(changed.find("max_tokens: 10"), 14, "max_tokens: 20");
    dir.write("ledger.yaml", changed);
    REQUIRE(rebound::dsl::reload_policy_directory(store, dir.path(), options));
    const auto after = store.current()->service("ledger")->find("interactive");
    CHECK(after != before);
    CHECK(after->budget()->tokens() == Approx(8.0));  // 4 of 10 scaled to 20, not refilled
    CHECK(after->breaker() == before->breaker());
    CHECK_FALSE(after->breaker()->acquire(rebound::default_clock().now()).admitted);
    CHECK(rebound::decide(*after, failure, rebound::AttemptContext{}, random).reason ==
          rebound::DecisionReason::Throttled);
}
