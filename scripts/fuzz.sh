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
for target in yaml json text vendor_map replay_events; do
  corpus="$build_dir/corpus-$target"
  rm -rf "$corpus" && mkdir -p "$corpus"
  cp tests/fuzz/corpus/"$target"/* "$corpus"/
  echo "fuzz: $target for ${seconds}s"
  (cd "$build_dir" && "./tests/fuzz/rebound_fuzz_$target" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=512 -malloc_limit_mb=512 -max_len=1048576 -print_final_stats=1 "corpus-$target")
done
