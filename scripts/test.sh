#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, and runs every test.
#   REBOUND_WERROR=ON   treat warnings as errors (CI sets it)
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build} bash scripts/build.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure --parallel "$(nproc)"
