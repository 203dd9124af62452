#!/usr/bin/env python3
"""Checks that README.md shows what is real:

  - each fenced block after an <!-- file: PATH --> line is the file PATH exactly (the examples of
    tests/install/readme, which ctest builds and runs as a consumer would: install:readme_examples);
  - each fenced block after an <!-- output: rebound ARGS --> line is what `rebound ARGS` prints,
    run in tests/install/readme;
  - the first screen has, in this order, the set-up commands, a function retried under a policy
    built in code, the same from a policy file, lint and explain, and the CMake use;
  - CI, sanitizers, fuzzing, clang-tidy and benchmarks are left to CONTRIBUTING.md.

  check_readme.py REPOSITORY REBOUND_CLI
"""
import re
import subprocess
import sys
from pathlib import Path

root = Path(sys.argv[1])
rebound = sys.argv[2]
readme = (root / "README.md").read_text()
failures = []

REQUIRED_FILES = ["tests/install/readme/retry.cpp", "tests/install/readme/retry.yaml",
                  "tests/install/readme/retry_from_file.cpp",
                  "tests/install/readme/CMakeLists.txt"]
REQUIRED_OUTPUTS = ["lint retry.yaml", "explain retry.yaml"]
SECTIONS = ["## Set up on a fresh Debian 12 machine", "## Retry a function",
            "## The same policy in a file", "## Check and explain it",
            "## Install it and use it from CMake", "## What else is there"]

blocks = re.compile(r"<!-- (file|output): ([^>]+?) -->\n```[a-z]*\n(.*?)```\n", re.S)
files_shown = set()
outputs_shown = set()
for kind, what, text in blocks.findall(readme):
    if kind == "file":
        files_shown.add(what)
        path = root / what
        if not path.is_file():
            failures.append(f"README shows {what}, which does not exist")
        elif path.read_text() != text:
            failures.append(f"README's copy of {what} differs from the file")
    else:
        arguments = what.split()
        if arguments[0] != "rebound":
            failures.append(f"README shows the output of {what}, not a rebound command")
            continue
        outputs_shown.add(" ".join(arguments[1:]))
        # Standard output, then standard error (lint's summary), as a terminal shows them.
        run = subprocess.run([rebound, *arguments[1:]], cwd=root / "tests/install/readme",
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if run.stdout != text:
            failures.append(f"`{what}` prints\n{run.stdout}\nbut README shows\n{text}")
for path in REQUIRED_FILES:
    if path not in files_shown:
        failures.append(f"README does not show {path}")
for command in REQUIRED_OUTPUTS:
    if command not in outputs_shown:
        failures.append(f"README does not show the output of rebound {command}")

positions = [readme.find(section) for section in SECTIONS]
if -1 in positions or positions != sorted(positions):
    failures.append(f"README's sections are not, in this order: {SECTIONS}")
setup = re.search(r"## Set up[^\n]*\n\n```sh\n(.*?)```", readme, re.S)
commands = [line.split("#")[0].strip() for line in setup.group(1).splitlines()] if setup else []
if commands != ["bash scripts/main.sh", "bash scripts/test.sh"]:
    failures.append(f"README's set-up block is not the two commands: {commands}")
for word in ("sanitiz", "fuzz", "clang-tidy", "tidy.sh", "benchmark", ".ci/run"):
    if word in readme.lower():
        failures.append(f"README mentions '{word}', which belongs in CONTRIBUTING.md")

if failures:
    print("\n\n".join(failures))
    sys.exit(1)
print(f"README: {len(files_shown)} files and {len(outputs_shown)} outputs shown as they are")
