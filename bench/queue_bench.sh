#!/usr/bin/env bash
# Runs bench/queue_bench.cpp against a throw-away PostgreSQL 15 (tests/odbc/database-server.sh,
# fsync=off, loopback), always stopping it, and prints Google Benchmark's table; the JSON goes to
# OUT when given.
#
#   bench/queue_bench.sh [BUILD_DIR] [OUT.json]      (default build; target rebound_queue_bench)
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$(cd "${1:-build}" && pwd)
out=${2:-}
bench=$build_dir/bench/rebound_queue_bench
[ -x "$bench" ] || { echo "queue_bench.sh: $bench is not built" >&2; exit 1; }
state_dir=$(mktemp -d /tmp/rebound-queue-bench.XXXXXX)
trap "'$source_dir/tests/odbc/database-server.sh' stop postgresql '$state_dir' >/dev/null 2>&1; rm -rf '$state_dir'" EXIT
REBOUND_DB_OWNER_PID=$$ "$source_dir/tests/odbc/database-server.sh" start postgresql "$state_dir" >&2
extra=()
if [ -n "$out" ]; then
  extra+=(--benchmark_out="$out" --benchmark_out_format=json)
fi
REBOUND_BENCH_DSN=$(cat "$state_dir/connection-string") "$bench" "${extra[@]}"
