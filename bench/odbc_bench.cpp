// The ODBC adapter's cost per failed statement, against a live database (docs/performance.md,
// "ODBC adapter overhead").
//
// Every iteration runs one statement that the server rejects, on one reused statement handle in
// autocommit mode:
//   odbc_failed_statement/bare             SQLExecDirect, then the SQLGetDiagRec loop into fixed
//                                          buffers: the least any caller must do to see the error;
//   odbc_failed_statement/rebound_adapter  SQLExecDirect, then what the adapter does with the
//                                          failure: read_diagnostic_records (owned records),
//                                          classify_failure (SqlErrorClassifier from the shipped
//                                          vendor maps) and rebound::decide();
//   odbc_failed_statement/paired           both of the above alternately in one loop, each timed
//                                          on its own; counters bare_ns, adapter_ns, overhead_ns,
//                                          overhead_percent: the paired difference, robust to load;
//   odbc_adapter_only/classify_and_decide  classify_failure and decide() on records read once,
//                                          without the round trip: the adapter's CPU part alone.
// The goal compares rebound_adapter with bare (best read from `paired`): at most 1 microsecond
// and at most 5% more per failed statement.
//
// The failing statement: PostgreSQL, `DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '40001'; END $$`
// (a serialization failure raised by the server, retried); MariaDB/MySQL, the same through
// `BEGIN NOT ATOMIC SIGNAL SQLSTATE '40001'; END`; SQLite and anything else, an INSERT that breaks
// a primary key (constraint_violation, not retried).
//
// The database: the connection string in REBOUND_BENCH_DSN, else a SQLite file in a temporary
// directory through the SQLite3 ODBC driver. When it cannot connect the program says why and exits
// 1 without running anything (bench/run.sh notes the failure and the report shows it).
#include <benchmark/benchmark.h>
#include <sql.h>
#include <sqlext.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "rebound/decision.hpp"
#include "rebound/dsl/vendor_map_loader.hpp"
#include "rebound/odbc/connection.hpp"
#include "rebound/odbc/database_error.hpp"
#include "rebound/odbc/diagnostic_record.hpp"
#include "rebound/policy.hpp"
#include "rebound/random_source.hpp"

namespace {

struct BenchDatabase {
    std::shared_ptr<const rebound::SqlErrorClassifier> classifier;
    std::shared_ptr<const rebound::Policy> policy;
    std::unique_ptr<rebound::odbc::Connection> connection;
    std::string failing_sql;
    SQLHSTMT statement = SQL_NULL_HSTMT;
    std::vector<rebound::odbc::DiagnosticRecord>
        sample_records;  // of one failure, for adapter_only
};

BenchDatabase* database = nullptr;

std::string failing_statement(rebound::odbc::Connection& connection) {
    switch (connection.vendor().value_or(rebound::Vendor::Generic)) {
        case rebound::Vendor::PostgreSql:
            return "DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '40001'; END $$";
        case rebound::Vendor::MySql:
            return "BEGIN NOT ATOMIC SIGNAL SQLSTATE '40001'; END";
        default:
            break;
    }
    connection.execute("DROP TABLE IF EXISTS rebound_bench_keys");
    connection.execute("CREATE TABLE rebound_bench_keys (id INTEGER PRIMARY KEY)");
    connection.execute("INSERT INTO rebound_bench_keys (id) VALUES (1)");
    return "INSERT INTO rebound_bench_keys (id) VALUES (1)";
}

// Runs the failing statement; aborts the benchmark if it unexpectedly succeeds.
void execute_failing(benchmark::State& state) {
    const SQLRETURN status = SQLExecDirect(
        database->statement,
        reinterpret_cast<SQLCHAR*>(const_cast<char*>(database->failing_sql.c_str())), SQL_NTS);
    if (SQL_SUCCEEDED(status)) {
        state.SkipWithError("the failing statement succeeded");
    }
}

// One failed statement, its records read with the bare SQLGetDiagRec loop.
void fail_bare(benchmark::State& state) {
    std::array<SQLCHAR, 6> sqlstate{};
    std::array<SQLCHAR, 1024> message{};
    SQLINTEGER native = 0;
    SQLSMALLINT length = 0;
    execute_failing(state);
    for (SQLSMALLINT record = 1;; ++record) {
        const SQLRETURN status =
            SQLGetDiagRec(SQL_HANDLE_STMT, database->statement, record, sqlstate.data(), &native,
                          message.data(), static_cast<SQLSMALLINT>(message.size()), &length);
        if (!SQL_SUCCEEDED(status)) {
            break;
        }
        benchmark::DoNotOptimize(sqlstate);
        benchmark::DoNotOptimize(native);
    }
    SQLFreeStmt(database->statement, SQL_CLOSE);
}

// One failed statement, read, classified and decided on as the adapter does.
void fail_with_adapter(benchmark::State& state, rebound::RandomSource& random) {
    execute_failing(state);
    rebound::odbc::DatabaseFailure failure = rebound::odbc::classify_failure(
        *database->classifier, database->connection->vendor(), rebound::DatabasePhase::Execute,
        rebound::odbc::read_diagnostic_records(SQL_HANDLE_STMT, database->statement));
    const rebound::Decision decision = rebound::decide(*database->policy, failure.description(),
                                                       rebound::AttemptContext{}, random);
    benchmark::DoNotOptimize(decision);
    SQLFreeStmt(database->statement, SQL_CLOSE);
}

void bare(benchmark::State& state) {
    for (auto _ : state) {
        fail_bare(state);
    }
}

void rebound_adapter(benchmark::State& state) {
    rebound::RandomSource& random = rebound::default_random_source();
    for (auto _ : state) {
        fail_with_adapter(state, random);
    }
}

// Both variants in one loop, in alternating order, each timed on its own: load from other processes
// then slows both alike, so the difference stays measurable where the separate benchmarks' noise
// (cv 5-20% of a round trip on a busy machine) hides it. Counters per iteration: bare_ns,
// adapter_ns, overhead_ns (adapter - bare) and overhead_percent (of bare, over the whole run).
void paired(benchmark::State& state) {
    using Clock = std::chrono::steady_clock;
    rebound::RandomSource& random = rebound::default_random_source();
    Clock::duration bare_total{0};
    Clock::duration adapter_total{0};
    bool bare_first = true;  // alternates, so that neither side always follows the other
    for (auto _ : state) {
        const Clock::time_point start = Clock::now();
        if (bare_first) {
            fail_bare(state);
        } else {
            fail_with_adapter(state, random);
        }
        const Clock::time_point middle = Clock::now();
        if (bare_first) {
            fail_with_adapter(state, random);
        } else {
            fail_bare(state);
        }
        const Clock::time_point end = Clock::now();
        bare_total += bare_first ? middle - start : end - middle;
        adapter_total += bare_first ? end - middle : middle - start;
        bare_first = !bare_first;
    }
    const auto nanoseconds = [](Clock::duration d) {
        return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(d).count());
    };
    const double bare_ns = nanoseconds(bare_total);
    const double adapter_ns = nanoseconds(adapter_total);
    state.counters["bare_ns"] = benchmark::Counter(bare_ns, benchmark::Counter::kAvgIterations);
    state.counters["adapter_ns"] =
        benchmark::Counter(adapter_ns, benchmark::Counter::kAvgIterations);
    state.counters["overhead_ns"] =
        benchmark::Counter(adapter_ns - bare_ns, benchmark::Counter::kAvgIterations);
    state.counters["overhead_percent"] =
        bare_ns > 0 ? 100.0 * (adapter_ns - bare_ns) / bare_ns : 0.0;
}

// The records are copied each time, which stands in for the allocations of reading them.
void classify_and_decide(benchmark::State& state) {
    rebound::RandomSource& random = rebound::default_random_source();
    const rebound::AttemptContext context{};
    for (auto _ : state) {
        rebound::odbc::DatabaseFailure failure = rebound::odbc::classify_failure(
            *database->classifier, database->connection->vendor(), rebound::DatabasePhase::Execute,
            database->sample_records);
        const rebound::Decision decision =
            rebound::decide(*database->policy, failure.description(), context, random);
        benchmark::DoNotOptimize(decision);
    }
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    std::filesystem::path temporary;
    std::string dsn;
    if (const char* configured = std::getenv("REBOUND_BENCH_DSN");
        configured != nullptr && *configured != '\0') {
        dsn = configured;
    } else {
        temporary = std::filesystem::temp_directory_path() /
                    ("rebound-odbc-bench-" + std::to_string(std::random_device{}()));
        std::filesystem::create_directories(temporary);
        dsn = "Driver={SQLite3};Database=" + (temporary / "bench.db").string() + ";Timeout=1";
    }

    BenchDatabase state;
    try {
        state.classifier = rebound::dsl::load_vendor_maps_or_throw(REBOUND_BENCH_VENDOR_MAP_DIR);
        state.connection = std::make_unique<rebound::odbc::Connection>(
            rebound::odbc::Environment::create(), state.classifier, dsn);
    } catch (const std::exception& error) {
        std::fprintf(stderr,
                     "rebound_odbc_bench: cannot connect (%s); set REBOUND_BENCH_DSN to an ODBC "
                     "connection string\n",
                     error.what());
        return 1;
    }
    state.policy = rebound::PolicyBuilder("bench")
                       .max_attempts(5)
                       .backoff(rebound::Backoff::exponential(std::chrono::milliseconds(10)))
                       .jitter(rebound::Jitter::full())
                       .retry_on(rebound::Matcher::transient())
                       .build();
    state.failing_sql = failing_statement(*state.connection);
    if (!SQL_SUCCEEDED(
            SQLAllocHandle(SQL_HANDLE_STMT, state.connection->handle(), &state.statement))) {
        std::fprintf(stderr, "rebound_odbc_bench: cannot allocate a statement handle\n");
        return 1;
    }
    database = &state;

    // One failure read for real: it must be rejected, and it shows what is being classified.
    if (SQL_SUCCEEDED(SQLExecDirect(
            state.statement, reinterpret_cast<SQLCHAR*>(state.failing_sql.data()), SQL_NTS))) {
        std::fprintf(stderr, "rebound_odbc_bench: the failing statement succeeded: %s\n",
                     state.failing_sql.c_str());
        return 1;
    }
    state.sample_records = rebound::odbc::read_diagnostic_records(SQL_HANDLE_STMT, state.statement);
    SQLFreeStmt(state.statement, SQL_CLOSE);
    const rebound::odbc::DatabaseFailure sample =
        rebound::odbc::classify_failure(*state.classifier, state.connection->vendor(),
                                        rebound::DatabasePhase::Execute, state.sample_records);
    benchmark::AddCustomContext("database", state.connection->dbms_name());
    benchmark::AddCustomContext("failing_statement", state.failing_sql);
    benchmark::AddCustomContext("classified_as", sample.summary());

    benchmark::RegisterBenchmark("odbc_failed_statement/bare", bare);
    benchmark::RegisterBenchmark("odbc_failed_statement/rebound_adapter", rebound_adapter);
    benchmark::RegisterBenchmark("odbc_failed_statement/paired", paired);
    benchmark::RegisterBenchmark("odbc_adapter_only/classify_and_decide", classify_and_decide);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();

    SQLFreeHandle(SQL_HANDLE_STMT, state.statement);
    database = nullptr;
    state.connection.reset();
    if (!temporary.empty()) {
        std::error_code ignored;
        std::filesystem::remove_all(temporary, ignored);
    }
    return 0;
}
