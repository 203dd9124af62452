#!/usr/bin/env python3
"""Checks that every Catch2 test case ran as its own ctest test.

    scripts/check-test-count.py BUILD_DIR [LABEL_REGEX]

For each executable in BUILD_DIR/catch-test-executables.tsv (written by tests/CMakeLists.txt)
whose label matches LABEL_REGEX (ctest -L semantics; default: every label), the test cases
Catch2 lists must be exactly the tests ctest has for that executable and label, and each of them
must have run in the last ctest run (BUILD_DIR/ctest-junit.xml, written with --output-junit).
A test name ctest splits or mangles (a `;` in it, for example) would otherwise run no test case
and still pass. Exits 1, naming the differences, when the numbers differ.
"""
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path


def listed_test_cases(executable, spec):
    command = [executable] + ([spec] if spec else []) + ["--list-test-names-only"]
    # Catch2 exits with the number of test cases it listed.
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    names = [line for line in result.stdout.splitlines() if line]
    if result.returncode < 0:
        sys.exit(f"check-test-count: {' '.join(command)} died with signal {-result.returncode}")
    return names


def ctest_tests(build_dir, label_regex):
    command = ["ctest", "--test-dir", build_dir, "--show-only=json-v1"]
    if label_regex:
        command += ["-L", label_regex]
    shown = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    tests = []
    for test in shown["tests"]:
        labels = []
        for prop in test.get("properties", []):
            if prop["name"] == "LABELS":
                labels = prop["value"]
        tests.append((test["name"], test.get("command", [""])[0], labels))
    return tests


def ran_tests(junit_path):
    ran = set()
    for case in ElementTree.parse(junit_path).getroot().iter("testcase"):
        if case.get("status") == "run":
            ran.add(case.get("name"))
    return ran


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    build_dir = sys.argv[1]
    label_regex = sys.argv[2] if len(sys.argv) == 3 else ""
    manifest = Path(build_dir) / "catch-test-executables.tsv"
    junit = Path(build_dir) / "ctest-junit.xml"
    tests = ctest_tests(build_dir, label_regex)
    ran = ran_tests(junit)

    problems = []
    listed_total = 0
    ran_total = 0
    for row in manifest.read_text().splitlines():
        label, prefix, spec, executable = row.split("\t")
        if label_regex and not re.search(label_regex, label):
            continue
        if not Path(executable).exists():
            problems.append(f"{executable}: not built, but its label {label} was selected")
            continue
        expected = {prefix + name for name in listed_test_cases(executable, spec)}
        registered = {name for name, command, labels in tests
                      if Path(command).resolve() == Path(executable).resolve() and label in labels}
        ran_here = registered & ran
        listed_total += len(expected)
        ran_total += len(ran_here & expected)
        where = f"{Path(executable).name} {spec}".strip()
        for name in sorted(expected - registered):
            problems.append(f"{where}: test case has no ctest test: {name!r}")
        for name in sorted(registered - expected):
            problems.append(f"{where}: ctest test matches no test case: {name!r}")
        for name in sorted((registered & expected) - ran):
            problems.append(f"{where}: test did not run: {name!r}")

    print(f"check-test-count: {listed_total} Catch2 test cases listed, {ran_total} ran under ctest"
          + (f" (labels matching {label_regex!r})" if label_regex else ""))
    for problem in problems:
        print(f"check-test-count: {problem}")
    return 1 if problems or listed_total != ran_total else 0


if __name__ == "__main__":
    sys.exit(main())
