#!/usr/bin/env bash
# Lint throughput: generates N service files (default 1000; YAML and DSL, each with several
# policies, handlers, inheritance and a few findings; every binding states `calls`, so that the
# call graph spans the files and retry-amplification reports a path from each of them, and each
# file's `orders.*` calls a handler no file binds) into a temporary directory and times
# `rebound lint` on the directory. Reports the median run: of 10 with hyperfine when installed,
# else of 5 with bash `time`.
# Not a test: the goal (1,000 files under 2 s) is recorded in docs/performance.md.
#
#   bench/lint_throughput.sh [path/to/rebound] [files]
set -euo pipefail

rebound=${1:-build/tools/rebound}
count=${2:-1000}
[ -x "$rebound" ] || { echo "no rebound binary at $rebound (build target rebound_cli)" >&2; exit 2; }

dir=$(mktemp -d -t rebound-lint-bench.XXXXXX)
trap 'rm -rf "$dir"' EXIT

for ((i = 0; i < count; ++i)); do
  sub="$dir/team$((i % 20))"
  mkdir -p "$sub"
  if ((i % 4 == 3)); then
    cat > "$sub/service$i.rebound" <<DSL
rebound 1
service service$i

defaults {
  attempts 3
  jitter full
}

policy interactive {
  backoff exponential 50ms x2 max 200ms
  jitter equal
  deadline 3s
  min_attempt_budget 100ms
  retry on deadlock, serialization_failure, sqlstate 40001, sqlstate class 08
  never on sqlstate class 23, constraint_violation
}

policy background extends interactive {
  attempts 5
  backoff exponential 100ms x2 max 5s
  deadline 1m
  on exhausted dead_letter
  budget tokens 100 ratio 0.1
}

handler ApproveCase uses interactive calls Risk$(( (i + 1) % count ))
handler Risk$i uses background idempotent calls orders.ship
handler orders.* uses background calls Audit$i
default uses interactive
DSL
  else
    cat > "$sub/service$i.yaml" <<YAML
rebound: 1
service: service$i
defaults:
  max_attempts: 3
  jitter: full
policies:
  interactive:
    max_attempts: 3
    backoff: { type: exponential, initial: 50ms, multiplier: 2.0, max: 200ms }
    jitter: equal
    deadline: 3s
    min_attempt_budget: 100ms
    attempt_timeout: 1s
    retry_on: [deadlock, serialization_failure, { sqlstate: "40001" }, { sqlstate_class: "08" }]
    never_retry_on: [{ sqlstate_class: "23" }, constraint_violation]
  background:
    extends: interactive
    max_attempts: 6
    backoff: { type: exponential, initial: 100ms, max: 5s }
    jitter: none
    deadline: 2s
    on_exhausted: dead_letter
  reports:
    max_attempts: 4
    backoff: { type: linear, initial: 1s, increment: 1s, max: 10s }
    retry_on: [transient, statement_timeout, { sqlstate: "23505" }]
    never_retry_on: [{ sqlstate_class: "23" }]
handlers:
  ApproveCase: { policy: interactive, calls: ["Risk$(( (i + 1) % count ))"] }
  "Risk$i": { policy: background, idempotent: true, calls: [orders.ship] }
  "orders.*": { policy: background, calls: ["Audit$i"] }
YAML
  fi
done

echo "linting $count files in $dir with $rebound ($(nproc) cores)"
command=("$rebound" lint --format json --fail-on never "$dir")
"${command[@]}" | python3 -c 'import json,sys; r=json.load(sys.stdin); print("files", r["files"], "errors", r["errors"], "warnings", r["warnings"], "notes", r["notes"])'

if command -v hyperfine > /dev/null; then
  hyperfine --warmup 1 --runs 10 --export-json "$dir/hyperfine.json" "${command[*]} > /dev/null"
  python3 -c 'import json,sys; print("median of 10: %.3fs for %s files" % (json.load(open(sys.argv[1]))["results"][0]["median"], sys.argv[2]))' \
    "$dir/hyperfine.json" "$count"
else
  TIMEFORMAT='%R'
  times=()
  for run in 1 2 3 4 5; do
    seconds=$( { time "${command[@]}" > /dev/null; } 2>&1 )
    echo "run $run: ${seconds}s"
    times+=("$seconds")
  done
  # The median, not the best run: the best of 5 hides how slow a typical run is.
  median=$(printf '%s\n' "${times[@]}" | sort -g | sed -n 3p)
  echo "median of 5: ${median}s for $count files"
fi
