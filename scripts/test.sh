#!/usr/bin/env bash
# The README's test command: installs what is missing (every package of scripts/install-deps.sh),
# builds everything, and runs every test.
#   REBOUND_WERROR=ON   treat warnings as errors (CI sets it)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build} bash scripts/build.sh
build_dir=${BUILD_DIR:-build}
# The JUnit file records which tests ran, for scripts/check-test-count.py.
ctest --test-dir "$build_dir" --output-on-failure --parallel "$(nproc)" \
  --output-junit "$(realpath "$build_dir")/ctest-junit.xml"
