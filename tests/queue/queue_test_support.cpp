#include "queue_test_support.hpp"

#include <catch2/catch.hpp>
#include <random>
#include <thread>

#include "rebound/queue/queue_schema.hpp"

namespace rebound::testing {

namespace {

// Tables the scenarios create; dropped with the queue's so each test starts empty.
constexpr const char* kTables[] = {"rebound_queue_messages", "rebound_queue_paused",
                                   "rebound_queue_schema", "queue_effects",
                                   "rebound_command_results"};

}  // namespace

QueueDatabase::QueueDatabase(const std::string& database) {
    if (database == "sqlite") {
        std::random_device seed;
        directory_ = std::filesystem::temp_directory_path() /
                     ("rebound-queue-" + std::to_string(seed()) + std::to_string(seed()));
        std::filesystem::create_directories(directory_);
        connection_string_ =
            "Driver={SQLite3};Database=" + (directory_ / "queue.db").string() + ";Timeout=5000";
    } else {
        connection_string_ = server_connection_string(database);
    }
    odbc::Connection connection = connect();
    for (const char* table : kTables) {
        connection.execute(std::string("DROP TABLE IF EXISTS ") + table);
    }
    queue::migrate(connection);
    store_ = std::make_unique<queue::QueueStore>(connection.vendor().value());
}

QueueDatabase::~QueueDatabase() {
    if (!directory_.empty()) {
        std::error_code ignored;
        std::filesystem::remove_all(directory_, ignored);
    }
}

odbc::Connection QueueDatabase::connect() const {
    return open_connection(connection_string_);
}

bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (condition()) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return condition();
}

std::int64_t query_int(odbc::Connection& connection, const std::string& sql) {
    const std::optional<std::string> value = connection.query_value(sql);
    return value ? std::stoll(*value) : 0;
}

std::int64_t count_in(odbc::Connection& connection, std::string_view state) {
    return query_int(connection, "SELECT COUNT(*) FROM rebound_queue_messages WHERE state = '" +
                                     std::string(state) + "'");
}

queue::WorkerOptions worker_options(const QueueDatabase& database, int threads) {
    return queue::WorkerOptions{.connection_string = database.connection_string(),
                                .classifier = shipped_classifier(),
                                .threads = threads,
                                .lease = std::chrono::seconds(10),
                                .batch = 4,
                                .poll_interval = std::chrono::milliseconds(10),
                                .name = "test"};
}

}  // namespace rebound::testing
