#!/usr/bin/env bash
# clang-tidy with the checks of .clang-tidy over the project's library and tool sources (not
# tests, benchmarks or examples), in parallel, from the compile_commands.json of a configured
# build. Fails on any finding.
#   BUILD_DIR=...   the configured build to read compile_commands.json from (default: build)
#   TIDY_JOBS=...   parallel clang-tidy processes (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=${BUILD_DIR:-build}
jobs=${TIDY_JOBS:-$(nproc)}
tidy=$(command -v clang-tidy-14 || command -v clang-tidy)
runner=$(command -v run-clang-tidy-14 || command -v run-clang-tidy)

if [ ! -f "$build_dir/compile_commands.json" ]; then
  echo "tidy: $build_dir/compile_commands.json is missing; configure the build first" >&2
  exit 2
fi

# The sources of the libraries and the CLI; their headers are checked through them
# (HeaderFilterRegex in .clang-tidy).
sources="$(pwd)/(engine|dsl|lint|tools|adapters|simulation|observability)/src/.*\\.cpp$"

# -Wno-unknown-warning-option: the build's flags are GCC's (-Wno-restrict is unknown to clang).
output=$(mktemp)
trap 'rm -f "$output"' EXIT
"$runner" -clang-tidy-binary "$tidy" -p "$build_dir" -j "$jobs" -quiet \
  -extra-arg=-Wno-unknown-warning-option "$sources" >"$output" 2>&1 || true

# One line per finding: a header's finding is reported once, not once per source including it.
findings=$(sed 's/\x1b\[[0-9;]*m//g' "$output" |
  grep -E '(warning|error): .*\[[A-Za-z0-9.,-]+\]$' | sort -u || true)
if [ -n "$findings" ]; then
  echo "$findings"
  echo "tidy: $(echo "$findings" | wc -l) findings" >&2
  exit 1
fi
echo "tidy: no findings"
