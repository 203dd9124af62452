#!/usr/bin/env bash
# Instructions per run of the executor's overhead cases (bench/executor_bench.cpp), counted by
# valgrind's cachegrind: a figure other load on the machine does not move (docs/performance.md,
# "Executor and handler lookup"). Not a substitute for the timed runs.
#
#   bench/executor_instructions.sh BUILD_DIR [CASE...]     (default: every case)
#
# Each count is the difference between COUNT and 0 iterations of
# `rebound_executor_bench --runs CASE COUNT`, so the program's setup cancels out; the loop's own
# work (DoNotOptimize, the work's call) is included.
set -euo pipefail

build_dir=${1:?usage: bench/executor_instructions.sh BUILD_DIR [CASE...]}
shift
binary="$build_dir/bench/rebound_executor_bench"
command -v valgrind >/dev/null || { echo "executor_instructions: valgrind is not installed" >&2; exit 1; }
[ -x "$binary" ] || { echo "executor_instructions: $binary is not built" >&2; exit 1; }
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  cases=(direct_call run_resolved run_metrics_counters run_metrics_histograms_frozen_clock)
fi
count=20000

instructions() {  # CASE COUNT
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    "$binary" --runs "$1" "$2" 2>&1 >/dev/null | sed -n 's/.*I *refs: *//p' | tr -d ,
}

printf '%-40s %12s\n' case instructions/run
for name in "${cases[@]}"; do
  none=$(instructions "$name" 0)
  many=$(instructions "$name" "$count")
  printf '%-40s %12d\n' "$name" "$(( (many - none + count / 2) / count ))"
done
