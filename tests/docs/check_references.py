#!/usr/bin/env python3
"""Checks that the project's reference is self-contained.

1. Every relative Markdown link in README.md and docs/ (recursively) names a file that exists.
2. No source or data file, and not README.md, cites a reference document by a bare name
   (`semantics.md`, `categories.md`, `policy-language.md`, `cli.md`, `resilience.md`,
   `protocols.md`) or points outside the repository (`../shared`): they are cited as
   `docs/NAME.md`, so a reader finds them in the repository (pages of docs/ name their
   siblings by file name).
   The conformance vectors (tests/spec/, the tests that run them) are a test input and exempt.

usage: check_references.py REPOSITORY_ROOT
"""
import os
import re
import sys

CITED = r"(?:semantics|categories|policy-language|cli|resilience|protocols)\.md"
BARE = re.compile(r"(?<![/\w.-])" + CITED)
OUTSIDE = re.compile(r"\.\./shared")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
SOURCE_SUFFIXES = (".cpp", ".hpp", ".h", ".txt", ".cmake", ".in", ".py", ".sh", ".yaml", ".yml",
                   ".json", ".rebound", ".md")
SKIPPED_DIRS = {".git", "build", "spec", "corpus"}
EXEMPT = {"tests/CMakeLists.txt", "tests/conformance/conformance_test.cpp",
          "tests/docs/check_references.py"}


def files(root):
    for directory, subdirectories, names in os.walk(root):
        subdirectories[:] = [d for d in subdirectories
                             if d not in SKIPPED_DIRS and not d.startswith("build")]
        for name in names:
            if name.endswith(SOURCE_SUFFIXES):
                path = os.path.join(directory, name)
                yield os.path.relpath(path, root).replace(os.sep, "/"), path


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    root = sys.argv[1]
    problems = []
    for relative, path in files(root):
        if relative in EXEMPT:
            continue
        text = open(path, encoding="utf-8", errors="replace").read()
        is_markdown = relative.endswith(".md")
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                problems.append(f"{relative}:{number}: points outside the repository: {line.strip()}")
            # Pages of docs/ name their siblings by file name; the link check proves they exist.
            for match in [] if relative.startswith("docs/") else BARE.finditer(line):
                problems.append(f"{relative}:{number}: cites '{match.group(0)}' without "
                                f"'docs/': {line.strip()}")
            if is_markdown:
                for target in LINK.findall(line):
                    if re.match(r"[a-z]+:", target):
                        continue
                    if not os.path.exists(os.path.join(os.path.dirname(path), target)):
                        problems.append(f"{relative}:{number}: link to a missing file: {target}")
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print("every reference names a file in the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main())
