#!/usr/bin/env bash
# Installs the Debian 12 packages Rebound needs to build and test, skipping those already there.
# Run as root (CI and the README's commands do). Debian packages only; nothing is downloaded
# from anywhere else.
set -euo pipefail

packages=(
  g++ clang libclang-rt-14-dev clang-format clang-tidy cmake ninja-build ccache
  libyaml-cpp-dev tao-pegtl-dev nlohmann-json3-dev libcli11-dev
  catch2 libbenchmark-dev libabsl-dev
  python3 python3-jsonschema python3-yaml
  unixodbc-dev unixodbc libcurl4-openssl-dev libasio-dev libgrpc++-dev postgresql odbc-postgresql mariadb-server odbc-mariadb libsqliteodbc
)

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
