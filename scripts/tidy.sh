#!/usr/bin/env bash
# clang-tidy with the checks of .clang-tidy over the project's library and tool sources (not
# tests, benchmarks or examples; scripts/tidy-sources.py), in parallel, from the
# compile_commands.json of a configured and built build. Fails on any finding.
#   BUILD_DIR=...     the build to read compile_commands.json and its dependency log from
#                     (default: build)
#   TIDY_JOBS=...     parallel clang-tidy processes (default: nproc)
#   TIDY_SINCE=REV    check only the sources a change since REV can affect (the changed sources
#                     and those that include a changed header); TIDY_SINCE=auto takes the
#                     merge-base with main; on main itself the commit in .ci/tidy-checked
#                     (the last one a full run passed on), else the first parent of HEAD.
#                     Unset: every source.
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

since=${TIDY_SINCE:-}
if [ "$since" = auto ]; then
  main=$(git rev-parse --verify -q main || git rev-parse --verify -q origin/main || true)
  since=""
  if [ -n "$main" ]; then
    since=$(git merge-base HEAD "$main")
  fi
  if [ -z "$since" ] || [ "$since" = "$(git rev-parse HEAD)" ]; then
    since=""
    # On main a landing holds many commits: check all since the last full run, when it is known.
    if [ -f .ci/tidy-checked ]; then
      checked=$(tr -d '[:space:]' < .ci/tidy-checked)
      if git merge-base --is-ancestor "$checked" HEAD 2>/dev/null; then
        since=$checked
      fi
    fi
    if [ -z "$since" ]; then
      since=$(git rev-parse --verify -q 'HEAD^1' || true)
    fi
  fi
fi

mapfile -t sources < <(python3 scripts/tidy-sources.py "$build_dir" ${since:+"$since"})
if [ "${#sources[@]}" -eq 0 ]; then
  echo "tidy: no library or tool source changed since ${since}"
  exit 0
fi
echo "tidy: ${#sources[@]} sources${since:+ (changed since $(git rev-parse --short "$since"))}" >&2

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The build's flags are GCC's: drop the one clang rejects (-mmemset-strategy, on
# retry_executor.cpp and retry_run.cpp), and let it ignore the warning flags it does not know
# (-Wno-restrict).
python3 - "$build_dir/compile_commands.json" "$work/compile_commands.json" <<'PY'
import json, re, sys
entries = json.load(open(sys.argv[1], encoding="utf-8"))
for entry in entries:
    entry["command"] = re.sub(r"\s-mmemset-strategy=\S+", "", entry["command"])
json.dump(entries, open(sys.argv[2], "w", encoding="utf-8"))
PY

# run-clang-tidy takes regular expressions: each source, escaped and anchored.
patterns=()
for source in "${sources[@]}"; do
  patterns+=("^$(printf '%s' "$source" | sed 's/[][\.*^$+?(){}|]/\\&/g')\$")
done

output="$work/output"
"$runner" -clang-tidy-binary "$tidy" -p "$work" -j "$jobs" -quiet \
  -extra-arg=-Wno-unknown-warning-option "${patterns[@]}" >"$output" 2>&1 || true

# One line per finding: a header's finding is reported once, not once per source including it.
findings=$(sed 's/\x1b\[[0-9;]*m//g' "$output" |
  grep -E '(warning|error): .*\[[A-Za-z0-9.,-]+\]$' | sort -u || true)
if [ -n "$findings" ]; then
  echo "$findings"
  echo "tidy: $(echo "$findings" | wc -l) findings" >&2
  exit 1
fi
echo "tidy: no findings"
