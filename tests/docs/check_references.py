#!/usr/bin/env python3
"""Checks that the project's reference is self-contained.

1. Every relative Markdown link in README.md and docs/ (recursively) names a file that exists.
2. A page of docs/ that names a Markdown file in its text (`semantics.md, The decision`) names
   one beside it or a path from the repository's root (`docs/cli.md`), or links the name on the
   same line to a file that exists (`[semantics.md, The decision](../semantics.md#the-decision)`):
   a name alone in docs/rules/ is a file that is not there, or another document's page.
3. No source or data file, and not README.md, cites a reference document by a bare name
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
NAMED_PAGE = re.compile(r"(?<![\w./#-])((?:\.\./)*[\w-]+(?:/[\w-]+)*\.md)\b")
URL = re.compile(r"[a-z]+://\S+")
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


def unlinked_pages(root, path, line):
    """The Markdown files `line` of the page `path` names in its text (not as a link target) that
    are neither beside the page, nor a path from `root`, nor the target of a link on the line."""
    directory = os.path.dirname(path)
    linked = {os.path.basename(target) for target in LINK.findall(line)
              if os.path.exists(os.path.join(directory, target))}
    text = LINK.sub("]()", URL.sub("", line))
    return [f"names '{name}', which is not in the repository there and not linked: "
            f"{line.strip()}"
            for name in NAMED_PAGE.findall(text)
            if not os.path.exists(os.path.join(directory, name))
            and not os.path.exists(os.path.join(root, name))
            and os.path.basename(name) not in linked]


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
            if is_markdown and relative.startswith("docs/"):
                problems.extend(f"{relative}:{number}: {problem}"
                                for problem in unlinked_pages(root, path, line))
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
