// Real-database contention (docs/performance.md "Real database contention").
//
// N threads, each with its own ODBC connection, each run M read-modify-write transactions on one
// hot row at SERIALIZABLE through rebound::odbc::TransactionalRunner:
//
//   SELECT value FROM rebound_hot WHERE id = 1;
//   UPDATE rebound_hot SET value = <value + 1> WHERE id = 1;
//   COMMIT
//
// Serialization failures (and deadlocks) are retried by a policy with exponential backoff and one
// jitter kind per strategy; `immediate` retries at once (Backoff::none), the same discipline as
// `pgbench --max-tries`, which bench/run.sh runs as the baseline with bench/contention.pgbench.sql.
// Every strategy starts from a fresh row; the final value must equal the committed count (a lost
// update would make the experiment meaningless, so the program fails when it differs).
//
//   rebound_contention_bench --dsn DSN [--threads 16] [--transactions 200] [--max-attempts 100]
//       [--initial-us 500] [--max-us 50000] [--strategies immediate,none,full,equal,decorrelated]
//       [--vendor-maps DIR] [--out FILE]
//
// DSN defaults to $REBOUND_BENCH_DSN. Writes one JSON object per strategy (an array) to FILE, or
// to standard output.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iostream>
#include <latch>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "rebound/dsl/vendor_map_loader.hpp"
#include "rebound/odbc/connection.hpp"
#include "rebound/odbc/transactional_runner.hpp"
#include "rebound/policy.hpp"

namespace {

using rebound::Backoff;
using rebound::Duration;
using rebound::ErrorCategory;
using rebound::Jitter;
using rebound::Matcher;
using rebound::odbc::Connection;
using rebound::odbc::IsolationLevel;
using rebound::odbc::TransactionalRunner;
using rebound::odbc::TransactionAttempt;
using rebound::odbc::TransactionOptions;
using rebound::odbc::TransactionOutcome;

struct Settings {
    std::string dsn;
    std::string vendor_maps = REBOUND_VENDOR_MAP_DIR;
    int threads = 16;
    int transactions = 200;
    int max_attempts = 100;
    Duration initial{500};
    Duration max{50'000};
    std::vector<std::string> strategies{"immediate", "none", "full", "equal", "decorrelated"};
    std::string out;
};

struct Result {
    std::string strategy;
    std::int64_t committed = 0;
    std::int64_t attempts = 0;
    std::int64_t exhausted = 0;
    std::int64_t other_failures = 0;  // any other outcome (non_retryable, ...)
    double wall_seconds = 0;
    std::int64_t final_value = 0;
};

std::vector<std::string> split(const std::string& text) {
    std::vector<std::string> parts;
    std::stringstream stream(text);
    for (std::string part; std::getline(stream, part, ',');) {
        if (!part.empty()) {
            parts.push_back(part);
        }
    }
    return parts;
}

[[noreturn]] void usage(const std::string& problem) {
    std::cerr << "rebound_contention_bench: " << problem
              << "\nusage: rebound_contention_bench --dsn DSN [--threads N] [--transactions N]"
                 " [--max-attempts N] [--initial-us N] [--max-us N] [--strategies LIST]"
                 " [--vendor-maps DIR] [--out FILE]\n";
    std::exit(2);
}

Settings parse(int argc, char** argv) {
    Settings settings;
    if (const char* dsn = std::getenv("REBOUND_BENCH_DSN")) {
        settings.dsn = dsn;
    }
    for (int i = 1; i < argc; ++i) {
        const std::string flag = argv[i];
        if (i + 1 >= argc) {
            usage("missing value after " + flag);
        }
        const std::string value = argv[++i];
        if (flag == "--dsn") {
            settings.dsn = value;
        } else if (flag == "--threads") {
            settings.threads = std::stoi(value);
        } else if (flag == "--transactions") {
            settings.transactions = std::stoi(value);
        } else if (flag == "--max-attempts") {
            settings.max_attempts = std::stoi(value);
        } else if (flag == "--initial-us") {
            settings.initial = Duration{std::stoll(value)};
        } else if (flag == "--max-us") {
            settings.max = Duration{std::stoll(value)};
        } else if (flag == "--strategies") {
            settings.strategies = split(value);
        } else if (flag == "--vendor-maps") {
            settings.vendor_maps = value;
        } else if (flag == "--out") {
            settings.out = value;
        } else {
            usage("unknown option " + flag);
        }
    }
    if (settings.dsn.empty()) {
        usage("no DSN (--dsn or REBOUND_BENCH_DSN)");
    }
    if (settings.threads < 1 || settings.transactions < 1 || settings.max_attempts < 1) {
        usage("--threads, --transactions and --max-attempts must be positive");
    }
    return settings;
}

std::shared_ptr<const rebound::Policy> make_policy(const std::string& strategy,
                                                   const Settings& settings) {
    rebound::PolicyBuilder builder("contention-" + strategy);
    builder.max_attempts(settings.max_attempts)
        .retry_on(Matcher::of_category(ErrorCategory::SerializationFailure))
        .retry_on(Matcher::of_category(ErrorCategory::Deadlock));
    if (strategy == "immediate") {
        return builder.backoff(Backoff::none()).jitter(Jitter::none()).build();
    }
    builder.backoff(Backoff::exponential(settings.initial, 2.0, settings.max));
    if (strategy == "none") {
        builder.jitter(Jitter::none());
    } else if (strategy == "full") {
        builder.jitter(Jitter::full());
    } else if (strategy == "equal") {
        builder.jitter(Jitter::equal());
    } else if (strategy == "decorrelated") {
        builder.jitter(Jitter::decorrelated());
    } else {
        usage("unknown strategy " + strategy);
    }
    return builder.build();
}

// One transaction of the experiment: read the hot row, write it back plus one.
void read_modify_write(Connection& connection, const TransactionAttempt&) {
    const auto value = connection.query_value("SELECT value FROM rebound_hot WHERE id = 1");
    const std::int64_t current = value ? std::stoll(*value) : 0;
    connection.execute("UPDATE rebound_hot SET value = ? WHERE id = 1", {{current + 1}});
}

Connection open(const Settings& settings,
                const std::shared_ptr<const rebound::odbc::Environment>& environment,
                const std::shared_ptr<const rebound::SqlErrorClassifier>& classifier) {
    return Connection(environment, classifier, settings.dsn);
}

Result run_strategy(const std::string& strategy, const Settings& settings,
                    const std::shared_ptr<const rebound::odbc::Environment>& environment,
                    const std::shared_ptr<const rebound::SqlErrorClassifier>& classifier) {
    const auto policy = make_policy(strategy, settings);
    {
        Connection setup = open(settings, environment, classifier);
        setup.execute("DROP TABLE IF EXISTS rebound_hot");
        setup.execute("CREATE TABLE rebound_hot (id integer PRIMARY KEY, value bigint NOT NULL)");
        setup.execute("INSERT INTO rebound_hot VALUES (1, 0)");
    }

    std::vector<Connection> connections;
    connections.reserve(static_cast<std::size_t>(settings.threads));
    for (int i = 0; i < settings.threads; ++i) {
        connections.push_back(open(settings, environment, classifier));
    }

    const TransactionalRunner runner;
    const TransactionOptions options{.handler = "contention." + strategy,
                                     .idempotent = false,
                                     .isolation = IsolationLevel::Serializable,
                                     .stop = {}};
    std::atomic<std::int64_t> committed{0};
    std::atomic<std::int64_t> attempts{0};
    std::atomic<std::int64_t> exhausted{0};
    std::atomic<std::int64_t> other{0};
    std::latch start(settings.threads + 1);
    std::vector<std::jthread> threads;
    for (int i = 0; i < settings.threads; ++i) {
        threads.emplace_back([&, i] {
            Connection& connection = connections[static_cast<std::size_t>(i)];
            start.arrive_and_wait();
            for (int t = 0; t < settings.transactions; ++t) {
                const auto report = runner.run(connection, *policy, options, read_modify_write);
                attempts += report.attempts;
                if (report.succeeded()) {
                    ++committed;
                } else if (report.outcome == TransactionOutcome::Exhausted) {
                    ++exhausted;
                } else {
                    ++other;
                }
            }
        });
    }
    start.arrive_and_wait();
    const auto began = std::chrono::steady_clock::now();
    threads.clear();  // joins
    const auto ended = std::chrono::steady_clock::now();

    Result result;
    result.strategy = strategy;
    result.committed = committed;
    result.attempts = attempts;
    result.exhausted = exhausted;
    result.other_failures = other;
    result.wall_seconds = std::chrono::duration<double>(ended - began).count();
    {
        Connection check = open(settings, environment, classifier);
        const auto value = check.query_value("SELECT value FROM rebound_hot WHERE id = 1");
        result.final_value = value ? std::stoll(*value) : -1;
    }
    return result;
}

std::string to_json(const Result& r, const Settings& s) {
    std::ostringstream out;
    out << "  {\"strategy\": \"" << r.strategy << "\", \"threads\": " << s.threads
        << ", \"transactions_per_thread\": " << s.transactions
        << ", \"max_attempts\": " << s.max_attempts << ", \"initial_us\": " << s.initial.count()
        << ", \"max_us\": " << s.max.count() << ", \"committed\": " << r.committed
        << ", \"attempts\": " << r.attempts << ", \"exhausted\": " << r.exhausted
        << ", \"other_failures\": " << r.other_failures << ", \"wall_seconds\": " << r.wall_seconds
        << ", \"final_value\": " << r.final_value << "}";
    return out.str();
}

}  // namespace

int main(int argc, char** argv) {
    const Settings settings = parse(argc, argv);
    try {
        const auto environment = rebound::odbc::Environment::create();
        const auto classifier = rebound::dsl::load_vendor_maps_or_throw(settings.vendor_maps);
        std::vector<std::string> objects;
        bool consistent = true;
        for (const std::string& strategy : settings.strategies) {
            const Result result = run_strategy(strategy, settings, environment, classifier);
            std::fprintf(
                stderr, "%-13s committed %lld attempts %lld exhausted %lld other %lld wall %.2fs\n",
                strategy.c_str(), static_cast<long long>(result.committed),
                static_cast<long long>(result.attempts), static_cast<long long>(result.exhausted),
                static_cast<long long>(result.other_failures), result.wall_seconds);
            if (result.final_value != result.committed) {
                std::fprintf(stderr, "%s: the row holds %lld but %lld transactions committed\n",
                             strategy.c_str(), static_cast<long long>(result.final_value),
                             static_cast<long long>(result.committed));
                consistent = false;
            }
            objects.push_back(to_json(result, settings));
        }
        std::string json = "[\n";
        for (std::size_t i = 0; i < objects.size(); ++i) {
            json += objects[i] + (i + 1 < objects.size() ? ",\n" : "\n");
        }
        json += "]\n";
        if (settings.out.empty()) {
            std::cout << json;
        } else {
            std::ofstream(settings.out) << json;
        }
        return consistent ? 0 : 1;
    } catch (const std::exception& error) {
        std::fprintf(stderr, "rebound_contention_bench: %s\n", error.what());
        return 1;
    }
}
