#!/usr/bin/env bash
# Instructions per decision of each case of rebound_decision_bench, both sides, counted by
# valgrind's cachegrind: a figure that other load on the machine does not move, to compare two
# builds on a busy machine or to see where a slower CPU model's time goes (docs/performance.md,
# "Decision"). Not a substitute for the timed runs: the goals are in nanoseconds.
#
#   bench/decision_instructions.sh BUILD_DIR [CASE...]     (default: every named case)
#
# Each count is the difference between COUNT and 0 decisions of one side in
# `rebound_decision_bench --decisions CASE SIDE COUNT`, so the program's setup cancels out; the
# benchmark loop's own work (the attempt sequence, DoNotOptimize) is included on both sides.
set -euo pipefail

build_dir=${1:?usage: bench/decision_instructions.sh BUILD_DIR [CASE...]}
shift
binary="$build_dir/bench/rebound_decision_bench"
command -v valgrind >/dev/null || { echo "decision_instructions: valgrind is not installed" >&2; exit 1; }
[ -x "$binary" ] || { echo "decision_instructions: $binary is not built" >&2; exit 1; }
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  cases=(rules64_hit rules64_hit_error_type rules64_hit_deep_error_type types50_hit_shared_head_tail
         types50_hit_deep types50_miss_every_prefix rules64_hit_server_delay rules64_miss
         rules64_with_budget jitter_none jitter_full jitter_equal jitter_decorrelated jitter_bounded
         jitter_proportional)
fi
count=20000

instructions() {  # CASE SIDE COUNT
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    "$binary" --decisions "$1" "$2" "$3" 2>&1 >/dev/null | sed -n 's/.*I *refs: *//p' | tr -d ,
}

printf '%-30s %10s %10s %7s\n' case rebound baseline ratio
for name in "${cases[@]}"; do
  per_side=()
  for side in rebound baseline; do
    none=$(instructions "$name" "$side" 0)
    many=$(instructions "$name" "$side" "$count")
    per_side+=("$(( (many - none + count / 2) / count ))")
  done
  printf '%-30s %10s %10s %7s\n' "$name" "${per_side[0]}" "${per_side[1]}" \
    "$(awk -v a="${per_side[0]}" -v b="${per_side[1]}" 'BEGIN { printf "%.2fx", a / b }')"
done
