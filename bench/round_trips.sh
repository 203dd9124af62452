#!/usr/bin/env bash
# Round trips per attempt of the contention transaction (docs/performance.md), for the runner's
# `immediate` strategy (rebound_contention_bench) and for pgbench on the same transaction
# (bench/contention.pgbench.sql): the sendto system calls of one client without conflicts, each
# one batch of messages sent to the server, counted with strace. Each side runs with 1 and with
# 1 + N transactions; the difference divided by N is reported, so connecting and setting up the
# table cancel out.
#
#   bench/round_trips.sh CONTENTION_BENCH DSN PORT OUT_JSON [N]     (N default 200)
#
# Writes {"transactions": N, "rebound_immediate": X, "pgbench": Y} to OUT_JSON; exits 1 when a
# run fails or strace is missing.
set -euo pipefail

contention=$1
dsn=$2
port=$3
out=$4
transactions=${5:-200}
source_dir=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d -t rebound-round-trips.XXXXXX)
trap 'rm -rf "$work"' EXIT

command -v strace >/dev/null || { echo "round_trips.sh: strace is not installed" >&2; exit 1; }

# sendto_calls FILE: the sendto count of an `strace -c` summary (0 when none was made).
sendto_calls() {
  awk '$NF == "sendto" { print $4; found = 1 } END { if (!found) print 0 }' "$1"
}

# counted NAME COMMAND...: runs COMMAND under strace and prints its sendto calls.
counted() {
  local name=$1
  shift
  strace -f -qq -c -e trace=sendto -o "$work/$name.strace" "$@" >"$work/$name.log" 2>&1 ||
    { echo "round_trips.sh: $name failed:" >&2; cat "$work/$name.log" >&2; exit 1; }
  sendto_calls "$work/$name.strace"
}

rebound_run() {
  counted "rebound-$1" "$contention" --dsn "$dsn" --threads 1 --transactions "$1" \
    --max-attempts 1 --strategies immediate --out "$work/rebound-$1.json"
}

pgbench_run() {
  psql -h 127.0.0.1 -p "$port" -U postgres -X -q -v ON_ERROR_STOP=1 postgres \
    -c "DROP TABLE IF EXISTS rebound_hot" \
    -c "CREATE TABLE rebound_hot (id integer PRIMARY KEY, value bigint NOT NULL)" \
    -c "INSERT INTO rebound_hot VALUES (1, 0)" >/dev/null
  counted "pgbench-$1" pgbench -h 127.0.0.1 -p "$port" -U postgres -n -c 1 -j 1 -t "$1" \
    -f "$source_dir/bench/contention.pgbench.sql" postgres
}

rebound_few=$(rebound_run 1)
rebound_many=$(rebound_run $((1 + transactions)))
pgbench_few=$(pgbench_run 1)
pgbench_many=$(pgbench_run $((1 + transactions)))

python3 - "$out" "$transactions" "$rebound_few" "$rebound_many" "$pgbench_few" "$pgbench_many" <<'PY'
import json, sys
out, n, rebound_few, rebound_many, pgbench_few, pgbench_many = sys.argv[1], *map(int, sys.argv[2:])
json.dump({"transactions": n,
           "rebound_immediate": (rebound_many - rebound_few) / n,
           "pgbench": (pgbench_many - pgbench_few) / n,
           "sendto_calls": {"rebound_immediate": [rebound_few, rebound_many],
                            "pgbench": [pgbench_few, pgbench_many]}},
          open(out, "w"), indent=1)
PY
cat "$out"
