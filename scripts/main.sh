#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, lints and explains the shipped
# policy files, and runs the main job: the example order service, which runs transactions through
# the ODBC transactional runner against SQLite and retries a real "database is locked".
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
BUILD_DIR=${BUILD_DIR:-build} bash scripts/build.sh
build=${BUILD_DIR:-build}
"$build/tools/rebound" lint policies/ examples/
"$build/tools/rebound" explain policies/tiers/standard.yaml
"$build/tools/rebound" explain examples/order_service/order_service.yaml --handler orders.place
# The example service with its embedded default policy (no --policy), SQLite through ODBC.
"$build/examples/rebound_example_order_service"
