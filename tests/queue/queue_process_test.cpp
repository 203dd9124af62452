// Worker processes on PostgreSQL and MariaDB (docs/queue.md, "Guarantees"): four processes of
// tests/queue/queue_test_worker.cpp share the queue while their handlers fail at random and the
// test kills workers with SIGKILL at random moments (and restarts the server mid-run). Afterwards
// every message is done exactly once to effect (one row in queue_effects and one in the command-id
// table) or dead with its reason, and nothing is left ready or leased.
//
// CI runs 400 messages; REBOUND_QUEUE_LOAD_MESSAGES=5000 runs the full size.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>
#include <vector>

#include "queue_test_support.hpp"
#include "rebound/odbc/command_deduplication.hpp"
#include "run_command.hpp"

extern char** environ;

namespace rebound::testing {
namespace {

using namespace std::chrono_literals;

int message_count() {
    const char* configured = std::getenv("REBOUND_QUEUE_LOAD_MESSAGES");
    return configured != nullptr && *configured != '\0' ? std::atoi(configured) : 400;
}

// A worker process writing its output to `log`.
pid_t spawn_worker(const std::string& dsn, unsigned seed, const std::filesystem::path& log) {
    std::vector<std::string> arguments{REBOUND_QUEUE_TEST_WORKER,
                                       "--dsn",
                                       dsn,
                                       "--threads",
                                       "1",
                                       "--fail-percent",
                                       "20",
                                       "--lease-ms",
                                       "500",
                                       "--idle-exit-ms",
                                       "1500",
                                       "--seed",
                                       std::to_string(seed)};
    std::vector<char*> argv;
    for (std::string& argument : arguments) {
        argv.push_back(argument.data());
    }
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    pid_t pid = 0;
    const int error = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    REQUIRE(error == 0);
    return pid;
}

// Reads an integer, reconnecting while the server restarts.
std::int64_t query_int_retrying(odbc::Connection& connection, const std::string& sql) {
    for (int tries = 0;; ++tries) {
        try {
            return query_int(connection, sql);
        } catch (const odbc::DatabaseError&) {
            if (tries >= 100) {
                throw;
            }
            std::this_thread::sleep_for(200ms);
            try {
                connection.reconnect();
            } catch (const odbc::DatabaseError&) {
                // Still down; try again.
            }
        }
    }
}

// Restarts the fixture's server on its port and data directory (tests/odbc/database-server.sh).
void restart_server(const std::string& name) {
    const CommandResult result =
        run_command({"/bin/bash", REBOUND_DATABASE_SERVER_SCRIPT, "restart", name,
                     (std::filesystem::path(REBOUND_DATABASE_STATE_DIR) / name).string()});
    INFO(result.out << result.err);
    REQUIRE(result.exit_code == 0);
}

void killed_workers_still_apply_every_message_once(const std::string& name, bool restart) {
    QueueDatabase database(name);
    odbc::Connection connection = database.connect();
    connection.execute("CREATE TABLE queue_effects (command_id VARCHAR(200) NOT NULL)");
    odbc::CommandDeduplication().create_table(connection);
    const int messages = message_count();
    connection.set_autocommit(false);
    for (int i = 0; i < messages; ++i) {
        database.store().enqueue(
            connection, queue::NewMessage{.handler = "test.apply", .payload = std::to_string(i)});
    }
    connection.commit();
    connection.set_autocommit(true);

    const std::string directory = make_temporary_directory("rebound-queue-workers-");
    const std::filesystem::path log = std::filesystem::path(directory) / "workers.log";
    const unsigned seed = std::random_device{}();
    INFO("seed " << seed);
    std::mt19937 random(seed);
    std::vector<pid_t> workers;
    // A failed REQUIRE must not leave workers behind.
    struct KillOnExit {
        std::vector<pid_t>& pids;
        ~KillOnExit() {
            for (pid_t pid : pids) {
                if (pid > 0 && kill(pid, SIGKILL) == 0) {
                    waitpid(pid, nullptr, 0);
                }
            }
        }
    } kill_on_exit{workers};
    for (unsigned i = 0; i < 4; ++i) {
        workers.push_back(spawn_worker(database.connection_string(), seed + i, log));
    }
    const std::string open_sql =
        "SELECT COUNT(*) FROM rebound_queue_messages WHERE state IN ('ready', 'leased')";
    int kills = 0;
    bool restarted = false;
    const auto end = std::chrono::steady_clock::now() + 60s;
    while (std::chrono::steady_clock::now() < end && kills < 6 &&
           query_int_retrying(connection, open_sql) > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100 + random() % 200));
        const std::size_t victim = random() % workers.size();
        kill(workers[victim], SIGKILL);
        waitpid(workers[victim], nullptr, 0);
        workers[victim] = spawn_worker(database.connection_string(),
                                       seed + 100 + static_cast<unsigned>(kills), log);
        ++kills;
        if (restart && !restarted) {
            restart_server(name);
            restarted = true;
        }
    }
    // The workers exit once nothing is ready or leased for 1.5 s.
    bool all_exited = true;
    for (pid_t& worker : workers) {
        int status = 0;
        const auto limit = std::chrono::steady_clock::now() + 60s;
        while (waitpid(worker, &status, WNOHANG) == 0) {
            if (std::chrono::steady_clock::now() > limit) {
                kill(worker, SIGKILL);
                waitpid(worker, &status, 0);
                all_exited = false;
                break;
            }
            std::this_thread::sleep_for(50ms);
        }
        worker = 0;
    }
    INFO(read_file(log));
    std::filesystem::remove_all(directory);
    CHECK(all_exited);
    CHECK(kills >= 1);
    CHECK(restarted == restart);

    const auto count = [&](const std::string& sql) { return query_int_retrying(connection, sql); };
    const std::int64_t done =
        count("SELECT COUNT(*) FROM rebound_queue_messages WHERE state = 'done'");
    const std::int64_t dead =
        count("SELECT COUNT(*) FROM rebound_queue_messages WHERE state = 'dead'");
    INFO("done " << done << ", dead " << dead << ", kills " << kills);
    CHECK(done + dead == messages);
    CHECK(done >= messages * 9 / 10);
    // Exactly once to effect: one effect row and one command record per done message.
    CHECK(count("SELECT COUNT(*) FROM rebound_queue_messages m WHERE m.state = 'done' AND"
                " (SELECT COUNT(*) FROM queue_effects e WHERE e.command_id = m.command_id) <> 1") ==
          0);
    CHECK(count("SELECT COUNT(*) FROM queue_effects") == done);
    CHECK(count("SELECT COUNT(*) FROM rebound_command_results") == done);
    // A dead message has its reason and last error, and no effect.
    CHECK(count("SELECT COUNT(*) FROM rebound_queue_messages m WHERE m.state = 'dead' AND"
                " (m.dead_reason IS NULL OR m.last_error_category IS NULL OR (SELECT COUNT(*)"
                " FROM queue_effects e WHERE e.command_id = m.command_id) <> 0)") == 0);
}

TEST_CASE("queue postgresql: killed worker processes still apply every message once",
          "[postgresql]") {
    killed_workers_still_apply_every_message_once("postgresql", false);
}

TEST_CASE("queue mariadb: killed worker processes still apply every message once", "[mariadb]") {
    killed_workers_still_apply_every_message_once("mariadb", false);
}

TEST_CASE("queue postgresql: workers carry on across a server restart", "[postgresql]") {
    killed_workers_still_apply_every_message_once("postgresql", true);
}

TEST_CASE("queue mariadb: workers carry on across a server restart", "[mariadb]") {
    killed_workers_still_apply_every_message_once("mariadb", true);
}

}  // namespace
}  // namespace rebound::testing
