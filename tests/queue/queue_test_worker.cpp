// A worker process for queue_process_test.cpp: runs a WorkerPool on handler `test.apply` until no
// message is ready or leased for --idle-exit-ms, then prints its counters and exits 0.
//
// The handler applies each message once to effect: through the worker's connection it writes one
// row to queue_effects (no unique key, so a second application would show) and records the
// command id in the command-id table, then fails at random (--fail-percent, transient
// `service_unavailable`) after those writes, which must then roll back with the attempt.
//
//   rebound_queue_test_worker --dsn DSN [--threads N] [--fail-percent P] [--lease-ms L]
//                             [--idle-exit-ms I] [--seed S]
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <thread>

#include "rebound/dsl/vendor_map_loader.hpp"
#include "rebound/error_exception.hpp"
#include "rebound/odbc/command_deduplication.hpp"
#include "rebound/queue/worker_pool.hpp"

namespace {

struct Arguments {
    std::string dsn;
    int threads = 2;
    int fail_percent = 20;
    int lease_ms = 500;
    int idle_exit_ms = 1500;
    unsigned seed = 1;
};

Arguments parse(int argc, char** argv) {
    Arguments arguments;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string name = argv[i];
        const std::string value = argv[i + 1];
        if (name == "--dsn") {
            arguments.dsn = value;
        } else if (name == "--threads") {
            arguments.threads = std::stoi(value);
        } else if (name == "--fail-percent") {
            arguments.fail_percent = std::stoi(value);
        } else if (name == "--lease-ms") {
            arguments.lease_ms = std::stoi(value);
        } else if (name == "--idle-exit-ms") {
            arguments.idle_exit_ms = std::stoi(value);
        } else if (name == "--seed") {
            arguments.seed = static_cast<unsigned>(std::stoul(value));
        } else {
            throw std::invalid_argument("unknown option " + name);
        }
    }
    if (arguments.dsn.empty()) {
        throw std::invalid_argument("--dsn is required");
    }
    return arguments;
}

}  // namespace

int main(int argc, char** argv) try {
    using namespace rebound;
    const Arguments arguments = parse(argc, argv);
    const auto policy = PolicyBuilder("queue-load")
                            .max_attempts(12)
                            .backoff(Backoff::fixed(std::chrono::milliseconds(5)))
                            .jitter(Jitter::none())
                            .retry_on(Matcher::transient())
                            .build();
    const int fail_percent = arguments.fail_percent;
    const unsigned seed = arguments.seed;
    const odbc::CommandDeduplication commands;
    auto handlers = std::make_shared<queue::QueueHandlers>();
    handlers->add(HandlerRegistration{.name = "test.apply", .policy = policy, .idempotent = true},
                  [&](queue::Delivery& d) {
                      thread_local std::mt19937 random(
                          seed ^ static_cast<unsigned>(
                                     std::hash<std::thread::id>{}(std::this_thread::get_id())));
                      commands.run_once(d.connection, d.message.command_id, [&] {
                          d.connection.execute("INSERT INTO queue_effects (command_id) VALUES (?)",
                                               {d.message.command_id});
                          return std::string("applied");
                      });
                      std::this_thread::sleep_for(std::chrono::microseconds(random() % 2000));
                      if (static_cast<int>(random() % 100) < fail_percent) {
                          throw Error(ErrorCategory::ServiceUnavailable, "injected failure");
                      }
                  });
    const auto environment = odbc::Environment::create();
    const auto classifier = dsl::load_vendor_maps_or_throw(REBOUND_VENDOR_MAP_DIR);
    queue::WorkerPool pool(
        environment, handlers,
        queue::WorkerOptions{.connection_string = arguments.dsn,
                             .classifier = classifier,
                             .threads = arguments.threads,
                             .lease = std::chrono::milliseconds(arguments.lease_ms),
                             .batch = 5,
                             .poll_interval = std::chrono::milliseconds(10)});
    pool.start();
    odbc::Connection watcher(environment, classifier, arguments.dsn);
    auto idle_since = std::chrono::steady_clock::now();
    for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        std::optional<std::string> open;
        try {
            open = watcher.query_value(
                "SELECT COUNT(*) FROM rebound_queue_messages WHERE state IN ('ready', 'leased')");
        } catch (const odbc::DatabaseError&) {
            watcher.reconnect();  // the server restarted; ask again
            idle_since = std::chrono::steady_clock::now();
            continue;
        }
        if (open != "0") {
            idle_since = std::chrono::steady_clock::now();
        } else if (std::chrono::steady_clock::now() - idle_since >
                   std::chrono::milliseconds(arguments.idle_exit_ms)) {
            break;
        }
    }
    pool.stop();
    const queue::WorkerMetrics& m = pool.metrics();
    std::cout << "claimed=" << m.claimed << " succeeded=" << m.succeeded << " retried=" << m.retried
              << " dead=" << m.dead << " expired_settled=" << m.expired_settled
              << " lost_leases=" << m.lost_leases << " database_errors=" << m.database_errors
              << '\n';
    return 0;
} catch (const std::exception& error) {
    std::cerr << "rebound_queue_test_worker: " << error.what() << '\n';
    return 2;
}
