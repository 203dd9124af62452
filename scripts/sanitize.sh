#!/usr/bin/env bash
# Builds with sanitizers and runs the tests of one ctest label.
#   scripts/sanitize.sh address,undefined unit
#   scripts/sanitize.sh thread concurrency
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizers=$1
label=$2
build_dir="build-$(echo "$sanitizers" | tr ',' '-')"

# The concurrency tests need only their own executables; the unit tests also run the CLI and
# scripts, so they build everything.
target=""
if [ "$label" = concurrency ]; then
  target=rebound_tests_concurrency
fi

BUILD_TARGET=$target BUILD_DIR=$build_dir REBOUND_SANITIZE=$sanitizers REBOUND_WERROR=${REBOUND_WERROR:-OFF} \
  bash scripts/build.sh

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
runner=()
if [ "$sanitizers" = thread ]; then
  # ThreadSanitizer's runtime in GCC 12 cannot map its shadow memory under the high mmap
  # randomisation of recent kernels; running without address randomisation avoids that.
  runner=(setarch "$(uname -m)" -R)
fi
# The JUnit file records which tests ran, for scripts/check-test-count.py.
"${runner[@]}" ctest --test-dir "$build_dir" --output-on-failure --parallel "$(nproc)" -L "$label" \
  --output-junit "$(realpath "$build_dir")/ctest-junit.xml"
