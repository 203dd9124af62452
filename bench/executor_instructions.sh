#!/usr/bin/env bash
# Instructions per run of the executor's overhead cases (bench/executor_bench.cpp), counted by
# valgrind's cachegrind (bench/cachegrind.sh; docs/performance.md, "Executor and handler lookup").
#
#   bench/executor_instructions.sh BUILD_DIR [CASE...]     (default: every case)
#
# Each case runs as `rebound_executor_bench --runs CASE COUNT`; the loop's own work
# (DoNotOptimize, the work's call) is included.
set -euo pipefail
# shellcheck source=bench/cachegrind.sh
source "$(dirname "$0")/cachegrind.sh"

cachegrind_setup executor_instructions rebound_executor_bench "$@"
if [ ${#cachegrind_cases[@]} -eq 0 ]; then
  cachegrind_cases=(direct_call run_resolved run_metrics_counters
                    run_metrics_histograms_frozen_clock)
fi
cachegrind_table instructions/run --runs "${cachegrind_cases[@]}"
