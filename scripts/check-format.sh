#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what clang-format makes of it (.clang-format), and
# lists those files. Fix them with: git ls-files '*.cpp' '*.hpp' '*.h' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."

format=$(command -v clang-format-14 || command -v clang-format)
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h')
output=$("$format" --dry-run "${files[@]}" 2>&1 || true)
unformatted=$(grep -oE '^[^:]+\.(cpp|hpp|h):[0-9]+:[0-9]+: (warning|error)' <<<"$output" |
  cut -d: -f1 | sort -u || true)
if [ -n "$unformatted" ]; then
  echo "$unformatted"
  echo "format: $(wc -l <<<"$unformatted") of ${#files[@]} files differ from clang-format" >&2
  exit 1
fi
echo "format: all ${#files[@]} files as clang-format writes them"
