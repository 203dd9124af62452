#!/usr/bin/env python3
"""Prints the sources scripts/tidy.sh checks, one absolute path a line.

    tidy-sources.py BUILD_DIR            every library and tool source in compile_commands.json
    tidy-sources.py BUILD_DIR REVISION   only those that a change since REVISION can affect: the
                                         sources changed since then, and the sources whose
                                         compilation read a changed header (from the build's
                                         dependency log, `ninja -t deps`); all of them when the
                                         clang-tidy configuration or this selection changed.

The sources are those of the libraries, the adapters and the CLI (engine, dsl, lint, tools,
simulation, observability, protocols, adapters/*), less those in UNPARSEABLE; tests, benchmarks and
examples are not checked (README.md, "Continuous integration", says why).
"""
import json
import os
import re
import subprocess
import sys

SOURCES = re.compile(
    r"^(engine|dsl|lint|tools|simulation|observability|protocols|adapters/[a-z]+)/src/.*\.cpp$")
# clang-tidy 14 (Debian 12's) cannot parse Asio's C++20 coroutine support (asio::use_awaitable_t is
# not declared for it, so every use is an error): the sources that include
# rebound/asio/retry_executor.hpp, which uses it, are left out and kept clean by hand. The other
# Asio sources parse and are checked.
UNPARSEABLE = {
    "adapters/asio/src/retry_executor.cpp",
    "adapters/curl/src/async_http_client.cpp",
    "adapters/grpc/src/async_unary_client.cpp",
}
# A change to one of these can change every finding.
CONFIGURATION = {".clang-tidy", "scripts/tidy.sh", "scripts/tidy-sources.py"}


def git(*args):
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def library_sources(root, build_dir):
    with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    sources = set()
    for entry in entries:
        path = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
        relative = os.path.relpath(path, root)
        if SOURCES.match(relative) and relative not in UNPARSEABLE:
            sources.add(path)
    return sources


def dependencies(build_dir):
    """Maps each source compiled by the build to the files its compilation read."""
    output = subprocess.run(["ninja", "-C", build_dir, "-t", "deps"], check=True,
                            capture_output=True, text=True).stdout
    reads = {}
    current = None
    for line in output.splitlines():
        if not line.startswith(" "):
            current = None  # an object's header line; its first dependency is its source
            continue
        path = os.path.realpath(os.path.join(build_dir, line.strip()))
        if current is None:
            current = path
            reads[current] = set()
        else:
            reads[current].add(path)
    return reads


def main():
    root = git("rev-parse", "--show-toplevel").strip()
    build_dir = os.path.realpath(sys.argv[1])
    sources = library_sources(root, build_dir)
    if len(sys.argv) > 2:
        changed_names = git("diff", "--name-only", sys.argv[2], "--").split()
        changed_names += git("ls-files", "--others", "--exclude-standard").split()
        if not CONFIGURATION.intersection(changed_names):
            changed = {os.path.realpath(os.path.join(root, name)) for name in changed_names}
            reads = dependencies(build_dir)
            sources = {source for source in sources
                       if source in changed or reads.get(source, set()) & changed}
    for source in sorted(sources):
        print(source)


if __name__ == "__main__":
    main()
