#!/usr/bin/env bash
# Runs bench/queue_bench.cpp against a throw-away PostgreSQL 15 on loopback
# (tests/odbc/database-server.sh), always stopping it, and prints Google Benchmark's tables.
#
#   bench/queue_bench.sh [BUILD_DIR] [OUT.json]      (default build; target rebound_queue_bench)
#
# A durable queue is measured durable: the first run is against a server with fsync=on and
# synchronous_commit=on, every commit flushed to disk before it returns; its JSON goes to OUT and
# the goals are judged on it. The second run, against a fresh server with fsync=off (commits
# never wait for the disk: not durable, the tests' setting), is a second figure for comparison,
# labelled as such; its JSON goes to OUT with `-fsync-off` before `.json`. The settings the
# server reports (SHOW fsync, SHOW synchronous_commit) are printed and recorded in each JSON's
# context (`postgresql_fsync`, `postgresql_synchronous_commit`, with the data directory's
# filesystem as `postgresql_filesystem`: on tmpfs an fsync costs nothing), so a figure always says
# how it was measured.
#
# Environment: REBOUND_QUEUE_BENCH_MODES (default "durable fsync-off"): the runs to make, in order.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$(cd "${1:-build}" && pwd)
out=${2:-}
bench=$build_dir/bench/rebound_queue_bench
[ -x "$bench" ] || { echo "queue_bench.sh: $bench is not built" >&2; exit 1; }
modes=${REBOUND_QUEUE_BENCH_MODES:-durable fsync-off}

state_dir=
stop_server() {
  if [ -n "$state_dir" ]; then
    "$source_dir/tests/odbc/database-server.sh" stop postgresql "$state_dir" >/dev/null 2>&1 || true
    rm -rf "$state_dir"
    state_dir=
  fi
}
trap stop_server EXIT

# `SHOW name` on the server of connection string $1 (its Port= and the socket-less loopback).
show_setting() {
  local port
  port=$(sed -n 's/.*Port=\([0-9]*\).*/\1/p' <<<"$1")
  psql -h 127.0.0.1 -p "$port" -U postgres -d postgres -Atc "SHOW $2"
}

for mode in $modes; do
  case $mode in
    durable) durable=1; suffix= ;;
    fsync-off) durable=0; suffix=-fsync-off ;;
    *) echo "queue_bench.sh: unknown mode '$mode' (durable, fsync-off)" >&2; exit 2 ;;
  esac
  state_dir=$(mktemp -d /tmp/rebound-queue-bench.XXXXXX)
  REBOUND_DB_OWNER_PID=$$ REBOUND_POSTGRESQL_DURABLE=$durable \
    "$source_dir/tests/odbc/database-server.sh" start postgresql "$state_dir" >&2
  dsn=$(cat "$state_dir/connection-string")
  fsync=$(show_setting "$dsn" fsync)
  synchronous_commit=$(show_setting "$dsn" synchronous_commit)
  if [ "$durable" = 1 ] && { [ "$fsync" != on ] || [ "$synchronous_commit" != on ]; }; then
    echo "queue_bench.sh: the durable run's server has fsync=$fsync," \
      "synchronous_commit=$synchronous_commit" >&2
    exit 1
  fi
  echo "== retry queue on PostgreSQL, $mode: fsync=$fsync, synchronous_commit=$synchronous_commit" >&2
  # fsync on tmpfs costs nothing: the filesystem is recorded with the settings.
  filesystem=$(stat -f -c %T "$(cat "$state_dir/runtime-dir")")
  echo "   data directory on $filesystem" >&2
  extra=(--benchmark_context="postgresql_fsync=$fsync,postgresql_synchronous_commit=$synchronous_commit,postgresql_filesystem=$filesystem")
  if [ -n "$out" ]; then
    extra+=(--benchmark_out="${out%.json}$suffix.json" --benchmark_out_format=json)
  fi
  REBOUND_BENCH_DSN=$dsn "$bench" "${extra[@]}"
  stop_server
done
