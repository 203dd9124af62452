#!/usr/bin/env bash
# Starts or stops a throw-away database server for the ODBC tests.
#
#   tests/odbc/database-server.sh start postgresql|mariadb STATE_DIR
#   tests/odbc/database-server.sh stop  postgresql|mariadb STATE_DIR
#   tests/odbc/database-server.sh restart postgresql|mariadb STATE_DIR [DOWN_SECONDS]
#
# `start` creates a data directory under a fresh temporary directory, starts the server on
# 127.0.0.1 with a free port, waits until it accepts connections, and writes the ODBC connection
# string (Driver=..., no odbc.ini needed) to STATE_DIR/connection-string. It installs nothing: the
# packages come from scripts/install-deps.sh.
#
# A server must never outlive the test run, even when ctest is killed: `start` leaves a watchdog
# that stops the server once the process that ran `start` (ctest, or REBOUND_DB_OWNER_PID) is gone,
# or after REBOUND_DB_MAX_SECONDS (default 1800). `start` also stops a server left in STATE_DIR
# by an earlier run. `stop` is idempotent.
#
# `restart` is a crash, for the fault-injection load tests and the queue's restart tests: it stops
# the running server at once (PostgreSQL `pg_ctl -m immediate`, MariaDB SIGKILL: no clean
# shutdown, so the server recovers from its log when it comes back), waits DOWN_SECONDS (default
# 2), and starts it again on the same port with the same data directory, so the connection string
# stays valid. The watchdog stays.
#
# PostgreSQL runs with fsync=off (the tests need no durability and finish sooner);
# REBOUND_POSTGRESQL_DURABLE=1 at `start` and `restart` runs it with fsync=on and
# synchronous_commit=on instead (bench/queue_bench.sh measures the durable queue so).
#
# A start that fails (initdb, pg_ctl, mariadb-install-db or mariadbd) exits 1 after printing the
# logs of the attempt. REBOUND_POSTGRESQL_BIN names the directory of initdb and pg_ctl (default
# /usr/lib/postgresql/15/bin); tests/odbc/database-server-start-test.sh points it, and PATH, at
# failing stand-ins.
set -euo pipefail

action=$1
kind=$2
state_dir=$3
mkdir -p "$state_dir"
state_dir=$(cd "$state_dir" && pwd)
postgresql_bin=${REBOUND_POSTGRESQL_BIN:-/usr/lib/postgresql/15/bin}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

stop_server() {
  local runtime_dir
  runtime_dir=$(cat "$state_dir/runtime-dir" 2>/dev/null || true)
  if [ -f "$state_dir/watchdog-pid" ]; then
    local watchdog
    watchdog=$(cat "$state_dir/watchdog-pid")
    # Only our own watchdog: its command line names this state directory.
    if tr '\0' ' ' <"/proc/$watchdog/cmdline" 2>/dev/null | grep -qF -- "$state_dir"; then
      kill "$watchdog" 2>/dev/null || true
    fi
    rm -f "$state_dir/watchdog-pid"
  fi
  if [ -n "$runtime_dir" ] && [ -d "$runtime_dir" ]; then
    case $kind in
      postgresql)
        if [ -f "$runtime_dir/data/postmaster.pid" ]; then
          runuser -u postgres -- "$postgresql_bin/pg_ctl" -D "$runtime_dir/data" \
            -m immediate -w -t 20 stop >/dev/null 2>&1 || true
        fi
        ;;
      mariadb)
        if [ -f "$runtime_dir/mariadbd.pid" ]; then
          local pid
          pid=$(cat "$runtime_dir/mariadbd.pid")
          kill "$pid" 2>/dev/null || true
          for _ in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
          done
          kill -9 "$pid" 2>/dev/null || true
        fi
        ;;
    esac
    rm -rf "$runtime_dir"
  fi
  rm -f "$state_dir/runtime-dir" "$state_dir/connection-string"
}

# The crash of `restart`: the server stops without a clean shutdown, stays down `down_seconds`,
# and comes back on its port and data directory. Exits 1 (with the server's log) when it does not.
crash_and_restart() {
  local down_seconds=$1 runtime_dir port
  runtime_dir=$(cat "$state_dir/runtime-dir" 2>/dev/null || true)
  if [ -z "$runtime_dir" ] || [ ! -f "$runtime_dir/port" ]; then
    echo "no $kind server to restart in $state_dir" >&2
    exit 1
  fi
  port=$(cat "$runtime_dir/port")
  case $kind in
    postgresql)
      runuser -u postgres -- "$postgresql_bin/pg_ctl" -D "$runtime_dir/data" -m immediate -w -t 20 \
        stop >/dev/null
      ;;
    mariadb)
      local pid
      pid=$(cat "$runtime_dir/mariadbd.pid")
      kill -9 "$pid"
      for _ in $(seq 1 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      rm -f "$runtime_dir/mariadbd.pid"
      ;;
  esac
  sleep "$down_seconds"
  set +e
  (set -e; "run_$kind" "$runtime_dir" "$port")
  local started=$?
  set -e
  if [ "$started" -ne 0 ]; then
    echo "failed to restart $kind (exit status $started); its log:" >&2
    cat "$runtime_dir/server.log" >&2 || true
    exit 1
  fi
  echo "$kind restarted on 127.0.0.1:$port after ${down_seconds}s down"
}

start_watchdog() {
  local owner=${REBOUND_DB_OWNER_PID:-$PPID}
  local max_seconds=${REBOUND_DB_MAX_SECONDS:-1800}
  local script
  script=$(readlink -f "$0")
  # setsid: the watchdog must survive the end of the process group that ran `start`.
  setsid bash -c '
    owner=$1; max=$2; script=$3; kind=$4; state=$5
    waited=0
    while kill -0 "$owner" 2>/dev/null && [ "$waited" -lt "$max" ] && [ -f "$state/runtime-dir" ]; do
      sleep 1; waited=$((waited + 1))
    done
    if [ -f "$state/runtime-dir" ]; then
      rm -f "$state/watchdog-pid"
      "$script" stop "$kind" "$state"
    fi' rebound-db-watchdog "$owner" "$max_seconds" "$script" "$kind" "$state_dir" \
    </dev/null >/dev/null 2>&1 &
  echo $! >"$state_dir/watchdog-pid"
}

# Runs the server of an initialised data directory and waits until it accepts connections.
run_postgresql() {
  local runtime_dir=$1 port=$2
  local durability="-c fsync=off"
  if [ "${REBOUND_POSTGRESQL_DURABLE:-0}" = 1 ]; then
    durability="-c fsync=on -c synchronous_commit=on"
  fi
  # deadlock_timeout is lowered so that deadlock tests finish quickly.
  runuser -u postgres -- "$postgresql_bin/pg_ctl" -D "$runtime_dir/data" -l "$runtime_dir/server.log" \
    -w -t 60 -o "-c listen_addresses=127.0.0.1 -p $port -k $runtime_dir $durability \
        -c deadlock_timeout=100ms -c max_connections=50" start >/dev/null
}

start_postgresql() {
  local runtime_dir=$1 port=$2
  local bin=$postgresql_bin
  chown postgres:postgres "$runtime_dir"
  # PostgreSQL refuses to run as root.
  runuser -u postgres -- "$bin/initdb" -D "$runtime_dir/data" -U postgres --auth=trust \
    --no-sync -E UTF8 --locale=C.UTF-8 >"$runtime_dir/initdb.log" 2>&1
  run_postgresql "$runtime_dir" "$port"
  # Protocol=7.4-1: psqlODBC rolls back the transaction on an error instead of wrapping every
  # statement in a savepoint (one round trip less per statement, docs/odbc.md).
  echo "Driver={PostgreSQL Unicode};Server=127.0.0.1;Port=$port;Database=postgres;Uid=postgres;Pwd=;CommLog=0;Debug=0;Protocol=7.4-1"
}

# Runs mariadbd on an installed data directory and waits until it accepts connections.
# innodb_flush_log_at_trx_commit=2 writes the log at every commit and syncs it once a second:
# a commit survives a crash of the server process (`restart`), not of the machine. 0 (write once
# a second) lost every commit of the last second when `restart` killed the server.
run_mariadb() {
  local runtime_dir=$1 port=$2
  mariadbd --no-defaults --datadir="$runtime_dir/data" --socket="$runtime_dir/mariadbd.sock" \
    --port="$port" --bind-address=127.0.0.1 --user=root --pid-file="$runtime_dir/mariadbd.pid" \
    --skip-name-resolve --innodb-buffer-pool-size=64M --innodb-log-file-size=16M \
    --innodb-flush-log-at-trx-commit=2 --log-error="$runtime_dir/server.log" \
    </dev/null >"$runtime_dir/mariadbd-output.log" 2>&1 &
  local server=$!
  local ready=false
  for _ in $(seq 1 300); do
    if mariadb --no-defaults --socket="$runtime_dir/mariadbd.sock" -uroot -e 'SELECT 1' >/dev/null 2>&1; then
      ready=true
      break
    fi
    if ! kill -0 "$server" 2>/dev/null; then
      local status=0
      wait "$server" || status=$?
      echo "mariadbd exited with status $status before accepting connections" >&2
      return 1
    fi
    sleep 0.1
  done
  if [ "$ready" != true ]; then
    echo "mariadbd did not accept connections within 30 s" >&2
    return 1
  fi
}

start_mariadb() {
  local runtime_dir=$1 port=$2
  mariadb-install-db --no-defaults --datadir="$runtime_dir/data" --user=root \
    --auth-root-authentication-method=normal --skip-test-db >"$runtime_dir/install.log" 2>&1
  run_mariadb "$runtime_dir" "$port"
  mariadb --no-defaults --socket="$runtime_dir/mariadbd.sock" -uroot -e "
    CREATE DATABASE rebound;
    CREATE USER 'rebound'@'127.0.0.1' IDENTIFIED BY 'rebound';
    GRANT ALL PRIVILEGES ON *.* TO 'rebound'@'127.0.0.1';"
  echo "Driver={MariaDB Unicode};Server=127.0.0.1;Port=$port;Database=rebound;Uid=rebound;Pwd=rebound"
}

case $action in
  start)
    stop_server
    runtime_dir=$(mktemp -d "/tmp/rebound-$kind.XXXXXX")
    echo "$runtime_dir" >"$state_dir/runtime-dir"
    start_watchdog
    port=$(free_port)
    echo "$port" >"$runtime_dir/port"
    # Not in an `if` or `!`: there bash ignores `set -e` inside the function, and a failed
    # initdb, pg_ctl or mariadb-install-db would go unnoticed.
    set +e
    (set -e; "start_$kind" "$runtime_dir" "$port" >"$runtime_dir/connection-string")
    started=$?
    set -e
    if [ "$started" -ne 0 ]; then
      echo "failed to start $kind (exit status $started); its logs:" >&2
      for log in "$runtime_dir"/*.log; do
        [ -f "$log" ] && { echo "==> $log <==" >&2; cat "$log" >&2; }
      done
      stop_server
      exit 1
    fi
    mv "$runtime_dir/connection-string" "$state_dir/connection-string"
    echo "$kind running on 127.0.0.1:$port (data in $runtime_dir)"
    ;;
  restart)
    crash_and_restart "${4:-2}"
    ;;
  stop)
    stop_server
    echo "$kind stopped"
    ;;
  *)
    echo "usage: $0 start|stop|restart postgresql|mariadb STATE_DIR [DOWN_SECONDS]" >&2
    exit 2
    ;;
esac
