#!/usr/bin/env bash
# Configures and builds Rebound into BUILD_DIR (default: build/).
#   REBOUND_WERROR=ON      treat warnings as errors
#   REBOUND_SANITIZE=...   'address,undefined' or 'thread' (tests only, no benchmarks/examples)
#   BUILD_TARGET=...       build only this target (default: everything)
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${BUILD_DIR:-build}
sanitize=${REBOUND_SANITIZE:-}
extra=()
if [ -n "$sanitize" ]; then
  extra+=(-DREBOUND_BUILD_BENCHMARKS=OFF -DREBOUND_BUILD_EXAMPLES=OFF -DCMAKE_BUILD_TYPE=Debug)
else
  extra+=(-DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-RelWithDebInfo}")
fi

cmake -S . -B "$build_dir" -G Ninja \
  -DREBOUND_WARNINGS_AS_ERRORS="${REBOUND_WERROR:-OFF}" \
  -DREBOUND_SANITIZE="$sanitize" \
  "${extra[@]}"
cmake --build "$build_dir" --parallel "$(nproc)" ${BUILD_TARGET:+--target "$BUILD_TARGET"}
