// Example order service: loads its retry policies with rebound::dsl, then runs orders through the
// TransactionalRunner against a SQLite database (ODBC, a temporary file). A concurrent "inventory
// job" holds the write lock for a moment, so an order meets a real "database is locked" and is
// retried; a repeated command returns its first result from the command-id table; a duplicate
// import is a constraint violation that is not retried. Prints what happened.
//
//   rebound_example_order_service [--policy FILE] [--vendor-maps DIR]
//
// Without --policy the embedded default policy (the text below) is used.
#include <CLI/CLI.hpp>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>
#include <thread>

#include "common/command_line.hpp"
#include "common/temporary_directory.hpp"
#include "rebound/dsl/load.hpp"
#include "rebound/dsl/vendor_map_loader.hpp"
#include "rebound/odbc/command_deduplication.hpp"
#include "rebound/odbc/connection.hpp"
#include "rebound/odbc/transactional_runner.hpp"

namespace {

constexpr std::string_view kEmbeddedPolicy = R"(rebound: 1
service: order-service-embedded
policies:
  checkout:
    max_attempts: 6
    backoff: { type: exponential, initial: 40ms, multiplier: 2, max: 400ms }
    jitter: equal
    deadline: 5s
    attempt_timeout: 2s
    retry_on: [transient, commit_outcome_unknown]
    never_retry_on: [constraint_violation, syntax_error]
  import:
    max_attempts: 4
    backoff: { type: exponential, initial: 100ms, multiplier: 2, max: 1s }
    jitter: full
    retry_on: [transient]
handlers:
  orders.place: { policy: checkout, idempotent: true }
  orders.import: import
default: import
)";

struct Options {
    std::string policy_file;
    std::string vendor_maps = REBOUND_EXAMPLE_VENDOR_MAP_DIR;
};

// The command line's options, described for --help.
void add_options(CLI::App& app, Options& options) {
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // last wins
    app.add_option("--policy", options.policy_file,
                   "Policy file of the service (default: the policy embedded in this program)")
        ->type_name("FILE");
    app.add_option("--vendor-maps", options.vendor_maps,
                   "Directory of the vendor maps that classify the database's errors")
        ->type_name("DIR")
        ->capture_default_str();
}

std::shared_ptr<const rebound::PolicySet> load_policies(const Options& options) {
    rebound::dsl::LoadResult loaded =
        options.policy_file.empty()
            ? rebound::dsl::load_text(kEmbeddedPolicy, "<embedded>", rebound::dsl::Syntax::Yaml)
            : rebound::dsl::load_file(options.policy_file);
    for (const rebound::dsl::Diagnostic& diagnostic : loaded.diagnostics) {
        std::cerr << rebound::dsl::format_diagnostic(diagnostic, loaded.source) << '\n';
    }
    if (!loaded.policy_set) {
        throw std::runtime_error("the policy file has errors");
    }
    std::cout << "policies: service " << loaded.policy_set->service() << " from "
              << (options.policy_file.empty() ? "<embedded>" : options.policy_file) << '\n';
    return loaded.policy_set;
}

void print_report(std::string_view handler, const rebound::HandlerResolution& resolution,
                  const rebound::odbc::TransactionReport& report, std::string_view result) {
    std::cout << handler << " (policy " << resolution.policy->name() << " via "
              << rebound::to_string(resolution.via) << (resolution.idempotent ? ", idempotent" : "")
              << ")\n";
    for (const rebound::odbc::AttemptFailure& failure : report.failures) {
        const rebound::odbc::DiagnosticRecord* record = failure.failure.primary();
        std::cout << "  attempt " << failure.attempt
                  << " failed: " << rebound::to_string(failure.failure.category);
        if (record != nullptr) {
            std::cout << " (" << record->sqlstate << "/" << record->native_code << " \""
                      << record->message << "\")";
        }
        std::cout << " -> " << rebound::to_string(failure.decision.reason);
        if (failure.decision.retry) {
            std::cout << " after "
                      << std::chrono::duration_cast<std::chrono::milliseconds>(
                             failure.decision.delay)
                             .count()
                      << "ms";
        }
        std::cout << '\n';
    }
    std::cout << "  outcome: " << rebound::to_string(report.outcome) << " after " << report.attempts
              << " attempt(s)";
    if (!result.empty()) {
        std::cout << ", result " << result;
    }
    std::cout << '\n';
}

int run(const Options& options) {
    const auto policies = load_policies(options);
    const auto classifier = rebound::dsl::load_vendor_maps_or_throw(options.vendor_maps);
    const auto environment = rebound::odbc::Environment::create();

    const examples::TemporaryDirectory directory("rebound-order-service");
    // Busy timeout 1 ms: a locked database fails almost at once and the policy does the waiting.
    const std::string connection_string =
        "Driver={SQLite3};Database=" + (directory.path() / "orders.db").string() + ";Timeout=1";
    rebound::odbc::Connection connection(environment, classifier, connection_string);
    std::cout << "database: " << connection.dbms_name() << " at " << directory.path().string()
              << "/orders.db\n";
    connection.execute("CREATE TABLE stock (item TEXT PRIMARY KEY, quantity INTEGER NOT NULL)");
    connection.execute(
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL, quantity INTEGER)");
    connection.execute("INSERT INTO stock VALUES ('widget', 100)");
    const rebound::odbc::CommandDeduplication commands;
    commands.create_table(connection);

    const rebound::odbc::TransactionalRunner runner;
    int last_attempts = 0;
    const auto place_order = [&](const std::string& command_id, int quantity) {
        const rebound::HandlerResolution resolution = policies->resolve("orders.place");
        const auto result = runner.run(
            connection, *resolution.policy,
            {.handler = "orders.place", .idempotent = resolution.idempotent},
            [&](rebound::odbc::Connection& c, const rebound::odbc::TransactionAttempt&) {
                return commands.run_once(c, command_id, [&] {
                    c.execute("UPDATE stock SET quantity = quantity - ? WHERE item = 'widget'",
                              {std::int64_t{quantity}});
                    c.execute("INSERT INTO orders (item, quantity) VALUES ('widget', ?)",
                              {std::int64_t{quantity}});
                    return "order-" + c.query_value("SELECT max(id) FROM orders").value_or("?");
                });
            });
        print_report("orders.place " + command_id, resolution, result,
                     result.value ? *result.value : "");
        last_attempts = result.attempts;
        return result.succeeded();
    };

    bool ok = place_order("command-1", 2);

    // The inventory job takes the write lock and keeps it for 150 ms; the next order meets
    // "database is locked" and retries with the checkout policy's backoff until it is free.
    {
        rebound::odbc::Connection inventory(environment, classifier, connection_string);
        inventory.set_autocommit(false);
        inventory.execute("UPDATE stock SET quantity = quantity + 10 WHERE item = 'widget'");
        std::thread release([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(150));
            inventory.commit();
        });
        ok = place_order("command-2", 3) && ok;
        release.join();
    }
    const bool retried = last_attempts > 1;

    // A client resends command-1: the command-id table returns the first result.
    ok = place_order("command-1", 2) && ok;

    // An import that repeats an order id: a constraint violation, never retried.
    const rebound::HandlerResolution import = policies->resolve("orders.import");
    const auto imported = runner.run(
        connection, *import.policy, {.handler = "orders.import", .idempotent = import.idempotent},
        [&](rebound::odbc::Connection& c, const rebound::odbc::TransactionAttempt&) {
            c.execute("INSERT INTO orders (id, item, quantity) VALUES (1, 'widget', 5)");
        });
    print_report("orders.import", import, imported, "");

    std::cout << "stock: " << connection.query_value("SELECT quantity FROM stock").value_or("?")
              << " widgets, orders: "
              << connection.query_value("SELECT count(*) FROM orders").value_or("?") << '\n';
    const bool expected =
        ok && retried && imported.outcome == rebound::odbc::TransactionOutcome::NonRetryable;
    std::cout << (expected ? "order service: all transactions behaved as expected\n"
                           : "order service: unexpected outcome\n");
    return expected ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Example order service: runs orders through the ODBC TransactionalRunner against "
        "SQLite, under the retry policies of a policy file."};
    Options options;
    add_options(app, options);
    if (const std::optional<int> status = examples::parse_command_line(app, argc, argv)) {
        return *status;
    }
    try {
        return run(options);
    } catch (const std::exception& error) {
        std::cerr << "order service: " << error.what() << '\n';
        return 2;
    }
}
