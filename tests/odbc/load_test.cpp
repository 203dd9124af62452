// Load test per database: 8 threads make 200 transfers each between 10 accounts through the
// TransactionalRunner with a jittered policy. Each transfer locks its two accounts in a random
// order, so real deadlocks (PostgreSQL, MariaDB), serialization failures (PostgreSQL at
// REPEATABLE READ) and "database is locked" (SQLite) happen and are retried.
//
// Checked afterwards: the money total is unchanged; the command-id table holds every transfer
// exactly once, and the balances equal the initial ones plus the transfers it records (a transfer
// applied twice, or applied without its record, would break that); replaying transfers with the
// same command ids changes nothing; attempts = transfers + retries; the retries followed exactly
// the errors the database is expected to raise (deadlock and serialization on PostgreSQL, deadlock
// or lock timeout on MariaDB, lock timeout on SQLite).
//
// The same load with a fault injected halfway (PostgreSQL, MariaDB; docs/odbc.md "Faults under
// load"): once half the transfers have committed, the harness's server crashes and comes back after
// 2 s (tests/odbc/database-server.sh restart), or every session of the load is killed once
// (pg_terminate_backend, KILL). The same checks hold, and also: every thread ends before its
// deadline, sessions were reopened, and each transfer whose commit outcome was unknown is
// recorded exactly once. The attempts per category are printed and written to
// REBOUND_DATABASE_STATE_DIR/fault-load-DATABASE-FAULT.txt.
#include <algorithm>
#include <array>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "database_test_support.hpp"
#include "rebound/odbc/command_deduplication.hpp"
#include "rebound/odbc/transactional_runner.hpp"
#include "run_command.hpp"
#include "server_scenarios.hpp"

namespace rebound::testing {
namespace {

using odbc::Connection;
using odbc::TransactionAttempt;

constexpr int kThreads = 8;
constexpr int kTransfersPerThread = 200;
constexpr int kAccounts = 10;
constexpr std::int64_t kInitialBalance = 1000;
// Every thread of a load must have ended by then (ctest stops the test at 60 s).
constexpr std::chrono::seconds kThreadDeadline{40};

struct Transfer {
    std::string command_id;
    std::int64_t from = 0;
    std::int64_t to = 0;
    std::int64_t amount = 0;
    bool debit_first = true;  // which account is locked first
};

// Both load policies: exponential waits from 1 ms up to `longest_wait`, with full jitter, on
// transient errors.
PolicyBuilder transfer_policy(std::string name, int max_attempts,
                              std::chrono::milliseconds longest_wait) {
    PolicyBuilder builder(std::move(name));
    builder.max_attempts(max_attempts)
        .backoff(Backoff::exponential(std::chrono::milliseconds(1), 2.0, longest_wait))
        .jitter(Jitter::full())
        .retry_on(Matcher::transient());
    return builder;
}

// Many attempts with short jittered waits: under this contention a transfer may lose several
// times in a row, and every one must commit in the end.
std::shared_ptr<const Policy> load_policy() {
    return transfer_policy("bank-load", 60, std::chrono::milliseconds(40)).build();
}

// Under faults a transfer must outlast a server that is down for 2 s and then recovers: waits
// grow to 100 ms, the attempts cover several seconds, and a deadline bounds each transfer. A
// commit whose outcome is unknown is retried: the command-id table makes that safe.
std::shared_ptr<const Policy> fault_policy() {
    return transfer_policy("bank-load-faults", 400, std::chrono::milliseconds(100))
        .deadline(std::chrono::seconds(20))
        .attempt_timeout(std::chrono::seconds(5))
        .retry_on(Matcher::of_category(ErrorCategory::CommitOutcomeUnknown))
        .build();
}

std::vector<Transfer> plan_transfers(int thread) {
    std::mt19937 random(static_cast<std::uint32_t>(1234 + thread));
    std::uniform_int_distribution<std::int64_t> account(1, kAccounts);
    std::uniform_int_distribution<std::int64_t> amount(1, 50);
    std::bernoulli_distribution coin;
    std::vector<Transfer> transfers;
    for (int i = 0; i < kTransfersPerThread; ++i) {
        Transfer transfer;
        transfer.command_id = "transfer-" + std::to_string(thread) + "-" + std::to_string(i);
        transfer.from = account(random);
        do {
            transfer.to = account(random);
        } while (transfer.to == transfer.from);
        transfer.amount = amount(random);
        transfer.debit_first = coin(random);
        transfers.push_back(std::move(transfer));
    }
    return transfers;
}

// The transfer's work inside one attempt; its result (`from:to:amount`) goes to the command table.
std::string apply_transfer(Connection& connection, const odbc::CommandDeduplication& commands,
                           const Transfer& transfer) {
    return commands.run_once(connection, transfer.command_id, [&] {
        const auto move = [&](std::int64_t account, std::int64_t delta) {
            connection.execute("UPDATE rb_load_accounts SET balance = balance + ? WHERE id = ?",
                               {delta, account});
        };
        if (transfer.debit_first) {
            move(transfer.from, -transfer.amount);
            move(transfer.to, transfer.amount);
        } else {
            move(transfer.to, transfer.amount);
            move(transfer.from, -transfer.amount);
        }
        return std::to_string(transfer.from) + ":" + std::to_string(transfer.to) + ":" +
               std::to_string(transfer.amount);
    });
}

struct LoadCounts {
    std::int64_t transfers = 0;
    std::int64_t attempts = 0;
    std::int64_t retries = 0;
    std::int64_t failed = 0;
    std::map<ErrorCategory, std::int64_t> retries_by_category;
    std::map<ErrorCategory, std::int64_t> failures_by_category;  // every failed attempt
    std::int64_t connect_failures = 0;      // failed attempts that could not open a session
    std::int64_t reconnects = 0;            // retries that started on a fresh session
    std::set<std::string> outcome_unknown;  // command ids with a commit of unknown outcome
    std::vector<std::string> failures;      // summaries of runs that did not succeed
};

// A fault injected into the load once half of its transfers have committed.
struct LoadFault {
    std::string name;  // `restart`, `kill`
    std::function<void()> inject;
};

// The error categories a database's load must produce: each of `all_of` and at least one of
// `any_of` (when not empty), and none outside these and `may_also`.
struct ExpectedRetries {
    std::vector<ErrorCategory> all_of;
    std::vector<ErrorCategory> any_of;
    std::vector<ErrorCategory> may_also;  // allowed, not required
};

// What one transfer's run adds to the counts.
void count_transfer(const Transfer& transfer, const odbc::TransactionReport& result,
                    LoadCounts& counts) {
    ++counts.transfers;
    counts.attempts += result.attempts;
    for (const odbc::AttemptFailure& failure : result.failures) {
        ++counts.failures_by_category[failure.failure.category];
        if (failure.failure.phase == DatabasePhase::Connect) {
            ++counts.connect_failures;
        }
        if (failure.failure.category == ErrorCategory::CommitOutcomeUnknown) {
            counts.outcome_unknown.insert(transfer.command_id);
        }
        if (failure.decision.retry) {
            ++counts.retries;
            ++counts.retries_by_category[failure.failure.category];
            counts.reconnects += failure.reconnect_next ? 1 : 0;
        }
    }
    if (!result.succeeded()) {
        ++counts.failed;
        const odbc::AttemptFailure* last = result.last_failure();
        counts.failures.push_back(transfer.command_id + ": " +
                                  std::string(rebound::to_string(result.outcome)) +
                                  (last != nullptr ? " " + last->failure.summary() : ""));
    }
}

// One thread's 200 transfers on a connection of its own.
void run_transfers(const std::string& connection_string, int thread, const Policy& policy,
                   const odbc::TransactionalRunner& runner,
                   std::optional<odbc::IsolationLevel> isolation, std::stop_token stop,
                   std::mutex& mutex, LoadCounts& counts, std::condition_variable& progress) {
    const odbc::CommandDeduplication commands("rb_load_commands");
    Connection connection = open_connection(connection_string);
    for (const Transfer& transfer : plan_transfers(thread)) {
        odbc::TransactionOptions options;
        options.handler = "bank.transfer";
        options.idempotent = true;
        options.isolation = isolation;
        options.stop = stop;
        const auto result =
            runner.run(connection, policy, options, [&](Connection& c, const TransactionAttempt&) {
                return apply_transfer(c, commands, transfer);
            });
        const std::lock_guard lock(mutex);
        count_transfer(transfer, result, counts);
        progress.notify_all();
    }
}

// Writes the counts of a fault run where the closing note of a test run can read them.
void record_fault_counts(const std::string& database, const LoadFault& fault,
                         const std::string& summary) {
    const std::filesystem::path file = std::filesystem::path(REBOUND_DATABASE_STATE_DIR) /
                                       ("fault-load-" + database + "-" + fault.name + ".txt");
    std::ofstream(file) << summary << '\n';
}

void run_bank_load(const std::string& connection_string, const std::string& database,
                   std::optional<odbc::IsolationLevel> isolation,
                   const ExpectedRetries& expected_retries,
                   const std::optional<LoadFault>& fault = std::nullopt) {
    const odbc::CommandDeduplication commands("rb_load_commands");
    {
        Connection admin = open_connection(connection_string);
        admin.execute("DROP TABLE IF EXISTS rb_load_accounts");
        admin.execute("DROP TABLE IF EXISTS rb_load_commands");
        admin.execute(
            "CREATE TABLE rb_load_accounts (id INTEGER PRIMARY KEY, balance BIGINT NOT NULL)");
        for (std::int64_t id = 1; id <= kAccounts; ++id) {
            admin.execute("INSERT INTO rb_load_accounts (id, balance) VALUES (?, ?)",
                          {id, kInitialBalance});
        }
        commands.create_table(admin);
    }

    const std::shared_ptr<const Policy> policy = fault ? fault_policy() : load_policy();
    const odbc::TransactionalRunner runner;
    std::mutex mutex;
    std::condition_variable progress;
    LoadCounts counts;
    int threads_done = 0;
    std::vector<std::string> thread_errors;
    std::vector<std::string> fault_errors;
    std::stop_source stop;
    const auto started = std::chrono::steady_clock::now();
    const auto deadline = started + kThreadDeadline;
    std::optional<std::chrono::duration<double>> fault_seconds;
    {
        std::vector<std::thread> threads;
        for (int thread = 0; thread < kThreads; ++thread) {
            threads.emplace_back([&, thread] {
                try {
                    run_transfers(connection_string, thread, *policy, runner, isolation,
                                  stop.get_token(), mutex, counts, progress);
                } catch (const std::exception& error) {
                    const std::lock_guard lock(mutex);
                    thread_errors.push_back(error.what());
                }
                const std::lock_guard lock(mutex);
                ++threads_done;
                progress.notify_all();
            });
        }
        if (fault) {
            threads.emplace_back([&] {
                {
                    std::unique_lock lock(mutex);
                    progress.wait(lock, [&] {
                        return counts.transfers >= kThreads * kTransfersPerThread / 2 ||
                               threads_done == kThreads;
                    });
                }
                const auto begun = std::chrono::steady_clock::now();
                try {
                    fault->inject();
                } catch (const std::exception& error) {
                    const std::lock_guard lock(mutex);
                    fault_errors.push_back(error.what());
                }
                const std::lock_guard lock(mutex);
                fault_seconds = std::chrono::steady_clock::now() - begun;
            });
        }
        std::unique_lock lock(mutex);
        const bool all_done =
            progress.wait_until(lock, deadline, [&] { return threads_done == kThreads; });
        if (!all_done) {
            // A thread stuck past its deadline fails the test; the stop ends its waits so that
            // the join below returns unless a driver call itself hangs (ctest's timeout then).
            FAIL_CHECK(kThreads - threads_done << " thread(s) still running "
                                               << kThreadDeadline.count() << " s after the start");
            stop.request_stop();
        }
        lock.unlock();
        for (std::thread& thread : threads) {
            thread.join();
        }
    }
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started);
    std::ostringstream summary;
    summary << database << " load" << (fault ? " with " + fault->name : std::string()) << ": "
            << counts.transfers << " transfers, " << counts.attempts << " attempts, "
            << counts.retries << " retries";
    for (const auto& [category, count] : counts.retries_by_category) {
        summary << ", " << to_string(category) << " " << count;
    }
    summary << ", " << counts.failed << " failed, " << seconds.count() << " s";
    if (fault) {
        summary << "; failed attempts by category:";
        for (const auto& [category, count] : counts.failures_by_category) {
            summary << " " << to_string(category) << " " << count;
        }
        summary << "; " << counts.connect_failures << " failed to connect, " << counts.reconnects
                << " retries on a fresh session, " << counts.outcome_unknown.size()
                << " transfers with a commit of unknown outcome; the fault took "
                << (fault_seconds ? fault_seconds->count() : -1.0) << " s";
        record_fault_counts(database, *fault, summary.str());
    }
    std::cout << summary.str() << std::endl;
    INFO(summary.str());
    for (const std::string& error : thread_errors) {
        FAIL_CHECK("thread stopped: " << error);
    }
    for (const std::string& error : fault_errors) {
        FAIL_CHECK("the fault could not be injected: " << error);
    }
    if (fault) {
        CHECK(fault_seconds.has_value());
        // Sessions died and were replaced: the reconnect path ran.
        CHECK(counts.reconnects > 0);
        CHECK(std::any_of(counts.retries_by_category.begin(), counts.retries_by_category.end(),
                          [](const auto& entry) {
                              return restart_scope(entry.first) == RestartScope::Connection;
                          }));
    }
    for (const std::string& failure : counts.failures) {
        FAIL_CHECK("transfer did not commit: " << failure);
    }
    CHECK(counts.transfers == kThreads * kTransfersPerThread);
    CHECK(counts.failed == 0);
    CHECK(counts.attempts == counts.transfers + counts.retries);
    // The scenario is meant to make the runner meet the database's own concurrency errors.
    CHECK(counts.retries > 0);
    const auto retried = [&](ErrorCategory category) {
        return counts.retries_by_category.contains(category);
    };
    const auto listed = [](const std::vector<ErrorCategory>& list, ErrorCategory category) {
        return std::find(list.begin(), list.end(), category) != list.end();
    };
    for (const ErrorCategory category : expected_retries.all_of) {
        INFO("expected retries after " << to_string(category));
        CHECK(retried(category));
    }
    const std::vector<ErrorCategory>& any_of = expected_retries.any_of;
    if (!any_of.empty()) {
        CHECK(std::any_of(any_of.begin(), any_of.end(), retried));
    }
    for (const auto& [category, count] : counts.retries_by_category) {
        INFO("unexpected retries after " << to_string(category));
        CHECK((listed(expected_retries.all_of, category) || listed(any_of, category) ||
               listed(expected_retries.may_also, category)));
    }

    Connection check = open_connection(connection_string);
    const auto total = [&] {
        return std::stoll(check.query_value("SELECT SUM(balance) FROM rb_load_accounts").value());
    };
    CHECK(total() == kAccounts * kInitialBalance);

    // Every transfer recorded once, and the balances are exactly what the records add up to.
    CHECK(std::stoll(check.query_value("SELECT COUNT(*) FROM rb_load_commands").value()) ==
          kThreads * kTransfersPerThread);
    CHECK(std::stoll(check.query_value("SELECT COUNT(DISTINCT command_id) FROM rb_load_commands")
                         .value()) == kThreads * kTransfersPerThread);
    // A commit whose outcome was unknown was retried, and the command-id table shows that it
    // took effect once: not lost, not applied again.
    for (const std::string& command_id : counts.outcome_unknown) {
        INFO("transfer " << command_id << " had a commit of unknown outcome");
        CHECK(check.query_value("SELECT COUNT(*) FROM rb_load_commands WHERE command_id = ?",
                                {command_id}) == "1");
    }
    std::array<std::int64_t, kAccounts + 1> expected{};
    expected.fill(kInitialBalance);
    for (const odbc::SqlRow& row : check.query("SELECT result FROM rb_load_commands")) {
        REQUIRE(row.size() == 1);
        std::istringstream fields(row[0].value());
        std::int64_t from = 0;
        std::int64_t to = 0;
        std::int64_t amount = 0;
        char separator = 0;
        fields >> from >> separator >> to >> separator >> amount;
        REQUIRE((from >= 1 && from <= kAccounts && to >= 1 && to <= kAccounts));
        expected[static_cast<std::size_t>(from)] -= amount;
        expected[static_cast<std::size_t>(to)] += amount;
    }
    for (const odbc::SqlRow& row : check.query("SELECT id, balance FROM rb_load_accounts")) {
        const auto id = static_cast<std::size_t>(std::stoll(row.at(0).value()));
        INFO("account " << id);
        CHECK(std::stoll(row.at(1).value()) == expected.at(id));
    }

    // A replay of thread 0's commands returns the stored results and moves no money.
    const auto before = check.query("SELECT id, balance FROM rb_load_accounts ORDER BY id");
    for (const Transfer& transfer : plan_transfers(0)) {
        const auto result =
            runner.run(check, *policy, {.handler = "bank.transfer", .idempotent = true},
                       [&](Connection& c, const TransactionAttempt&) {
                           return apply_transfer(c, commands, transfer);
                       });
        REQUIRE(result.succeeded());
    }
    CHECK(check.query("SELECT id, balance FROM rb_load_accounts ORDER BY id") == before);
}

// The categories a fault may add to a load's retries: sessions that end, connections refused
// while the server is down or starting, and commits cut off halfway.
const std::vector<ErrorCategory> kFaultCategories{
    ErrorCategory::ConnectionLost, ErrorCategory::ConnectionFailure, ErrorCategory::AdminShutdown,
    ErrorCategory::ServiceUnavailable, ErrorCategory::CommitOutcomeUnknown};

// The harness's server crashes and is back after 2 s, same port, same data
// (tests/odbc/database-server.sh restart).
LoadFault restart_fault(const std::string& database) {
    return {"restart", [database] {
                const CommandResult result = run_command(
                    {"/bin/bash", REBOUND_DATABASE_SERVER_SCRIPT, "restart", database,
                     (std::filesystem::path(REBOUND_DATABASE_STATE_DIR) / database).string(), "2"});
                if (result.exit_code != 0) {
                    throw std::runtime_error("database-server.sh restart exited " +
                                             std::to_string(result.exit_code) + ": " + result.err);
                }
            }};
}

// Every session of the load is killed once, from a session of its own.
LoadFault kill_fault(const std::string& connection_string, const ServerDialect& dialect) {
    return {"kill", [connection_string, dialect] {
                Connection killer = open_connection(connection_string);
                const std::vector<odbc::SqlRow> sessions =
                    killer.query(dialect.other_sessions_query);
                // Each thread holds one session while it runs, and none has finished at half time.
                if (sessions.size() != static_cast<std::size_t>(kThreads)) {
                    throw std::runtime_error("expected " + std::to_string(kThreads) +
                                             " sessions of the load, found " +
                                             std::to_string(sessions.size()));
                }
                for (const odbc::SqlRow& session : sessions) {
                    if (!kill_session(killer, dialect, session.at(0).value())) {
                        throw std::runtime_error("session " + session.at(0).value_or("") +
                                                 " outlived its KILL by 2 s");
                    }
                }
            }};
}

TEST_CASE("postgresql: 8 threads of transfers with random lock order keep the money total",
          "[postgresql][load]") {
    run_bank_load(server_connection_string("postgresql"), "postgresql",
                  odbc::IsolationLevel::RepeatableRead,
                  {.all_of = {ErrorCategory::Deadlock, ErrorCategory::SerializationFailure},
                   .any_of = {},
                   .may_also = {}});
}

TEST_CASE("postgresql: the load survives a server crash and restart halfway",
          "[postgresql][load][faults]") {
    run_bank_load(server_connection_string("postgresql"), "postgresql",
                  odbc::IsolationLevel::RepeatableRead,
                  {.all_of = {ErrorCategory::Deadlock, ErrorCategory::SerializationFailure},
                   .any_of = {},
                   .may_also = kFaultCategories},
                  restart_fault("postgresql"));
}

TEST_CASE("postgresql: the load survives every backend terminated halfway",
          "[postgresql][load][faults]") {
    const std::string connection_string = server_connection_string("postgresql");
    run_bank_load(connection_string, "postgresql", odbc::IsolationLevel::RepeatableRead,
                  {.all_of = {ErrorCategory::Deadlock, ErrorCategory::SerializationFailure},
                   .any_of = {},
                   .may_also = kFaultCategories},
                  kill_fault(connection_string, postgresql_dialect()));
}

TEST_CASE("mariadb: 8 threads of transfers with random lock order keep the money total",
          "[mariadb][load]") {
    run_bank_load(server_connection_string("mariadb"), "mariadb", std::nullopt,
                  {.all_of = {},
                   .any_of = {ErrorCategory::Deadlock, ErrorCategory::LockTimeout},
                   .may_also = {}});
}

TEST_CASE("mariadb: the load survives a server crash and restart halfway",
          "[mariadb][load][faults]") {
    run_bank_load(server_connection_string("mariadb"), "mariadb", std::nullopt,
                  {.all_of = {},
                   .any_of = {ErrorCategory::Deadlock, ErrorCategory::LockTimeout},
                   .may_also = kFaultCategories},
                  restart_fault("mariadb"));
}

TEST_CASE("mariadb: the load survives every connection killed halfway", "[mariadb][load][faults]") {
    const std::string connection_string = server_connection_string("mariadb");
    run_bank_load(connection_string, "mariadb", std::nullopt,
                  {.all_of = {},
                   .any_of = {ErrorCategory::Deadlock, ErrorCategory::LockTimeout},
                   .may_also = kFaultCategories},
                  kill_fault(connection_string, mariadb_dialect()));
}

TEST_CASE("sqlite: 8 threads of transfers keep the money total", "[sqlite][load]") {
    TemporarySqliteDatabase database;
    // WAL and synchronous=NORMAL: commits without an fsync each, so 1600 transactions fit the time
    // limit (the rollback journal took about 20 s here). Writers still exclude each other:
    // "database is locked" (SQLITE_BUSY, lock_timeout) is what gets retried.
    run_bank_load(database.connection_string() + ";JournalMode=WAL;SyncPragma=NORMAL", "sqlite",
                  std::nullopt,
                  {.all_of = {ErrorCategory::LockTimeout}, .any_of = {}, .may_also = {}});
}

}  // namespace
}  // namespace rebound::testing
