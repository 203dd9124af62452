// Shared pieces of the queue tests: a queue database per test (an empty SQLite file, or the
// started PostgreSQL/MariaDB server with the queue tables dropped and created again), waiting for
// a condition with a limit, and reading rows back.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "database_test_support.hpp"
#include "rebound/odbc/connection.hpp"
#include "rebound/queue/queue_store.hpp"
#include "rebound/queue/worker_pool.hpp"

namespace rebound::testing {

// `sqlite`, `postgresql` or `mariadb`: a database with fresh queue tables (migrated) and no
// test tables. SQLite files wait up to 5 s for the write lock (worker threads share it).
class QueueDatabase {
  public:
    explicit QueueDatabase(const std::string& database);
    QueueDatabase(const QueueDatabase&) = delete;
    QueueDatabase& operator=(const QueueDatabase&) = delete;
    ~QueueDatabase();

    const std::string& connection_string() const noexcept { return connection_string_; }
    // An autocommit connection.
    odbc::Connection connect() const;
    const queue::QueueStore& store() const noexcept { return *store_; }

  private:
    std::filesystem::path directory_;  // SQLite only
    std::string connection_string_;
    std::unique_ptr<queue::QueueStore> store_;
};

// Polls `condition` every 20 ms until it holds or `limit` passes; true when it held.
bool wait_until(const std::function<bool()>& condition,
                std::chrono::milliseconds limit = std::chrono::seconds(20));

// The first column of the first row as an integer (0 when none).
std::int64_t query_int(odbc::Connection& connection, const std::string& sql);

// How many messages are in `state` (`ready`, `done`, ...).
std::int64_t count_in(odbc::Connection& connection, std::string_view state);

// A pool of `threads` named `test` on `database`: leases of 10 s, claims of 4, polls every 10 ms.
queue::WorkerOptions worker_options(const QueueDatabase& database, int threads = 2);

}  // namespace rebound::testing
