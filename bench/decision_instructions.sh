#!/usr/bin/env bash
# Instructions per decision of each case of rebound_decision_bench, both sides, counted by
# valgrind's cachegrind (bench/cachegrind.sh; docs/performance.md, "Decision"). The goals are in
# nanoseconds: this is the figure other load does not move.
#
#   bench/decision_instructions.sh BUILD_DIR [CASE...]     (default: every named case)
#
# Each side runs as `rebound_decision_bench --decisions CASE SIDE COUNT`; the benchmark loop's own
# work (the attempt sequence, DoNotOptimize) is included on both sides.
set -euo pipefail
# shellcheck source=bench/cachegrind.sh
source "$(dirname "$0")/cachegrind.sh"

cachegrind_setup decision_instructions rebound_decision_bench "$@"
if [ ${#cachegrind_cases[@]} -eq 0 ]; then
  cachegrind_cases=(rules64_hit rules64_hit_error_type rules64_hit_deep_error_type
                    types50_hit_shared_head_tail types50_hit_deep types50_miss_every_prefix
                    rules64_hit_server_delay rules64_miss
                    rules64_with_budget jitter_none jitter_full jitter_equal jitter_decorrelated
                    jitter_bounded jitter_proportional)
fi

printf '%-30s %10s %10s %7s\n' case rebound baseline ratio
for name in "${cachegrind_cases[@]}"; do
  rebound=$(per_operation --decisions "$name" rebound)
  baseline=$(per_operation --decisions "$name" baseline)
  printf '%-30s %10s %10s %7s\n' "$name" "$rebound" "$baseline" \
    "$(awk -v a="$rebound" -v b="$baseline" 'BEGIN { printf "%.2fx", a / b }')"
done
