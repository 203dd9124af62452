#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, lints and explains the shipped
# policy files, and runs the main job: the example bank service, whose worker threads make
# transfers through the ODBC transactional runner against SQLite, retry the real "database is
# locked" errors they cause each other, and print a summary, the invariant check and the metrics.
# (The order service, examples/order_service/, is the second example; ctest runs it.)
set -euo pipefail
cd "$(dirname "$0")/.."

# Only what this job runs: the main set of packages, and the command line and the three examples
# (with the libraries they link); no tests or benchmarks, which scripts/test.sh builds.
bash scripts/install-deps.sh main
build=${BUILD_DIR:-build}
BUILD_DIR=$build REBOUND_BUILD_TESTS=OFF REBOUND_BUILD_BENCHMARKS=OFF \
  BUILD_TARGET="rebound_cli rebound_example_bank rebound_example_outbox_worker rebound_example_async_gateway" \
  bash scripts/build.sh
"$build/tools/rebound" lint policies/ examples/
"$build/tools/rebound" explain policies/tiers/standard.yaml
"$build/tools/rebound" explain examples/order_service/order_service.yaml --handler orders.place
# The bank service with its embedded default policy (no options): SQLite through ODBC.
"$build/examples/rebound_example_bank"
# The outbox worker (docs/queue.md): orders and their messages in one transaction, queue workers
# delivering them to a flaky loopback dependency under the policies of
# examples/outbox_worker/outbox_worker.yaml, on SQLite (--dsn for PostgreSQL or MariaDB).
"$build/examples/rebound_example_outbox_worker"
# The asynchronous gateway (docs/async.md): an Asio service calling two flaky loopback
# dependencies at once under the policies and breakers of examples/async_gateway/async_gateway.yaml.
"$build/examples/rebound_example_async_gateway"
