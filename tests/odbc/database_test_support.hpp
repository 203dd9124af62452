// Shared pieces of the database tests: connections to the servers started by
// tests/odbc/database-server.sh, the classifier from policies/vendors, a fast retry policy, and a
// rendezvous for two-thread scenarios.
#pragma once

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "rebound/odbc/connection.hpp"
#include "rebound/policy.hpp"

namespace rebound::testing {

// The classifier compiled from the shipped vendor maps (loaded once).
std::shared_ptr<const SqlErrorClassifier> shipped_classifier();
std::shared_ptr<const odbc::Environment> odbc_environment();

// The connection string of a started server (`postgresql`, `mariadb`): the environment variable
// REBOUND_TEST_<NAME>_CONNECTION when set, else the file written by database-server.sh.
// Fails the test when neither is there.
std::string server_connection_string(const std::string& database);

// A connection to `connection_string` with the shipped classifier.
odbc::Connection open_connection(const std::string& connection_string);

// A fresh SQLite database file with a busy timeout of 1 ms (a locked database fails almost at
// once), removed when this object goes. Not 0: sqliteodbc's `Timeout=0` kept waiting (observed
// for over 5 minutes with libsqlite3odbc 0.9998).
class TemporarySqliteDatabase {
  public:
    TemporarySqliteDatabase();
    TemporarySqliteDatabase(const TemporarySqliteDatabase&) = delete;
    TemporarySqliteDatabase& operator=(const TemporarySqliteDatabase&) = delete;
    ~TemporarySqliteDatabase();
    const std::string& connection_string() const noexcept { return connection_string_; }

  private:
    std::filesystem::path directory_;
    std::string connection_string_;
};

// Retries transient errors up to `max_attempts` with a short fixed delay and no jitter, so the
// tests run quickly and deterministically.
std::shared_ptr<const Policy> fast_policy(int max_attempts = 5);

// Two threads meet here once; a thread that never arrives makes the other give up after a while
// instead of hanging the test.
class Rendezvous {
  public:
    explicit Rendezvous(int parties) : waiting_(parties) {}
    // True when every party arrived in time.
    bool arrive_and_wait(std::chrono::milliseconds limit = std::chrono::seconds(10));

  private:
    std::mutex mutex_;
    std::condition_variable arrived_;
    int waiting_;
};

}  // namespace rebound::testing
