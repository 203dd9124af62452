#!/usr/bin/env bash
# Instructions per operation of the latency recorder (bench/latency_recorder_bench.cpp), counted
# by valgrind's cachegrind (bench/cachegrind.sh; docs/performance.md, "Latency recorder of learned
# hedge delays").
#
#   bench/latency_recorder_instructions.sh BUILD_DIR [CASE...]     (default: every case)
#
# Each case runs as `rebound_latency_recorder_bench --ops CASE COUNT`: record (one thread, one
# bucket; the loop's indexing of its samples included), and the 95th percentile of a full window,
# quantile_service, quantile_whole_range and quantile_whole_range_unsummed.
set -euo pipefail
# shellcheck source=bench/cachegrind.sh
source "$(dirname "$0")/cachegrind.sh"

cachegrind_setup latency_recorder_instructions rebound_latency_recorder_bench "$@"
if [ ${#cachegrind_cases[@]} -eq 0 ]; then
  cachegrind_cases=(record quantile_service quantile_whole_range quantile_whole_range_unsummed)
fi
cachegrind_table instructions/op --ops "${cachegrind_cases[@]}"
