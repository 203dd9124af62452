#!/usr/bin/env bash
# Installs the Debian 12 packages Rebound needs, skipping those already there.
#   scripts/install-deps.sh main   what scripts/main.sh needs: build the libraries, the `rebound`
#                                  command line and the examples it runs, and run them
#   scripts/install-deps.sh        (or `all`) that and what the tests, benchmarks, sanitizers,
#                                  fuzzers and CI checks need
# Run as root (CI and the README's commands do). Debian packages only; nothing is downloaded
# from anywhere else.
set -euo pipefail

set_name=${1:-all}

# The compiler and build tools, the libraries the parts link (yaml-cpp, PEGTL, nlohmann_json,
# CLI11, unixODBC, libcurl, Asio) and the SQLite ODBC driver the bank and outbox examples use.
main_packages=(
  g++ cmake ninja-build ccache
  libyaml-cpp-dev tao-pegtl-dev nlohmann-json3-dev libcli11-dev
  unixodbc-dev unixodbc libsqliteodbc libcurl4-openssl-dev libasio-dev
)
# The rest: clang (fuzzers), format and tidy, Catch2, Google Benchmark, Python for the test
# scripts, gRPC (the optional adapter) and the PostgreSQL and MariaDB servers and drivers.
test_packages=(
  clang libclang-rt-14-dev clang-format clang-tidy
  catch2 libbenchmark-dev libabsl-dev
  python3 python3-jsonschema python3-yaml
  libgrpc++-dev postgresql odbc-postgresql mariadb-server odbc-mariadb
)

case "$set_name" in
  main) packages=("${main_packages[@]}") ;;
  all) packages=("${main_packages[@]}" "${test_packages[@]}") ;;
  *) echo "usage: $0 [main|all]" >&2; exit 2 ;;
esac

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
