# shellcheck shell=bash
# Instructions per operation counted by valgrind's cachegrind, for bench/*_instructions.sh (sourced,
# not run): a figure other load on the machine does not move, to compare two builds on a busy
# machine or to see where a slower CPU model's time goes. Not a substitute for the timed runs.
#
# Each benchmark program takes an untimed mode whose last argument is a COUNT of operations; the
# count per operation is the difference between COUNT and 0 of them, so the program's setup
# cancels out and the loop's own work is included.
#
#   source "$(dirname "$0")/cachegrind.sh"
#   cachegrind_setup SCRIPT TARGET BUILD_DIR [CASE...]
#                               checks valgrind and BUILD_DIR/bench/TARGET (else exits 1 with
#                               SCRIPT's name), sets $cachegrind_binary and the array
#                               cachegrind_cases to the CASEs (empty when none is given)
#   per_operation ARG...        the instructions of one operation of `$cachegrind_binary ARG...
#                               COUNT`
#   cachegrind_table UNIT FLAG CASE...
#                               a table of them, a line per case: `$cachegrind_binary FLAG CASE`

cachegrind_count=20000

cachegrind_setup() {  # SCRIPT TARGET BUILD_DIR [CASE...]
  local script=$1 target=$2
  [ $# -ge 3 ] || { echo "usage: bench/$script.sh BUILD_DIR [CASE...]" >&2; exit 2; }
  cachegrind_binary="$3/bench/$target"
  shift 3
  # shellcheck disable=SC2034  # read by the sourcing script
  cachegrind_cases=("$@")
  command -v valgrind >/dev/null || { echo "$script: valgrind is not installed" >&2; exit 1; }
  [ -x "$cachegrind_binary" ] || { echo "$script: $cachegrind_binary is not built" >&2; exit 1; }
}

cachegrind_instructions() {  # ARG... (the count last)
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    "$cachegrind_binary" "$@" 2>&1 >/dev/null | sed -n 's/.*I *refs: *//p' | tr -d ,
}

per_operation() {  # ARG...
  local none many
  none=$(cachegrind_instructions "$@" 0)
  many=$(cachegrind_instructions "$@" "$cachegrind_count")
  echo $(( (many - none + cachegrind_count / 2) / cachegrind_count ))
}

cachegrind_table() {  # UNIT FLAG CASE...
  local unit=$1 flag=$2 name
  shift 2
  printf '%-40s %12s\n' case "$unit"
  for name in "$@"; do
    printf '%-40s %12d\n' "$name" "$(per_operation "$flag" "$name")"
  done
}
