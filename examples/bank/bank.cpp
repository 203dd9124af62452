// Example bank service, the README's main job. Worker threads move money between accounts through
// the ODBC TransactionalRunner; each handler type declares its name and retry tier next to it
// (REBOUND_HANDLER) and finds its policy through the HandlerRegistry and the service's policy
// file. Transfers lock their two accounts in a random order, so under load they meet real
// "database is locked" (SQLite), deadlocks (MariaDB, PostgreSQL) and serialization failures
// (PostgreSQL), and are retried. Every transfer records its result in the command-id table in the
// same transaction, which makes it idempotent. At the end the service prints a summary table, the
// invariant check (the money total is unchanged and the balances are exactly what the recorded
// transfers add up to), and the Prometheus metrics the runner's RetryMetrics listener counted.
//
//   rebound_example_bank [--policy FILE] [--dsn CONNECTION_STRING] [--threads N]
//                        [--transfers N] [--accounts N] [--vendor-maps DIR]
//
// Without --policy the embedded copy of examples/bank/bank.yaml is used; without --dsn a SQLite
// database in a temporary file (ODBC driver SQLite3, WAL). Defaults: 8 threads, 100 transfers
// each, 10 accounts. Exit status 0 when the invariant holds, 1 when not, 2 on a setup error. With
// --dsn (e.g. "Driver={PostgreSQL Unicode};Server=...;Database=...;Uid=...;Pwd=...") the tables
// bank_accounts and bank_commands of that database are dropped and created again.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bank/embedded_policy.hpp"
#include "common/command_line.hpp"
#include "common/temporary_directory.hpp"
#include "rebound/dsl/load.hpp"
#include "rebound/dsl/vendor_map_loader.hpp"
#include "rebound/handler_registry.hpp"
#include "rebound/odbc/command_deduplication.hpp"
#include "rebound/odbc/connection.hpp"
#include "rebound/odbc/transactional_runner.hpp"
#include "rebound/retry_metrics.hpp"

namespace bank {

using rebound::odbc::Connection;

constexpr std::int64_t kInitialBalance = 1000;
const rebound::odbc::CommandDeduplication command_table("bank_commands");

struct TransferRequest {
    std::string command_id;
    std::int64_t from = 0;
    std::int64_t to = 0;
    std::int64_t amount = 0;
    bool debit_first = true;  // the account locked first: no fixed order, on purpose
};

// Moves money between two accounts, once per command id.
struct Transfer {
    REBOUND_HANDLER("bank.transfer", "payments");
    static constexpr bool rebound_idempotent = true;  // through the command-id table

    std::string operator()(Connection& connection, const TransferRequest& request) const {
        return command_table.run_once(connection, request.command_id, [&] {
            const auto move = [&](std::int64_t account, std::int64_t delta) {
                connection.execute("UPDATE bank_accounts SET balance = balance + ? WHERE id = ?",
                                   {delta, account});
            };
            if (request.debit_first) {
                move(request.from, -request.amount);
                move(request.to, request.amount);
            } else {
                move(request.to, request.amount);
                move(request.from, -request.amount);
            }
            return std::to_string(request.from) + ":" + std::to_string(request.to) + ":" +
                   std::to_string(request.amount);
        });
    }
};

// Reads the money total: the auditor's view of the invariant.
struct Audit {
    REBOUND_HANDLER("bank.audit", "reporting");

    std::int64_t operator()(Connection& connection) const {
        return std::stoll(
            connection.query_value("SELECT SUM(balance) FROM bank_accounts").value_or("0"));
    }
};

struct Options {
    std::string policy_file;
    std::string dsn;
    std::string vendor_maps = REBOUND_EXAMPLE_VENDOR_MAP_DIR;
    int threads = 8;
    int transfers = 100;  // per thread
    int accounts = 10;
};

// The command line's options, described for --help.
void add_options(CLI::App& app, Options& options) {
    constexpr int kMax = std::numeric_limits<int>::max();
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // last wins
    app.add_option("--policy", options.policy_file,
                   "Policy file of the service (default: the embedded copy of "
                   "examples/bank/bank.yaml)")
        ->type_name("FILE");
    app.add_option("--dsn", options.dsn,
                   "ODBC connection string of the database whose tables bank_accounts and "
                   "bank_commands are dropped and created again (default: SQLite in a temporary "
                   "file)")
        ->type_name("CONNECTION_STRING");
    app.add_option("--threads", options.threads, "Worker threads")
        ->check(examples::decimal_whole_number<int>())
        ->check(CLI::Range(1, kMax))
        ->capture_default_str();
    app.add_option("--transfers", options.transfers, "Transfers per thread")
        ->check(examples::decimal_whole_number<int>())
        ->check(CLI::Range(1, kMax))
        ->capture_default_str();
    app.add_option("--accounts", options.accounts, "Accounts (1 counts as 2: a transfer needs two)")
        ->check(examples::decimal_whole_number<int>())
        ->check(CLI::Range(1, kMax))
        ->capture_default_str();
    app.add_option("--vendor-maps", options.vendor_maps,
                   "Directory of the vendor maps that classify the database's errors")
        ->type_name("DIR")
        ->capture_default_str();
}

std::shared_ptr<const rebound::PolicySet> load_policies(const Options& options) {
    rebound::dsl::LoadResult loaded =
        options.policy_file.empty()
            ? rebound::dsl::load_text(kEmbeddedPolicy, "<embedded bank.yaml>",
                                      rebound::dsl::Syntax::Yaml)
            : rebound::dsl::load_file(options.policy_file);
    for (const rebound::dsl::Diagnostic& diagnostic : loaded.diagnostics) {
        std::cerr << rebound::dsl::format_diagnostic(diagnostic, loaded.source) << '\n';
    }
    if (!loaded.policy_set) {
        throw std::runtime_error("the policy file has errors");
    }
    std::cout << "policies: service " << loaded.policy_set->service() << " from "
              << (options.policy_file.empty() ? "<embedded bank.yaml>" : options.policy_file)
              << '\n';
    return loaded.policy_set;
}

// The service: its registered handlers, policies, and the runner they share.
class Service {
  public:
    // The runner tells `metrics` the events of every transaction, as any executor does.
    Service(std::shared_ptr<const rebound::PolicySet> policies, rebound::RetryListener& metrics)
        : policies_(std::move(policies)), runner_({.listeners = {&metrics}}) {
        handlers_.add<Transfer>();
        handlers_.add<Audit>();
        for (const rebound::UnknownTier& unknown : handlers_.unknown_tiers(*policies_)) {
            std::cerr << "warning: handler '" << unknown.handler << "' names tier '" << unknown.tier
                      << "', which the policy file does not define\n";
        }
        for (std::string_view name :
             {Transfer::rebound_handler_name, Audit::rebound_handler_name}) {
            std::cout << rebound::to_string(handlers_.explain(name, policies_.get())) << '\n';
        }
    }

    // Runs handler `Handler` in a transaction under its policy and idempotency (the registry's
    // resolution); returns the runner's result.
    template <class Handler, class... Arguments>
    auto run(Connection& connection, const Arguments&... arguments) const {
        constexpr std::string_view kName = Handler::rebound_handler_name;
        rebound::odbc::TransactionOptions options;
        options.handler = std::string(kName);
        // PostgreSQL at REPEATABLE READ: a concurrent update is a serialization failure (40001).
        if (connection.vendor() == rebound::Vendor::PostgreSql) {
            options.isolation = rebound::odbc::IsolationLevel::RepeatableRead;
        }
        return runner_.run(connection, handlers_.resolve(kName, policies_.get()), options,
                           [&](Connection& c, const rebound::odbc::TransactionAttempt&) {
                               return Handler{}(c, arguments...);
                           });
    }

  private:
    std::shared_ptr<const rebound::PolicySet> policies_;
    rebound::HandlerRegistry handlers_;
    rebound::odbc::TransactionalRunner runner_;
};

// What the workers did, added up.
struct Tally {
    std::int64_t transfers = 0;
    std::int64_t committed = 0;
    std::int64_t attempts = 0;
    std::int64_t retries = 0;
    std::map<std::string, std::int64_t> retries_by_reason;
    std::map<std::string, std::int64_t> stopped_by_outcome;  // runs that did not commit
    std::vector<std::string> stopped;                        // what stopped them, the first few
};

std::vector<TransferRequest> plan(int worker, const Options& options) {
    std::mt19937 random(static_cast<std::uint32_t>(std::random_device{}()));
    std::uniform_int_distribution<std::int64_t> account(1, options.accounts);
    std::uniform_int_distribution<std::int64_t> amount(1, 100);
    std::bernoulli_distribution coin;
    std::vector<TransferRequest> requests;
    for (int i = 0; i < options.transfers; ++i) {
        TransferRequest request;
        request.command_id = "transfer-" + std::to_string(worker) + "-" + std::to_string(i);
        request.from = account(random);
        do {
            request.to = account(random);
        } while (request.to == request.from);
        request.amount = amount(random);
        request.debit_first = coin(random);
        requests.push_back(std::move(request));
    }
    return requests;
}

void create_schema(Connection& connection, int accounts) {
    connection.execute("DROP TABLE IF EXISTS bank_accounts");
    connection.execute("DROP TABLE IF EXISTS " + command_table.table());
    connection.execute(
        "CREATE TABLE bank_accounts (id INTEGER PRIMARY KEY, balance BIGINT NOT NULL)");
    for (std::int64_t id = 1; id <= accounts; ++id) {
        connection.execute("INSERT INTO bank_accounts (id, balance) VALUES (?, ?)",
                           {id, kInitialBalance});
    }
    command_table.create_table(connection);
}

// True when the balances are exactly the initial ones plus the recorded transfers: a transfer
// applied twice, or applied without its record, breaks this.
bool balances_match_records(Connection& connection, int accounts) {
    std::vector<std::int64_t> expected(static_cast<std::size_t>(accounts) + 1, kInitialBalance);
    for (const rebound::odbc::SqlRow& row :
         connection.query("SELECT result FROM " + command_table.table())) {
        std::istringstream fields(row.at(0).value_or(""));
        std::int64_t from = 0;
        std::int64_t to = 0;
        std::int64_t amount = 0;
        char separator = 0;
        fields >> from >> separator >> to >> separator >> amount;
        if (from < 1 || from > accounts || to < 1 || to > accounts) {
            return false;
        }
        expected[static_cast<std::size_t>(from)] -= amount;
        expected[static_cast<std::size_t>(to)] += amount;
    }
    for (const rebound::odbc::SqlRow& row :
         connection.query("SELECT id, balance FROM bank_accounts")) {
        const auto id = static_cast<std::size_t>(std::stoll(row.at(0).value_or("0")));
        if (id >= expected.size() || std::stoll(row.at(1).value_or("0")) != expected[id]) {
            return false;
        }
    }
    return true;
}

void print_summary(const Tally& tally, double seconds) {
    const auto row = [](std::string_view label, auto value) {
        std::cout << "  " << std::left << std::setw(36) << label << std::right << std::setw(8)
                  << value << '\n';
    };
    std::cout << "\nsummary (" << std::fixed << std::setprecision(2) << seconds << " s)\n";
    row("transfers", tally.transfers);
    row("committed", tally.committed);
    row("attempts", tally.attempts);
    row("retries", tally.retries);
    for (const auto& [reason, count] : tally.retries_by_reason) {
        row("  retried on " + reason, count);
    }
    const auto stopped = [&](std::string_view outcome) {
        const auto found = tally.stopped_by_outcome.find(std::string(outcome));
        return found == tally.stopped_by_outcome.end() ? std::int64_t{0} : found->second;
    };
    row("exhausted", stopped("exhausted"));
    for (const auto& [outcome, count] : tally.stopped_by_outcome) {
        if (outcome != "exhausted") {
            row("stopped: " + outcome, count);
        }
    }
    for (const std::string& description : tally.stopped) {
        std::cout << "  not committed: " << description << '\n';
    }
}

int run(const Options& options) {
    const auto policies = load_policies(options);
    const auto classifier = rebound::dsl::load_vendor_maps_or_throw(options.vendor_maps);
    const auto environment = rebound::odbc::Environment::create();

    std::optional<examples::TemporaryDirectory> directory;
    std::string dsn = options.dsn;
    if (dsn.empty()) {
        directory.emplace("rebound-bank");
        // Busy timeout 1 ms: a locked database fails almost at once; the policy does the waiting.
        // WAL with synchronous=NORMAL commits without an fsync each: with the rollback journal a
        // commit cost about 15 ms here, and a transfer could starve behind the others' commits.
        dsn = "Driver={SQLite3};Database=" + (directory->path() / "bank.db").string() +
              ";Timeout=1;JournalMode=WAL;SyncPragma=NORMAL";
    }
    Connection setup(environment, classifier, dsn);
    std::cout << "database: " << setup.dbms_name()
              << (directory ? " (temporary file " + (directory->path() / "bank.db").string() + ")"
                            : std::string())
              << '\n';
    create_schema(setup, options.accounts);

    rebound::RetryMetrics metrics;
    const Service service(policies, metrics);
    const std::int64_t total_before = service.run<Audit>(setup).value.value_or(-1);

    std::mutex mutex;
    Tally tally;
    std::vector<std::string> worker_errors;
    const auto started = std::chrono::steady_clock::now();
    {
        std::vector<std::jthread> workers;
        workers.reserve(static_cast<std::size_t>(options.threads));
        for (int worker = 0; worker < options.threads; ++worker) {
            workers.emplace_back([&, worker] {
                try {
                    Connection connection(environment, classifier, dsn);
                    for (const TransferRequest& request : plan(worker, options)) {
                        const auto result = service.run<Transfer>(connection, request);
                        const std::lock_guard lock(mutex);
                        ++tally.transfers;
                        tally.attempts += result.attempts;
                        tally.committed += result.succeeded() ? 1 : 0;
                        for (const rebound::odbc::AttemptFailure& failure : result.failures) {
                            if (failure.decision.retry) {
                                ++tally.retries;
                                ++tally.retries_by_reason[std::string(
                                    rebound::to_string(failure.failure.category))];
                            }
                        }
                        if (!result.succeeded()) {
                            ++tally.stopped_by_outcome[std::string(
                                rebound::to_string(result.outcome))];
                            const rebound::odbc::AttemptFailure* last = result.last_failure();
                            if (tally.stopped.size() < 5) {
                                tally.stopped.push_back(
                                    request.command_id + " " +
                                    std::string(rebound::to_string(result.outcome)) + " after " +
                                    std::to_string(result.attempts) + " attempts" +
                                    (last != nullptr ? ": " + last->failure.summary() : ""));
                            }
                        }
                    }
                } catch (const std::exception& error) {
                    const std::lock_guard lock(mutex);
                    worker_errors.push_back(error.what());
                }
            });
        }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    print_summary(tally, seconds);
    for (const std::string& error : worker_errors) {
        std::cout << "worker stopped: " << error << '\n';
    }

    const auto audit = service.run<Audit>(setup);
    const std::int64_t total_after = audit.value.value_or(-1);
    const std::int64_t recorded = std::stoll(
        setup.query_value("SELECT COUNT(*) FROM " + command_table.table()).value_or("-1"));
    const bool consistent = balances_match_records(setup, options.accounts);
    // The attempts the runner told the metrics of are the attempts of the transfers' reports.
    const bool counted = metrics.attempts(Transfer::rebound_handler_name) ==
                         static_cast<std::uint64_t>(tally.attempts);
    const bool ok = worker_errors.empty() && total_before == total_after &&
                    recorded == tally.committed && consistent &&
                    tally.attempts == tally.transfers + tally.retries && counted;
    std::cout << "invariant: total " << total_before << " before, " << total_after << " after; "
              << recorded << " transfers recorded for " << tally.committed << " committed; "
              << "balances " << (consistent ? "match" : "do not match")
              << " the records; attempts = transfers + retries: "
              << (tally.attempts == tally.transfers + tally.retries ? "yes" : "no")
              << "; metrics count them: " << (counted ? "yes" : "no") << " -> "
              << (ok ? "OK" : "VIOLATED") << '\n';
    std::cout << "\n# Prometheus metrics (rebound::RetryMetrics)\n" << metrics.render();
    return ok ? 0 : 1;
}

}  // namespace bank

int main(int argc, char** argv) {
    CLI::App app{
        "Example bank service: worker threads move money between accounts through the ODBC "
        "TransactionalRunner, under the retry policies of a policy file."};
    bank::Options options;
    bank::add_options(app, options);
    if (const std::optional<int> status = examples::parse_command_line(app, argc, argv)) {
        return *status;
    }
    options.accounts = std::max(2, options.accounts);  // a transfer needs two accounts
    try {
        return bank::run(options);
    } catch (const std::exception& error) {
        std::cerr << "bank: " << error.what() << '\n';
        return 2;
    }
}
