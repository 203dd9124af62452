#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, and runs the main job: the
# example program that drives a flaky operation through a retry policy.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build} bash scripts/build.sh
"${BUILD_DIR:-build}/examples/rebound_example_flaky_operation"
