#!/usr/bin/env bash
# Runs every benchmark of the project in one go, each next to its baselines, and writes
# docs/performance.md (with docs/performance-contention.svg and the brownout charts
# docs/performance-brownout*.svg) with bench/report.py.
#
#   bench/run.sh [BUILD_DIR]        (default: build; a Release build with the bench targets)
#
# Environment:
#   REBOUND_BENCH_REPETITIONS   Google Benchmark repetitions (default 10; medians are reported)
#   REBOUND_BENCH_MIN_TIME      seconds per repetition (default 0.2)
#   REBOUND_CONTENTION_ROUNDS   rounds of the contention experiment (default 5; medians)
#   REBOUND_BENCH_RESULTS       where the raw results go (default BUILD_DIR/bench-results)
#   REBOUND_BENCH_NO_REPORT=1   keep the raw results, do not rewrite docs/performance.md
#
# Build first, e.g.:
#   cmake -S . -B build-perf -G Ninja -DCMAKE_BUILD_TYPE=Release -DREBOUND_BUILD_TESTS=OFF
#   cmake --build build-perf -j2 --target rebound_decision_bench rebound_compile_bench \
#       rebound_executor_bench rebound_odbc_bench rebound_contention_bench rebound_cli \
#       rebound_protocols_bench rebound_breaker_bench rebound_latency_recorder_bench \
#       rebound_queue_bench \
#       rebound_http_client_bench rebound_async_http_bench rebound_async_bench \
#       rebound_hostile_lint_bench rebound_brownout_experiment rebound_hedging_experiment
# A binary that is missing is skipped with a note (in the report too). The contention experiment
# starts its own PostgreSQL through tests/odbc/database-server.sh and always stops it.
# The whole run takes about 13-16 minutes on 2 cores (the brownout about 3.5 of them, hedging
# about 3.5).
set -euo pipefail

source_dir=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$(cd "${1:-build}" && pwd)
results=${REBOUND_BENCH_RESULTS:-$build_dir/bench-results}
repetitions=${REBOUND_BENCH_REPETITIONS:-10}
min_time=${REBOUND_BENCH_MIN_TIME:-0.2}
rounds=${REBOUND_CONTENTION_ROUNDS:-5}
threads=16
transactions=200
max_tries=100

rm -rf "$results"
mkdir -p "$results"
commands="$results/commands.txt"
notes="$results/notes.txt"
: >"$commands"
: >"$notes"

# Samples the 1-minute load average after a phase, and the CPU time the hypervisor gave to others
# (steal, /proc/stat's eighth field) against all CPU time so far, in clock ticks: the report shows
# how busy the machine was, and what share of each phase's CPU time the host took away. Steal counts
# only a virtual CPU held off its physical one, not a physical core shared with another guest.
load_log="$results/load.txt"
cpu_ticks() {  # "STEAL TOTAL" of all CPUs since boot
  awk '$1 == "cpu" { total = 0; for (i = 2; i <= 9; i++) total += $i; print $9, total; exit }' /proc/stat
}
echo "start 0 $(cpu_ticks)" >"$load_log"
record_load() {
  echo "$1 $(cut -d' ' -f1 /proc/loadavg) $(cpu_ticks)" >>"$load_log"
}

note() {
  echo "$*" | tee -a "$notes" >&2
}

# Records the command (for the report) and runs it.
run_recorded() {
  echo "$*" >>"$commands"
  "$@"
}

cache_value() {
  sed -n "s/^$1:[A-Z]*=//p" "$build_dir/CMakeCache.txt" 2>/dev/null | head -1
}

# --- The machine ---------------------------------------------------------------------------
compiler=$(cache_value CMAKE_CXX_COMPILER)
python3 - "$results/machine.json" <<PY
import json, os, subprocess, sys
def lscpu(field):
    for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == field:
            return value.strip()
    return ""
compiler = subprocess.run(["${compiler:-c++}", "--version"], capture_output=True, text=True).stdout.splitlines()
json.dump({
    "cpu_model": lscpu("Model name"),
    "cpus": os.cpu_count(),
    "threads_per_core": lscpu("Thread(s) per core"),
    "kernel": os.uname().release,
    "compiler": compiler[0] if compiler else "${compiler}",
    "build_type": "$(cache_value CMAKE_BUILD_TYPE)",
    "benchmark_version": "$(dpkg-query -W -f '${Version}' libbenchmark-dev 2>/dev/null || echo unknown)",
    "cxx_flags": "$(cache_value CMAKE_CXX_FLAGS_RELEASE)",
    "build_dir": "$build_dir",
    "repetitions": $repetitions,
    "min_time": $min_time,
    "contention_rounds": $rounds,
    "load_before": open("/proc/loadavg").read().split()[:3],
}, open(sys.argv[1], "w"), indent=1)
PY
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# --- Google Benchmark programs ----------------------------------------------------------------
# benchmark_program NAME [RESULT_NAME [EXTRA_ARGUMENT...]]
benchmark_program() {
  local name=$1
  local result_name=${2:-$1}
  shift $(( $# < 2 ? $# : 2 ))
  local binary="$build_dir/bench/$name"
  if [ ! -x "$binary" ]; then
    note "skipped $name: $binary is not built"
    return
  fi
  echo "== $name" >&2
  # The console output is the JSON too (--benchmark_format=json); only the file is kept.
  local status=0
  run_recorded "$binary" --benchmark_repetitions="$repetitions" \
    --benchmark_min_time="$min_time" --benchmark_report_aggregates_only=true \
    --benchmark_format=json --benchmark_out_format=json \
    --benchmark_out="$results/$result_name.json" "$@" >/dev/null || status=$?
  if [ "$status" -ne 0 ]; then
    note "failed $result_name (exit status $status)"
    rm -f "$results/$result_name.json"
  fi
  record_load "$result_name"
}

# The decisions' repetitions in random order across all cases, each a separate timed run: a case
# and its baseline sample the machine's slow and fast spells alike, where one after the other a
# spell could fall on one side's ten repetitions only.
benchmark_program rebound_decision_bench rebound_decision_bench \
  --benchmark_enable_random_interleaving=true
# Instructions per decision: a figure other load does not move (needs valgrind; about 40 s).
if command -v valgrind >/dev/null && [ -x "$build_dir/bench/rebound_decision_bench" ]; then
  run_recorded bash "$source_dir/bench/decision_instructions.sh" "$build_dir" \
    >"$results/decision_instructions.txt" || note "failed decision_instructions.sh"
else
  note "skipped the instruction counts of the decisions: valgrind is not installed"
fi
benchmark_program rebound_executor_bench
# Instructions per run of the executor's overhead cases (needs valgrind; about 10 s).
if command -v valgrind >/dev/null && [ -x "$build_dir/bench/rebound_executor_bench" ]; then
  run_recorded bash "$source_dir/bench/executor_instructions.sh" "$build_dir" \
    >"$results/executor_instructions.txt" || note "failed executor_instructions.sh"
fi
benchmark_program rebound_breaker_bench
benchmark_program rebound_latency_recorder_bench
# Instructions per record and per read of the latency recorder (needs valgrind; about 10 s).
if command -v valgrind >/dev/null && [ -x "$build_dir/bench/rebound_latency_recorder_bench" ]; then
  run_recorded bash "$source_dir/bench/latency_recorder_instructions.sh" "$build_dir" \
    >"$results/latency_recorder_instructions.txt" || note "failed latency_recorder_instructions.sh"
fi
benchmark_program rebound_compile_bench
benchmark_program rebound_protocols_bench
benchmark_program rebound_http_client_bench
benchmark_program rebound_async_http_bench

# The asynchronous executor: the timing cases with repetitions, then each memory case once in a
# process of its own (a process reuses the pages an earlier case freed, so a second measurement
# in one process reads low).
async_bench=$build_dir/bench/rebound_async_bench
if [ -x "$async_bench" ]; then
  echo "== rebound_async_bench" >&2
  run_recorded "$async_bench" --benchmark_filter='^async_(overhead|attempts)/' \
    --benchmark_repetitions="$repetitions" --benchmark_min_time="$min_time" \
    --benchmark_report_aggregates_only=true --benchmark_format=json \
    --benchmark_out_format=json --benchmark_out="$results/rebound_async_bench.json" >/dev/null ||
    { note "failed rebound_async_bench"; rm -f "$results/rebound_async_bench.json"; }
  for case in hand_loop executor_run executor_run_value executor_run_stop_token; do
    run_recorded "$async_bench" --benchmark_filter="^async_waiting/$case/" \
      --benchmark_format=json --benchmark_out_format=json \
      --benchmark_out="$results/rebound_async_bench-$case.json" >/dev/null ||
      { note "failed rebound_async_bench ($case)"; rm -f "$results/rebound_async_bench-$case.json"; }
  done
  record_load rebound_async_bench
else
  note "skipped rebound_async_bench: $async_bench is not built"
fi
# The ODBC adapter on its default database (SQLite; REBOUND_BENCH_DSN is not passed on).
(unset REBOUND_BENCH_DSN; benchmark_program rebound_odbc_bench)

# --- Lint throughput ---------------------------------------------------------------------------
if [ -x "$build_dir/tools/rebound" ]; then
  echo "== lint throughput" >&2
  run_recorded "$source_dir/bench/lint_throughput.sh" "$build_dir/tools/rebound" 1000 \
    >"$results/lint.txt" 2>&1 || note "failed lint throughput"
  record_load lint
else
  note "skipped lint throughput: $build_dir/tools/rebound is not built"
fi

# --- Lint time against size for hostile files (each shape in a process of its own, so that the
# peak memory it reports, a high-water mark, is its own; 3 repetitions: the growth matters, not
# the last percent) ----------------------------------------------------------------------------
hostile=$build_dir/bench/rebound_hostile_lint_bench
if [ -x "$hostile" ]; then
  echo "== rebound_hostile_lint_bench" >&2
  for shape in chain aliases wide_list many_policies; do
    run_recorded "$hostile" --benchmark_filter="^$shape/" --benchmark_repetitions=3 \
      --benchmark_report_aggregates_only=true --benchmark_format=json \
      --benchmark_out_format=json --benchmark_out="$results/rebound_hostile_lint_bench-$shape.json" \
      >/dev/null || { note "failed rebound_hostile_lint_bench ($shape)"
      rm -f "$results/rebound_hostile_lint_bench-$shape.json"; }
  done
  record_load hostile_lint
else
  note "skipped rebound_hostile_lint_bench: $hostile is not built"
fi

# --- Real database contention ------------------------------------------------------------------
contention=$build_dir/bench/rebound_contention_bench
if [ ! -x "$contention" ]; then
  note "skipped contention: $contention is not built"
elif ! command -v pgbench >/dev/null || [ ! -x /usr/lib/postgresql/15/bin/postgres ]; then
  note "skipped contention: PostgreSQL 15 or pgbench is not installed"
else
  echo "== contention (PostgreSQL)" >&2
  state_dir=$(mktemp -d -t rebound-bench-pg.XXXXXX)
  # shellcheck disable=SC2064  # expand now: the trap must stop this server
  trap "'$source_dir/tests/odbc/database-server.sh' stop postgresql '$state_dir' >/dev/null 2>&1; rm -rf '$state_dir'" EXIT
  REBOUND_DB_OWNER_PID=$$ REBOUND_DB_MAX_SECONDS=900 \
    "$source_dir/tests/odbc/database-server.sh" start postgresql "$state_dir" >&2
  dsn=$(cat "$state_dir/connection-string")
  port=$(sed -n 's/.*Port=\([0-9]*\).*/\1/p' <<<"$dsn")
  psql_command=(psql -h 127.0.0.1 -p "$port" -U postgres -X -q -v ON_ERROR_STOP=1 postgres)
  # The ODBC adapter again, on this server (a serialization failure raised by the server).
  echo "REBOUND_BENCH_DSN='Driver={PostgreSQL Unicode};Server=127.0.0.1;Port=PORT;...' \\" >>"$commands"
  REBOUND_BENCH_DSN=$dsn benchmark_program rebound_odbc_bench rebound_odbc_bench-postgresql
  echo "psql -h 127.0.0.1 -p PORT -U postgres -c 'CREATE TABLE rebound_hot (id integer PRIMARY KEY, value bigint NOT NULL); INSERT INTO rebound_hot VALUES (1, 0)'" >>"$commands"
  pgbench_command=(pgbench -h 127.0.0.1 -p "$port" -U postgres -n -c "$threads" -j 2
    -t "$transactions" --max-tries="$max_tries" -f "$source_dir/bench/contention.pgbench.sql"
    postgres)
  echo "${pgbench_command[*]/$port/PORT}" >>"$commands"
  echo "$contention --dsn 'Driver={PostgreSQL Unicode};Server=127.0.0.1;Port=PORT;...' --threads $threads --transactions $transactions --max-attempts $max_tries --out ROUND.json" >>"$commands"
  for ((round = 1; round <= rounds; ++round)); do
    echo "-- round $round: pgbench" >&2
    "${psql_command[@]}" -c "DROP TABLE IF EXISTS rebound_hot" \
      -c "CREATE TABLE rebound_hot (id integer PRIMARY KEY, value bigint NOT NULL)" \
      -c "INSERT INTO rebound_hot VALUES (1, 0)" 2>/dev/null
    began=$(date +%s.%N)
    "${pgbench_command[@]}" >"$results/pgbench-$round.txt" 2>&1 || note "pgbench round $round failed"
    ended=$(date +%s.%N)
    final=$("${psql_command[@]}" -tA -c "SELECT value FROM rebound_hot WHERE id = 1")
    python3 -c 'import json,sys; json.dump({"wall_seconds_outside": float(sys.argv[2]) - float(sys.argv[1]), "final_value": int(sys.argv[3])}, open(sys.argv[4], "w"))' \
      "$began" "$ended" "$final" "$results/pgbench-$round.json"
    echo "-- round $round: rebound_contention_bench" >&2
    "$contention" --dsn "$dsn" --threads "$threads" --transactions "$transactions" \
      --max-attempts "$max_tries" --out "$results/contention-$round.json" ||
      note "rebound_contention_bench round $round failed"
  done
  echo "-- round trips per attempt (strace, one client)" >&2
  echo "bench/round_trips.sh $contention 'Driver={PostgreSQL Unicode};...' PORT round-trips.json" >>"$commands"
  "$source_dir/bench/round_trips.sh" "$contention" "$dsn" "$port" "$results/round-trips.json" \
    >/dev/null || note "round trips per attempt: bench/round_trips.sh failed"
  "$source_dir/tests/odbc/database-server.sh" stop postgresql "$state_dir" >&2
  record_load contention
fi

# --- Retry queue (PostgreSQL) --------------------------------------------------------------------
# queue.json (durable: fsync=on, synchronous_commit=on) and queue-fsync-off.json (the second,
# labelled figure): bench/report.py writes their section of docs/performance.md (docs/queue.md
# quotes it).
if [ -x "$build_dir/bench/rebound_queue_bench" ]; then
  echo "== retry queue (PostgreSQL)" >&2
  echo "bench/queue_bench.sh $build_dir queue.json" >>"$commands"
  bash "$source_dir/bench/queue_bench.sh" "$build_dir" "$results/queue.json" >&2 ||
    note "rebound_queue_bench failed"
  record_load queue
else
  note "skipped the retry queue: $build_dir/bench/rebound_queue_bench is not built"
fi

# --- Brownout, for real ------------------------------------------------------------------------
# The strategies of `rebound simulate --scenario brownout` (simulation/policies/brownout.yaml)
# against the loopback service bench/brownout_server.py, 26 s each (about 3.5 minutes). The
# experiment stops its servers itself.
brownout=$build_dir/bench/rebound_brownout_experiment
if [ -x "$brownout" ]; then
  echo "== brownout (loopback HTTP)" >&2
  run_recorded "$brownout" --csv "$results/brownout.csv" --svg "$results/brownout.svg" \
    --simulated-svg "$results/brownout-simulated.svg" --json "$results/brownout.json" \
    >"$results/brownout.txt" || note "rebound_brownout_experiment failed"
  record_load brownout
else
  note "skipped the brownout: $brownout is not built"
fi

# --- Hedging, for real --------------------------------------------------------------------------
# No hedge, a learned and a fixed hedge delay against bench/brownout_server.py --latency, three
# runs of about 70 s each (docs/hedging.md, "Measured").
hedging=$build_dir/bench/rebound_hedging_experiment
if [ -x "$hedging" ]; then
  echo "== hedging (loopback HTTP)" >&2
  run_recorded python3 "$source_dir/bench/hedging_experiment.py" "$hedging" --runs 3 \
    --svg "$results/hedging.svg" --json "$results/hedging.json" -- \
    --rate 400 --requests 5000 --warmup 600 >"$results/hedging.txt" ||
    note "rebound_hedging_experiment missed a goal or failed"
  record_load hedging
else
  note "skipped hedging: $hedging is not built"
fi

python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); m["load_after"]=open("/proc/loadavg").read().split()[:3]; m["load_by_phase"]=[l.split() for l in open(sys.argv[2]) if l.strip()]; json.dump(m, open(sys.argv[1], "w"), indent=1)' \
  "$results/machine.json" "$load_log"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

if [ "${REBOUND_BENCH_NO_REPORT:-0}" != 1 ]; then
  python3 "$source_dir/bench/report.py" --results "$results" \
    --output "$source_dir/docs/performance.md" --svg "$source_dir/docs/performance-contention.svg"
  echo "wrote docs/performance.md and docs/performance-contention.svg (raw results: $results)" >&2
fi
