#!/usr/bin/env bash
# A failed server start fails the start step of tests/odbc/database-server.sh and shows why: each
# case puts a failing stand-in for one program (initdb, pg_ctl, mariadb-install-db, mariadbd)
# first, and the start must exit non-zero, within seconds, printing the stand-in's message from
# the logs it left.
#
#   tests/odbc/database-server-start-test.sh tests/odbc/database-server.sh
set -euo pipefail

server_script=$(readlink -f "$1")
work=$(mktemp -d /tmp/rebound-start-test.XXXXXX)
# The PostgreSQL stand-ins run as the postgres user (runuser), so it must reach them.
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
failures=0

# stand_in DIR NAME MESSAGE STATUS: DIR/NAME prints MESSAGE on stderr and exits with STATUS.
stand_in() {
  mkdir -p "$1"
  chmod 755 "$1"
  printf '#!/bin/sh\necho "%s" >&2\nexit %s\n' "$3" "$4" >"$1/$2"
  chmod 755 "$1/$2"
}

# expect_failed_start CASE KIND MESSAGE [VAR=VALUE...]: starting KIND with the environment
# VAR=VALUE... fails within 20 s and prints MESSAGE.
expect_failed_start() {
  local name=$1 kind=$2 message=$3
  shift 3
  local state="$work/state-$name" status=0 output began elapsed
  began=$(date +%s)
  output=$(env "$@" REBOUND_DB_OWNER_PID=$$ bash "$server_script" start "$kind" "$state" 2>&1) ||
    status=$?
  elapsed=$(($(date +%s) - began))
  bash "$server_script" stop "$kind" "$state" >/dev/null 2>&1 || true
  local problem=""
  if [ "$status" -eq 0 ]; then
    problem="the start succeeded"
  elif ! grep -qF "failed to start $kind" <<<"$output"; then
    problem="no 'failed to start $kind' line"
  elif ! grep -qF "$message" <<<"$output"; then
    problem="the logs do not show '$message'"
  elif [ "$elapsed" -gt 20 ]; then
    problem="it took $elapsed s"
  fi
  if [ -n "$problem" ]; then
    echo "FAILED $name: $problem; the start printed:" >&2
    echo "$output" >&2
    failures=$((failures + 1))
  else
    echo "ok $name: exit status $status after $elapsed s, its logs shown"
  fi
}

# PostgreSQL: initdb fails; then initdb works and pg_ctl fails.
stand_in "$work/pg-initdb" initdb "initdb stand-in: cannot create the data directory" 1
expect_failed_start postgresql-initdb postgresql "initdb stand-in: cannot create" \
  REBOUND_POSTGRESQL_BIN="$work/pg-initdb"
stand_in "$work/pg-ctl" initdb "initdb stand-in: done" 0
stand_in "$work/pg-ctl" pg_ctl "pg_ctl stand-in: could not start server" 1
expect_failed_start postgresql-pg_ctl postgresql "pg_ctl stand-in: could not start server" \
  REBOUND_POSTGRESQL_BIN="$work/pg-ctl"

# MariaDB: mariadb-install-db fails; then it works and mariadbd dies at once (the readiness loop
# must notice instead of waiting its 30 s and falling through).
stand_in "$work/mariadb-install" mariadb-install-db "install stand-in: no space left" 1
expect_failed_start mariadb-install-db mariadb "install stand-in: no space left" \
  PATH="$work/mariadb-install:$PATH"
stand_in "$work/mariadbd-dies" mariadb-install-db "install stand-in: done" 0
stand_in "$work/mariadbd-dies" mariadbd "mariadbd stand-in: unknown option" 7
stand_in "$work/mariadbd-dies" mariadb "client stand-in: cannot connect" 1
expect_failed_start mariadbd-dies mariadb "mariadbd stand-in: unknown option" \
  PATH="$work/mariadbd-dies:$PATH"

if [ "$failures" -ne 0 ]; then
  echo "$failures failed start(s) went unnoticed or unexplained" >&2
  exit 1
fi
