#include "database_test_support.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <random>

#include "rebound/dsl/vendor_map_loader.hpp"

namespace rebound::testing {

std::shared_ptr<const SqlErrorClassifier> shipped_classifier() {
    static const std::shared_ptr<const SqlErrorClassifier> classifier =
        dsl::load_vendor_maps_or_throw(REBOUND_VENDOR_MAP_DIR);
    return classifier;
}

std::shared_ptr<const odbc::Environment> odbc_environment() {
    static const std::shared_ptr<const odbc::Environment> environment = odbc::Environment::create();
    return environment;
}

std::string server_connection_string(const std::string& database) {
    std::string variable = "REBOUND_TEST_";
    for (char c : database) {
        variable += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    variable += "_CONNECTION";
    if (const char* value = std::getenv(variable.c_str()); value != nullptr && *value != '\0') {
        return value;
    }
    const std::filesystem::path file =
        std::filesystem::path(REBOUND_DATABASE_STATE_DIR) / database / "connection-string";
    std::ifstream in(file);
    std::string connection_string;
    std::getline(in, connection_string);
    if (connection_string.empty()) {
        FAIL("no " << database << " server: run the test through ctest (fixture " << database
                   << ":start_server) or set " << variable);
    }
    return connection_string;
}

odbc::Connection open_connection(const std::string& connection_string) {
    return odbc::Connection(odbc_environment(), shipped_classifier(), connection_string);
}

TemporarySqliteDatabase::TemporarySqliteDatabase() {
    std::random_device seed;
    directory_ = std::filesystem::temp_directory_path() /
                 ("rebound-sqlite-" + std::to_string(seed()) + std::to_string(seed()));
    std::filesystem::create_directories(directory_);
    connection_string_ =
        "Driver={SQLite3};Database=" + (directory_ / "test.db").string() + ";Timeout=1";
}

TemporarySqliteDatabase::~TemporarySqliteDatabase() {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
}

std::shared_ptr<const Policy> fast_policy(int max_attempts) {
    return PolicyBuilder("database-test")
        .max_attempts(max_attempts)
        .backoff(Backoff::fixed(std::chrono::milliseconds(10)))
        .jitter(Jitter::none())
        .retry_on(Matcher::transient())
        .build();
}

bool Rendezvous::arrive_and_wait(std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex_);
    if (--waiting_ <= 0) {
        arrived_.notify_all();
        return true;
    }
    return arrived_.wait_for(lock, limit, [&] { return waiting_ <= 0; });
}

}  // namespace rebound::testing
