// The retry queue on PostgreSQL (docs/queue.md, "Performance"): no-op handlers drained by 1, 2 and
// 4 workers, beside the naive claim every worker serialises on (`SELECT ... ORDER BY due_at, id
// LIMIT 1 FOR UPDATE` on the oldest row, without SKIP LOCKED); the lateness of due retries at half
// the measured maximum rate; and the cost per message as done rows pile up to 1 million (kept) or
// are deleted.
//
//   REBOUND_BENCH_DSN='Driver={PostgreSQL Unicode};Server=127.0.0.1;Port=...;...'
//   build/bench/rebound_queue_bench [--benchmark_filter=...]      (bench/queue_bench.sh runs it)
//
// Each iteration is one drain of `kMessages` ready messages (`kScalingMessages` in the scaling
// runs), timed by wall clock; the counter `messages_per_second` is the figure. The program exits 1
// without REBOUND_BENCH_DSN or when the database is not PostgreSQL (the bulk inserts use
// generate_series).
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <thread>
#include <vector>

#include "rebound/dsl/vendor_map_loader.hpp"
#include "rebound/error_exception.hpp"
#include "rebound/queue/queue_schema.hpp"
#include "rebound/queue/queue_store.hpp"
#include "rebound/queue/worker_pool.hpp"

namespace {

using namespace std::chrono_literals;
using rebound::odbc::Connection;

constexpr int kMessages = 2000;
// The scaling runs (naive and SKIP LOCKED) drain more, so that an iteration is long enough to
// smooth the load of a shared machine.
constexpr int kScalingMessages = 5000;

struct Database {
    std::string dsn;
    std::shared_ptr<const rebound::odbc::Environment> environment;
    std::shared_ptr<const rebound::SqlErrorClassifier> classifier;
};

const Database& database() {
    static const Database db{
        std::getenv("REBOUND_BENCH_DSN") ? std::getenv("REBOUND_BENCH_DSN") : "",
        rebound::odbc::Environment::create(),
        rebound::dsl::load_vendor_maps_or_throw(REBOUND_BENCH_VENDOR_MAP_DIR)};
    return db;
}

Connection connect() {
    return Connection(database().environment, database().classifier, database().dsn);
}

std::int64_t count(Connection& c, const std::string& sql) {
    return std::stoll(c.query_value(sql).value_or("0"));
}

// Empties the queue, then adds `done_rows` done messages and `ready` ready ones, all at once.
void fill(Connection& c, std::int64_t ready, std::int64_t done_rows,
          const std::string& handler = "bench.noop") {
    c.execute("TRUNCATE rebound_queue_messages");
    const std::string insert =
        "INSERT INTO rebound_queue_messages (handler, payload, command_id, state, due_at, "
        "created_at) SELECT '" +
        handler +
        "', 'x', 'c' || g, ?, "
        "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT) - 1000, "
        "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT) FROM "
        "generate_series(1, ?) g";
    if (done_rows > 0) {
        c.execute(insert, {std::string("done"), done_rows});
    }
    if (ready > 0) {
        c.execute(insert, {std::string("ready"), ready});
    }
    c.execute("ANALYZE rebound_queue_messages");
}

// Waits until `pool` has finished `messages` messages (succeeded or dead). It reads the pool's
// counters, not the table: a COUNT(*) every few milliseconds would load the database the workers
// share (on a million-row table it is a sequential scan).
void wait_finished(const rebound::queue::WorkerPool& pool, std::uint64_t messages) {
    while (pool.metrics().succeeded.load() + pool.metrics().dead.load() < messages) {
        std::this_thread::sleep_for(1ms);
    }
}

std::shared_ptr<rebound::queue::QueueHandlers> noop_handlers(
    rebound::queue::Completion completion = rebound::queue::Completion::WithHandlerWrites) {
    auto handlers = std::make_shared<rebound::queue::QueueHandlers>();
    handlers->add(
        rebound::HandlerRegistration{.name = "bench.noop"}, [](rebound::queue::Delivery&) {},
        completion);
    return handlers;
}

rebound::queue::WorkerOptions pool_options(int workers, bool delete_done = false) {
    return {.connection_string = database().dsn,
            .classifier = database().classifier,
            .threads = workers,
            .lease = 30s,
            .batch = 10,
            .poll_interval = 5ms,
            .delete_done = delete_done};
}

void record_rate(benchmark::State& state, std::int64_t per_iteration) {
    const double rate =
        static_cast<double>(per_iteration) * static_cast<double>(state.iterations());
    state.counters["messages_per_second"] = benchmark::Counter(rate, benchmark::Counter::kIsRate);
}

// Arg 1: grouped completion (queue_handlers.hpp) instead of one transaction per message. The pool
// starts and connects before the timer: the figure is the steady rate of draining, not the cost of
// connecting (the naive baseline connects outside the timer too).
void queue_skip_locked(benchmark::State& state) {
    const int workers = static_cast<int>(state.range(0));
    Connection c = connect();
    const auto handlers =
        noop_handlers(state.range(1) != 0 ? rebound::queue::Completion::Grouped
                                          : rebound::queue::Completion::WithHandlerWrites);
    for (auto _ : state) {
        state.PauseTiming();
        c.execute("TRUNCATE rebound_queue_messages");
        rebound::queue::WorkerPool pool(database().environment, handlers, pool_options(workers));
        pool.start();
        std::this_thread::sleep_for(200ms);  // the threads connect and find the queue empty
        fill(c, kScalingMessages, 0);
        state.ResumeTiming();
        wait_finished(pool, kScalingMessages);
        state.PauseTiming();
        pool.stop();
        state.ResumeTiming();
    }
    record_rate(state, kScalingMessages);
}

// The naive claim: every worker asks for the oldest row and waits on the same lock. Its
// statements are prepared once per connection, as the pool's are.
void naive_worker(Connection& c, std::atomic<bool>& failed) {
    try {
        for (;;) {
            const auto rows = c.query_prepared(
                "SELECT id FROM rebound_queue_messages WHERE state = 'ready' AND due_at <= "
                "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT) ORDER BY due_at, "
                "id LIMIT 1 FOR UPDATE",
                {});
            if (rows.empty()) {
                c.commit();
                // Empty because the row it waited for was taken: look again unless all are done.
                if (count(c,
                          "SELECT COUNT(*) FROM rebound_queue_messages WHERE state = "
                          "'ready'") == 0) {
                    c.commit();
                    return;
                }
                c.commit();
                continue;
            }
            c.execute_prepared("UPDATE rebound_queue_messages SET state = 'done' WHERE id = ?",
                               {std::stoll(rows[0][0].value_or("0"))});
            c.commit();
        }
    } catch (const std::exception& error) {
        std::cerr << "naive worker: " << error.what() << '\n';
        failed = true;
    }
}

void queue_naive_for_update(benchmark::State& state) {
    const int workers = static_cast<int>(state.range(0));
    Connection c = connect();
    for (auto _ : state) {
        state.PauseTiming();
        std::vector<Connection> connections;
        for (int i = 0; i < workers; ++i) {
            connections.push_back(connect());
            connections.back().set_autocommit(false);
        }
        fill(c, kScalingMessages, 0);
        state.ResumeTiming();
        std::atomic<bool> failed{false};
        std::vector<std::jthread> threads;
        for (Connection& connection : connections) {
            threads.emplace_back([&] { naive_worker(connection, failed); });
        }
        threads.clear();
        if (failed) {
            state.SkipWithError("a naive worker failed");
            return;
        }
    }
    record_rate(state, kScalingMessages);
}

// The lateness of due retries at half the maximum load (docs/queue.md, "Waking for due
// retries"). Every message's first attempt fails and its retry is due 50 ms later. Arg 1: the
// no-op handler is registered with Completion::Grouped, the mode for handlers that write nothing
// through the connection (the goal is measured with it); arg 0: with the default
// completion, one transaction per attempt (the completion, then ROLLBACK and the failure, or
// COMMIT), the cost of handlers that write their effect through the connection. Each
// repetition:
//   1. maximum load: with a pool of 4 workers connected, one producer connection enqueues
//      kLatenessDrain such messages one by one as fast as it can while the pool works; the rate
//      at which they are finished (both attempts) is the most the whole system sustains, the
//      producer's cost on the shared CPUs included. A bulk insert drained by the pool measures
//      only the workers and overstates it: half of that ran the machine close to saturation.
//      This is also the warm-up;
//   2. quiesce: the table is emptied and analyzed empty (what autovacuum does to a drained
//      queue, the worst statistics for the workers' plans), CHECKPOINT runs so that a timed
//      checkpoint does not land in the measurement, and a fresh pool with the default options
//      (poll interval 100 ms, batch 10) connects;
//   3. messages arrive at half the maximum rate for kLatenessSeconds from the producer, on a
//      fixed schedule; the pool's retry_lateness histogram (how late each retry's attempt starts
//      after its due_at) gives p50 and p99 over every retry of the run.
// Counters: the maximum rate, the rate actually offered, p50/p99, the number of retries measured,
// the 1-minute load average before the measurement and the CPU pressure during it (the machine
// is shared: the share of time some runnable task waited for a CPU).
constexpr int kLatenessDrain = 4000;
constexpr double kLatenessSeconds = 10.0;

double load_average() {
    double one_minute = 0;
    if (std::FILE* file = std::fopen("/proc/loadavg", "r")) {
        if (std::fscanf(file, "%lf", &one_minute) != 1) {
            one_minute = 0;
        }
        std::fclose(file);
    }
    return one_minute;
}

// The share of the last 10 s in which some runnable task waited for a CPU (Linux pressure stall
// information, /proc/pressure/cpu `some avg10`, percent); -1 when the kernel does not report it.
double cpu_pressure() {
    double some = -1;
    if (std::FILE* file = std::fopen("/proc/pressure/cpu", "r")) {
        if (std::fscanf(file, "some avg10=%lf", &some) != 1) {
            some = -1;
        }
        std::fclose(file);
    }
    return some;
}

void queue_retry_lateness(benchmark::State& state) {
    const auto completion = state.range(0) != 0 ? rebound::queue::Completion::Grouped
                                                : rebound::queue::Completion::WithHandlerWrites;
    Connection c = connect();
    auto handlers = std::make_shared<rebound::queue::QueueHandlers>();
    handlers->add(
        rebound::HandlerRegistration{.name = "bench.retry",
                                     .policy = rebound::PolicyBuilder("bench-retry")
                                                   .max_attempts(3)
                                                   .backoff(rebound::Backoff::fixed(50ms))
                                                   .jitter(rebound::Jitter::none())
                                                   .retry_on(rebound::Matcher::transient())
                                                   .build()},
        [](rebound::queue::Delivery& d) {
            if (d.message.attempt == 1) {
                throw rebound::Error(rebound::ErrorCategory::ServiceUnavailable, "first attempt");
            }
        },
        completion);
    const rebound::queue::QueueStore store(c.vendor().value());
    rebound::queue::WorkerOptions options{
        .connection_string = database().dsn, .classifier = database().classifier, .threads = 4};
    for (auto _ : state) {
        c.execute("TRUNCATE rebound_queue_messages");
        double max_rate = 0;
        {
            rebound::queue::WorkerPool pool(database().environment, handlers, options);
            pool.start();
            std::this_thread::sleep_for(300ms);  // connected before the timer
            const auto drain_start = std::chrono::steady_clock::now();
            for (int i = 0; i < kLatenessDrain; ++i) {
                store.enqueue(c, {.handler = "bench.retry"});
            }
            wait_finished(pool, kLatenessDrain);
            max_rate = kLatenessDrain /
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - drain_start)
                           .count();
        }
        const double rate = max_rate / 2.0;
        c.execute("TRUNCATE rebound_queue_messages");
        c.execute("ANALYZE rebound_queue_messages");
        c.execute("CHECKPOINT");
        rebound::queue::WorkerPool pool(database().environment, handlers, options);
        pool.start();
        std::this_thread::sleep_for(300ms);
        const double load = load_average();
        const auto period = std::chrono::duration<double>(1.0 / rate);
        const int arriving = static_cast<int>(rate * kLatenessSeconds);
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < arriving; ++i) {
            std::this_thread::sleep_until(
                start + std::chrono::duration_cast<std::chrono::nanoseconds>(period * i));
            store.enqueue(c, {.handler = "bench.retry"});
        }
        const double offered =
            arriving /
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        wait_finished(pool, static_cast<std::uint64_t>(arriving));
        const double pressure = cpu_pressure();  // over the last 10 s: the arrivals
        pool.stop();
        const rebound::queue::LatenessHistogram& lateness = pool.metrics().retry_lateness;
        state.counters["max_messages_per_second"] = max_rate;
        state.counters["offered_messages_per_second"] = offered;
        state.counters["lateness_p50_ms"] = static_cast<double>(lateness.percentile(0.5)) / 1e3;
        state.counters["lateness_p99_ms"] = static_cast<double>(lateness.percentile(0.99)) / 1e3;
        state.counters["retries_measured"] = static_cast<double>(lateness.count());
        state.counters["load_average"] = load;
        state.counters["cpu_pressure_percent"] = pressure;
    }
}

// One worker draining kMessages with `done_rows` done rows in the table; arg 1: delete done rows.
void queue_table_size(benchmark::State& state) {
    const std::int64_t done_rows = state.range(0);
    const bool delete_done = state.range(1) != 0;
    Connection c = connect();
    const auto handlers = noop_handlers();
    for (auto _ : state) {
        state.PauseTiming();
        c.execute("TRUNCATE rebound_queue_messages");
        rebound::queue::WorkerPool pool(database().environment, handlers,
                                        pool_options(1, delete_done));
        pool.start();
        std::this_thread::sleep_for(200ms);  // connected, outside the timer as above
        fill(c, kMessages, delete_done ? 0 : done_rows);
        state.ResumeTiming();
        wait_finished(pool, kMessages);
        state.PauseTiming();
        pool.stop();
        state.ResumeTiming();
    }
    record_rate(state, kMessages);
    state.counters["us_per_message"] =
        benchmark::Counter(static_cast<double>(kMessages) * static_cast<double>(state.iterations()),
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

BENCHMARK(queue_naive_for_update)
    ->ArgName("workers")
    ->Arg(1)
    ->Arg(2)
    ->Arg(4)
    ->Iterations(3)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(queue_skip_locked)
    ->ArgNames({"workers", "grouped"})
    ->ArgsProduct({{1, 2, 4}, {0, 1}})
    ->Iterations(3)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
// Five repetitions of the goal's measure (grouped), three of the default completion beside it.
BENCHMARK(queue_retry_lateness)
    ->ArgName("grouped")
    ->Arg(1)
    ->Iterations(1)
    ->Repetitions(5)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(queue_retry_lateness)
    ->ArgName("grouped")
    ->Arg(0)
    ->Iterations(1)
    ->Repetitions(3)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(queue_table_size)
    ->ArgNames({"done_rows", "delete_done"})
    ->Args({0, 0})
    ->Args({100000, 0})
    ->Args({1000000, 0})
    ->Args({1000000, 1})
    ->Iterations(3)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (database().dsn.empty()) {
        std::cerr
            << "rebound_queue_bench: set REBOUND_BENCH_DSN to a PostgreSQL connection string\n";
        return 1;
    }
    try {
        Connection c = connect();
        if (c.vendor() != rebound::Vendor::PostgreSql) {
            std::cerr << "rebound_queue_bench: needs PostgreSQL, got " << c.dbms_name() << '\n';
            return 1;
        }
        rebound::queue::migrate(c);
    } catch (const std::exception& error) {
        std::cerr << "rebound_queue_bench: " << error.what() << '\n';
        return 1;
    }
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
