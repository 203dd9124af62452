#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each for SECONDS (default 60)
# on a copy of its seed corpus (tests/fuzz/corpus/TARGET, kept in the repository). Findings
# (crash-*, leak-*, timeout-*, oom-*) are left in build-fuzz/; a finding worth keeping is
# minimised (-minimize_crash=1) and added to the corpus with the fix.
# Each input may use at most 512 MB (-rss_limit_mb, -malloc_limit_mb), so that input whose
# cost is amplified (YAML aliases, long extends chains) shows up as a finding.
#   scripts/fuzz.sh [SECONDS]      CI runs 60 per target; a release runs scripts/fuzz.sh 1800
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
build_dir=build-fuzz
CXX=clang++ cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DREBOUND_BUILD_FUZZERS=ON -DREBOUND_BUILD_TESTS=OFF -DREBOUND_BUILD_BENCHMARKS=OFF \
  -DREBOUND_BUILD_EXAMPLES=OFF -DREBOUND_SANITIZE=address,undefined
cmake --build "$build_dir" --parallel "$(nproc)" \
  --target rebound_fuzz_yaml rebound_fuzz_json rebound_fuzz_text rebound_fuzz_vendor_map \
  rebound_fuzz_replay_events

# ASan's quarantine of freed memory (256 MB by default) counts against the 512 MB RSS limit and
# filled most of it within a minute on the seeded YAML corpus; 64 MB keeps the limit about the input.
export ASAN_OPTIONS=detect_leaks=1:quarantine_size_mb=64
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# The targets run side by side, one per core: each still gets SECONDS of its own, and the step
# takes about a core count's share of the sequential time (5 x 60 s ran in 320 s on 2 cores; now
# about 3 x 60 s). Each target's output is kept in its log and printed when it ends.
fuzz_one() {
  local target=$1 corpus="$build_dir/corpus-$1"
  rm -rf "$corpus" && mkdir -p "$corpus"
  cp tests/fuzz/corpus/"$target"/* "$corpus"/
  (cd "$build_dir" && "./tests/fuzz/rebound_fuzz_$target" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=512 -malloc_limit_mb=512 -max_len=1048576 -print_final_stats=1 \
    "corpus-$target") >"$build_dir/fuzz-$target.log" 2>&1
}
jobs_at_once=$(nproc)
failed=()
pids=()
names=()
wait_first() {
  # Waits for the oldest running target, prints its log and notes a failure.
  local pid=${pids[0]} name=${names[0]}
  pids=("${pids[@]:1}")
  names=("${names[@]:1}")
  if wait "$pid"; then status=0; else status=$?; fi
  echo "fuzz: $name for ${seconds}s (exit $status)"
  cat "$build_dir/fuzz-$name.log"
  if [ "$status" -ne 0 ]; then failed+=("$name"); fi
}
for target in yaml json text vendor_map replay_events; do
  if [ "${#pids[@]}" -ge "$jobs_at_once" ]; then wait_first; fi
  fuzz_one "$target" &
  pids+=($!)
  names+=("$target")
done
while [ "${#pids[@]}" -gt 0 ]; do wait_first; done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]} (left in $build_dir/)" >&2
  exit 1
fi
