#!/usr/bin/env bash
# Every test program fails a run that tests nothing (support/catch_main.cpp sets Catch2's
# `-w NoTests -w NoAssertions`): a test name that matches no test case (what ctest runs when it
# splits a name at a `;`), a test case without an assertion, and a section without one.
#
#   tests/support/check-catch-main.sh BUILD/tests/rebound_catch_main_fixture
set -uo pipefail
fixture=$1
failures=0

# expect EXPECTED NAME: the fixture run on test NAME exits with status 0 (EXPECTED=pass) or with
# a failure status, not a signal (EXPECTED=fail).
expect() {
  local expected=$1 name=$2 output status
  output=$("$fixture" "$name" 2>&1)
  status=$?
  local passed=false
  if [ "$expected" = pass ] && [ "$status" -eq 0 ]; then
    passed=true
  elif [ "$expected" = fail ] && [ "$status" -ne 0 ] && [ "$status" -lt 128 ]; then
    passed=true
  fi
  if [ "$passed" = true ]; then
    echo "ok: '$name' exits with $status"
  else
    echo "FAILED: '$name' should $expected, exit status $status:" >&2
    echo "$output" >&2
    failures=$((failures + 1))
  fi
}

expect pass "asserts once"
expect fail "no test case has this name"
expect fail "asserts nothing"
expect fail "a section asserts nothing"
exit $((failures > 0))
