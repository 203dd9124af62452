#!/usr/bin/env bash
# Configures and builds Rebound into BUILD_DIR (default: build/).
#   REBOUND_WERROR=ON      treat warnings as errors
#   REBOUND_SANITIZE=...   'address,undefined' or 'thread' (tests only, no benchmarks/examples)
#   REBOUND_BUILD_TESTS, REBOUND_BUILD_BENCHMARKS, REBOUND_BUILD_EXAMPLES
#                          ON (default) or OFF; stated every time, so that a build directory
#                          configured by scripts/main.sh (tests and benchmarks OFF) gets them back
#   BUILD_TARGET=...       build only these targets, separated by spaces (default: everything)
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${BUILD_DIR:-build}
sanitize=${REBOUND_SANITIZE:-}
extra=(
  -DREBOUND_BUILD_TESTS="${REBOUND_BUILD_TESTS:-ON}"
  -DREBOUND_BUILD_BENCHMARKS="${REBOUND_BUILD_BENCHMARKS:-ON}"
  -DREBOUND_BUILD_EXAMPLES="${REBOUND_BUILD_EXAMPLES:-ON}"
)
if [ -n "$sanitize" ]; then
  extra+=(-DREBOUND_BUILD_BENCHMARKS=OFF -DREBOUND_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=Debug)
else
  extra+=(-DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}")
fi
targets=()
for target in ${BUILD_TARGET:-}; do
  targets+=(--target "$target")
done

cmake -S . -B "$build_dir" -G Ninja \
  -DREBOUND_WARNINGS_AS_ERRORS="${REBOUND_WERROR:-OFF}" \
  -DREBOUND_SANITIZE="$sanitize" \
  "${extra[@]}"
cmake --build "$build_dir" --parallel "$(nproc)" "${targets[@]}"
