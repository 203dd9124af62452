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
#include <algorithm>
#include <array>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdint>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "database_test_support.hpp"
#include "rebound/odbc/command_deduplication.hpp"
#include "rebound/odbc/transactional_runner.hpp"

namespace rebound::testing {
namespace {

using odbc::Connection;
using odbc::TransactionAttempt;

constexpr int kThreads = 8;
constexpr int kTransfersPerThread = 200;
constexpr int kAccounts = 10;
constexpr std::int64_t kInitialBalance = 1000;

struct Transfer {
    std::string command_id;
    std::int64_t from = 0;
    std::int64_t to = 0;
    std::int64_t amount = 0;
    bool debit_first = true;  // which account is locked first
};

// Many attempts with short jittered waits: under this contention a transfer may lose several
// times in a row, and every one must commit in the end.
std::shared_ptr<const Policy> load_policy() {
    return PolicyBuilder("bank-load")
        .max_attempts(60)
        .backoff(
            Backoff::exponential(std::chrono::milliseconds(1), 2.0, std::chrono::milliseconds(40)))
        .jitter(Jitter::full())
        .retry_on(Matcher::transient())
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
    std::vector<std::string> failures;  // summaries of runs that did not succeed
};

// The error categories a database's load must produce: each of `all_of` and at least one of
// `any_of` (when not empty), and none outside both.
struct ExpectedRetries {
    std::vector<ErrorCategory> all_of;
    std::vector<ErrorCategory> any_of;
};

void run_bank_load(const std::string& connection_string, const std::string& database,
                   std::optional<odbc::IsolationLevel> isolation,
                   const ExpectedRetries& expected_retries) {
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

    const auto policy = load_policy();
    const odbc::TransactionalRunner runner;
    std::mutex mutex;
    LoadCounts counts;
    std::vector<std::string> thread_errors;
    const auto started = std::chrono::steady_clock::now();
    {
        std::vector<std::jthread> threads;
        for (int thread = 0; thread < kThreads; ++thread) {
            threads.emplace_back([&, thread] {
                try {
                    Connection connection = open_connection(connection_string);
                    for (const Transfer& transfer : plan_transfers(thread)) {
                        odbc::TransactionOptions options;
                        options.handler = "bank.transfer";
                        options.idempotent = true;
                        options.isolation = isolation;
                        const auto result =
                            runner.run(connection, *policy, options,
                                       [&](Connection& c, const TransactionAttempt&) {
                                           return apply_transfer(c, commands, transfer);
                                       });
                        const std::lock_guard lock(mutex);
                        ++counts.transfers;
                        counts.attempts += result.attempts;
                        for (const odbc::AttemptFailure& failure : result.failures) {
                            if (failure.decision.retry) {
                                ++counts.retries;
                                ++counts.retries_by_category[failure.failure.category];
                            }
                        }
                        if (!result.succeeded()) {
                            ++counts.failed;
                            const odbc::AttemptFailure* last = result.last_failure();
                            counts.failures.push_back(
                                transfer.command_id + ": " +
                                std::string(rebound::to_string(result.outcome)) +
                                (last != nullptr ? " " + last->failure.summary() : ""));
                        }
                    }
                } catch (const std::exception& error) {
                    const std::lock_guard lock(mutex);
                    thread_errors.push_back(error.what());
                }
            });
        }
    }
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started);

    std::ostringstream summary;
    summary << database << " load: " << counts.transfers << " transfers, " << counts.attempts
            << " attempts, " << counts.retries << " retries";
    for (const auto& [category, count] : counts.retries_by_category) {
        summary << ", " << to_string(category) << " " << count;
    }
    summary << ", " << counts.failed << " failed, " << seconds.count() << " s";
    std::cout << summary.str() << std::endl;
    INFO(summary.str());
    for (const std::string& error : thread_errors) {
        FAIL_CHECK("thread stopped: " << error);
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
        CHECK((listed(expected_retries.all_of, category) || listed(any_of, category)));
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

TEST_CASE("postgresql: 8 threads of transfers with random lock order keep the money total",
          "[postgresql][load]") {
    run_bank_load(
        server_connection_string("postgresql"), "postgresql", odbc::IsolationLevel::RepeatableRead,
        {.all_of = {ErrorCategory::Deadlock, ErrorCategory::SerializationFailure}, .any_of = {}});
}

TEST_CASE("mariadb: 8 threads of transfers with random lock order keep the money total",
          "[mariadb][load]") {
    run_bank_load(server_connection_string("mariadb"), "mariadb", std::nullopt,
                  {.all_of = {}, .any_of = {ErrorCategory::Deadlock, ErrorCategory::LockTimeout}});
}

TEST_CASE("sqlite: 8 threads of transfers keep the money total", "[sqlite][load]") {
    TemporarySqliteDatabase database;
    // WAL and synchronous=NORMAL: commits without an fsync each, so 1600 transactions fit the time
    // limit (the rollback journal took about 20 s here). Writers still exclude each other:
    // "database is locked" (SQLITE_BUSY, lock_timeout) is what gets retried.
    run_bank_load(database.connection_string() + ";JournalMode=WAL;SyncPragma=NORMAL", "sqlite",
                  std::nullopt, {.all_of = {ErrorCategory::LockTimeout}, .any_of = {}});
}

}  // namespace
}  // namespace rebound::testing
