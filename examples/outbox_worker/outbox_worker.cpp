// The outbox worker: an order service that writes each order and its `order.placed` message in one
// transaction, and queue workers that deliver the message to a flaky shipping dependency on
// loopback under the policies of a file (docs/queue.md).
//
//   rebound_example_outbox_worker [--policy FILE] [--dsn CONNECTION_STRING] [--orders N]
//                                 [--workers N] [--vendor-maps DIR]
//
// Without --policy the embedded copy of examples/outbox_worker/outbox_worker.yaml is used; without
// --dsn a SQLite database in a temporary directory. With --dsn (PostgreSQL or MariaDB) the tables
// orders and shipments are replaced and the queue's order.placed messages removed first.
//
// The dependency is a TCP server on 127.0.0.1: it answers 503 to about a third of the deliveries
// (retried, on the fast route then the slow one), always 503 for orders 13, 113, ... (exhausted:
// dead letters) and 400 for orders 7, 57, 107, ... (never retried: dead at once). It keeps the
// orders it shipped, ignoring a repeated delivery, as an idempotent receiver does. The handler
// records the shipment through the worker's connection, so it commits with the message's
// completion.
//
// The program prints the dead letters, then the queue status, the workers' metrics and the retry
// metrics of the deliveries' runs (a RetryMetrics listening to the pool) in the Prometheus text
// format, as `rebound queue status --format prometheus` and a worker's metrics endpoint would
// serve them (rebound/queue/queue_metrics.hpp, rebound/retry_metrics.hpp), and last an invariant:
// every order is done or dead, each done order shipped exactly once (shipments table and dependency
// agree). It exits 1 when the invariant does not hold.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "common/command_line.hpp"
#include "common/temporary_directory.hpp"
#include "outbox_worker/embedded_policy.hpp"
#include "rebound/dsl/load.hpp"
#include "rebound/dsl/vendor_map_loader.hpp"
#include "rebound/error_exception.hpp"
#include "rebound/queue/queue_metrics.hpp"
#include "rebound/queue/queue_schema.hpp"
#include "rebound/queue/queue_store.hpp"
#include "rebound/queue/worker_pool.hpp"
#include "rebound/retry_metrics.hpp"

namespace {

using namespace std::chrono_literals;

struct Options {
    std::string policy_file;
    std::string dsn;
    std::string vendor_maps = REBOUND_EXAMPLE_VENDOR_MAP_DIR;
    int orders = 200;
    int workers = 2;
};

// The command line's options, described for --help.
void add_options(CLI::App& app, Options& options) {
    app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // last wins
    app.add_option("--policy", options.policy_file,
                   "Policy file of the service (default: the embedded copy of "
                   "examples/outbox_worker/outbox_worker.yaml)")
        ->type_name("FILE");
    app.add_option("--dsn", options.dsn,
                   "ODBC connection string of a PostgreSQL or MariaDB database whose tables "
                   "orders and shipments are replaced (default: SQLite in a temporary directory)")
        ->type_name("CONNECTION_STRING");
    app.add_option("--orders", options.orders, "Orders to place")
        ->check(examples::decimal_whole_number<int>())
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    app.add_option("--workers", options.workers, "Queue worker threads")
        ->check(examples::decimal_whole_number<int>())
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    app.add_option("--vendor-maps", options.vendor_maps,
                   "Directory of the vendor maps that classify the database's errors")
        ->type_name("DIR")
        ->capture_default_str();
}

// The flaky shipping dependency: one request line `SHIP <order>` per connection.
class ShippingDependency {
  public:
    ShippingDependency() {
        listener_ = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (listener_ < 0 ||
            bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            listen(listener_, 64) != 0 ||
            getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
            throw std::runtime_error(std::string("shipping dependency: ") + std::strerror(errno));
        }
        port_ = ntohs(address.sin_port);
        server_ = std::jthread([this](const std::stop_token& stop) { serve(stop); });
    }
    ~ShippingDependency() {
        server_.request_stop();
        server_.join();
        close(listener_);
    }
    ShippingDependency(const ShippingDependency&) = delete;
    ShippingDependency& operator=(const ShippingDependency&) = delete;

    std::uint16_t port() const noexcept { return port_; }
    std::size_t shipped() const {
        const std::lock_guard lock(mutex_);
        return shipped_.size();
    }
    int repeated() const {
        const std::lock_guard lock(mutex_);
        return repeated_;
    }

  private:
    void serve(const std::stop_token& stop) {
        std::mt19937 random(20261125);
        while (!stop.stop_requested()) {
            pollfd waiting{listener_, POLLIN, 0};
            if (poll(&waiting, 1, 50) <= 0) {
                continue;
            }
            const int client = accept(listener_, nullptr, nullptr);
            if (client < 0) {
                continue;
            }
            char buffer[64] = {};
            const ssize_t got = read(client, buffer, sizeof buffer - 1);
            const long order = got > 5 ? std::atol(buffer + 5) : -1;
            const std::string reply = answer(order, random);
            [[maybe_unused]] const ssize_t sent = write(client, reply.data(), reply.size());
            close(client);
        }
    }

    std::string answer(long order, std::mt19937& random) {
        if (order < 0) {
            return "400 bad request\n";
        }
        if (order % 50 == 7) {
            return "400 unknown address\n";
        }
        if (order % 100 == 13 || random() % 3 == 0) {
            return "503 busy\n";
        }
        const std::lock_guard lock(mutex_);
        if (!shipped_.emplace(order, 1).second) {
            ++repeated_;
        }
        return "200 shipped\n";
    }

    int listener_ = -1;
    std::uint16_t port_ = 0;
    mutable std::mutex mutex_;
    std::map<long, int> shipped_;
    int repeated_ = 0;
    std::jthread server_;
};

// The HTTP-like status the dependency answered, or 0 when it could not be reached.
int ship(std::uint16_t port, const std::string& order) {
    const int connection = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    int status = 0;
    if (connection >= 0 &&
        connect(connection, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
        const std::string request = "SHIP " + order + "\n";
        char reply[64] = {};
        if (write(connection, request.data(), request.size()) ==
                static_cast<ssize_t>(request.size()) &&
            read(connection, reply, sizeof reply - 1) >= 3) {
            status = std::atoi(reply);
        }
    }
    if (connection >= 0) {
        close(connection);
    }
    return status;
}

// The consumer of `order.placed`, registered annotation-like with its retry tier.
struct OrderPlaced {
    REBOUND_HANDLER("order.placed", "delivery");
    std::uint16_t port = 0;

    void operator()(rebound::queue::Delivery& delivery) const {
        const std::string& order = delivery.message.payload;
        const int status = ship(port, order);
        if (status == 200) {
            delivery.connection.execute("INSERT INTO shipments (order_id) VALUES (?)",
                                        {std::stoll(order)});
            return;
        }
        rebound::ErrorDescription error;
        error.category = status == 0 ? rebound::ErrorCategory::ConnectionFailure
                                     : (status >= 500 ? rebound::ErrorCategory::ServiceUnavailable
                                                      : rebound::ErrorCategory::ClientError);
        error.http_status = status;
        error.message = status == 0 ? "shipping dependency unreachable" : "shipping refused";
        throw rebound::Error(error);
    }
};

std::shared_ptr<const rebound::PolicySet> load_policies(const Options& options) {
    rebound::dsl::LoadResult loaded =
        options.policy_file.empty()
            ? rebound::dsl::load_text(outbox_worker::kEmbeddedPolicy,
                                      "<embedded outbox_worker.yaml>", rebound::dsl::Syntax::Yaml)
            : rebound::dsl::load_file(options.policy_file);
    for (const rebound::dsl::Diagnostic& diagnostic : loaded.diagnostics) {
        std::cerr << rebound::dsl::format_diagnostic(diagnostic, loaded.source) << '\n';
    }
    return loaded.policy_set;
}

void replace_tables(rebound::odbc::Connection& connection) {
    connection.execute("DROP TABLE IF EXISTS shipments");
    connection.execute("DROP TABLE IF EXISTS orders");
    connection.execute("CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY, item VARCHAR(100))");
    connection.execute("CREATE TABLE shipments (order_id BIGINT NOT NULL)");
    connection.execute("DELETE FROM rebound_queue_messages WHERE handler = 'order.placed'");
}

std::int64_t count(rebound::odbc::Connection& connection, const std::string& sql) {
    return std::stoll(connection.query_value(sql).value_or("0"));
}

int run(const Options& options) {
    const auto policies = load_policies(options);
    if (!policies) {
        return 2;
    }
    const auto classifier = rebound::dsl::load_vendor_maps_or_throw(options.vendor_maps);
    const auto environment = rebound::odbc::Environment::create();
    std::optional<examples::TemporaryDirectory> directory;
    std::string dsn = options.dsn;
    if (dsn.empty()) {
        directory.emplace("rebound-outbox");
        dsn = "Driver={SQLite3};Database=" + (directory->path() / "orders.db").string() +
              ";Timeout=5000";
    }
    rebound::odbc::Connection connection(environment, classifier, dsn);
    std::cout << "database: " << connection.dbms_name() << '\n';
    rebound::queue::migrate(connection);
    replace_tables(connection);
    const rebound::queue::QueueStore store(connection.vendor().value());

    // The order service: the order and its message commit together, or neither does.
    connection.set_autocommit(false);
    for (int id = 1; id <= options.orders; ++id) {
        connection.execute("INSERT INTO orders (id, item) VALUES (?, ?)",
                           {std::int64_t{id}, "item-" + std::to_string(id % 17)});
        store.enqueue(connection, {.handler = "order.placed",
                                   .payload = std::to_string(id),
                                   .command_id = "order-" + std::to_string(id)});
        connection.commit();
    }
    connection.set_autocommit(true);
    std::cout << "orders placed: " << options.orders << " (each with its order.placed message)\n";

    ShippingDependency dependency;
    auto handlers = std::make_shared<rebound::queue::QueueHandlers>();
    handlers->add(OrderPlaced{.port = dependency.port()});
    rebound::RetryMetrics retry_metrics;  // hears every delivery's run, as an executor's would
    rebound::queue::WorkerPool pool(environment, handlers,
                                    {.connection_string = dsn,
                                     .classifier = classifier,
                                     .policies = policies,
                                     .threads = options.workers,
                                     .lease = 5s,
                                     .batch = 8,
                                     .poll_interval = 10ms,
                                     .listeners = {&retry_metrics}});
    const auto started = std::chrono::steady_clock::now();
    pool.start();
    const std::string open_sql =
        "SELECT COUNT(*) FROM rebound_queue_messages WHERE handler = 'order.placed' AND state IN "
        "('ready', 'leased')";
    while (count(connection, open_sql) > 0 && std::chrono::steady_clock::now() - started < 120s) {
        std::this_thread::sleep_for(50ms);
    }
    pool.stop();
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);

    std::cout << "\nworkers stopped after " << took.count() << " ms\ndead letters:\n";
    for (const rebound::queue::Message& m : store.dead(connection, "order.placed", 1000)) {
        std::cout << "  message " << m.id << " (order " << m.payload << "): " << m.dead_reason
                  << " after " << m.attempt << " attempts, route "
                  << (m.route.empty() ? "-" : m.route) << ", last error " << m.last_error.category
                  << " http " << m.last_error.http_status << '\n';
    }
    std::cout << "\nmetrics (Prometheus text):\n"
              << rebound::queue::render_status_metrics(store.status(connection))
              << rebound::queue::render_worker_metrics(pool.metrics()) << retry_metrics.render()
              << '\n';

    const std::int64_t done =
        count(connection,
              "SELECT COUNT(*) FROM rebound_queue_messages WHERE handler = 'order.placed'"
              " AND state = 'done'");
    const std::int64_t dead =
        count(connection,
              "SELECT COUNT(*) FROM rebound_queue_messages WHERE handler = 'order.placed'"
              " AND state = 'dead'");
    const std::int64_t shipments = count(connection, "SELECT COUNT(*) FROM shipments");
    const std::int64_t distinct =
        count(connection, "SELECT COUNT(DISTINCT order_id) FROM shipments");
    const bool ok = done + dead == options.orders && shipments == done && distinct == done &&
                    static_cast<std::int64_t>(dependency.shipped()) == done;
    std::cout << "invariant: done " << done << " + dead " << dead << " = " << options.orders
              << " orders, shipments " << shipments << " (distinct " << distinct
              << "), dependency shipped " << dependency.shipped() << " (repeated deliveries "
              << dependency.repeated() << ") -> " << (ok ? "OK" : "VIOLATED") << '\n';
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "The outbox worker: orders written with their order.placed message in one transaction, "
        "queue workers delivering them to a flaky dependency."};
    Options options;
    add_options(app, options);
    if (const std::optional<int> status = examples::parse_command_line(app, argc, argv)) {
        return *status;
    }
    try {
        return run(options);
    } catch (const std::exception& error) {
        std::cerr << "outbox worker: " << error.what() << '\n';
        return 1;
    }
}
