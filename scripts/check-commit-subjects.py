#!/usr/bin/env python3
"""Checks the subject line of every commit after the marker commit named in
.ci/commit-subjects-since (CONTRIBUTING.md, "Commit messages"):

  - at most 72 characters;
  - an area prefix: "cmake: ", "docs: ", "engine/dsl: " (lower case, then a colon and a space);
  - the imperative mood after it: "find", not "finds", "found" or "finding".

The mood test is a heuristic on the first word after the prefix: a word ending in -ed or -ing, or
in -s (but not -ss, -us, -is), is not an imperative, less the verbs listed in IMPERATIVE_EXCEPTIONS.
Merge commits are not checked.

  scripts/check-commit-subjects.py [REPOSITORY] [--since COMMIT] [--range REV-RANGE]

Exit status 0: every subject conforms; 1: some do not (each is listed); 2: the check cannot run
(no marker file, the marker is not in this clone, as in a shallow clone, or not an ancestor of
HEAD), with a message saying what to do.
"""
import argparse
import re
import subprocess
import sys
from pathlib import Path

MAX_LENGTH = 72
MARKER_FILE = ".ci/commit-subjects-since"
PREFIX = re.compile(r"^([a-z0-9][a-z0-9._/+-]*(, ?[a-z0-9][a-z0-9._/+-]*)*): (\S.*)$")
# Imperatives the suffix test would take for something else.
IMPERATIVE_EXCEPTIONS = {
    "embed", "exceed", "feed", "need", "proceed", "seed", "shed", "speed", "succeed", "bring",
    "ping", "ring", "sing", "string", "swing", "wing", "alias", "bias", "canvas", "focus",
}


def git(repository, *args):
    return subprocess.run(["git", "-C", str(repository), *args], capture_output=True, text=True)


def read_marker(repository):
    path = Path(repository) / MARKER_FILE
    if not path.is_file():
        return None
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            return line
    return None


def subject_problems(subject):
    problems = []
    if len(subject) > MAX_LENGTH:
        problems.append(f"{len(subject)} characters, more than {MAX_LENGTH}")
    match = PREFIX.match(subject)
    if not match:
        problems.append('no area prefix ("area: what the commit does")')
        return problems
    first = re.split(r"[^A-Za-z'-]", match.group(3), maxsplit=1)[0].lower()
    if first and first not in IMPERATIVE_EXCEPTIONS:
        if (first.endswith("ed") or first.endswith("ing") or
                (first.endswith("s") and not first.endswith(("ss", "us", "is")))):
            problems.append(f'"{first}" is not the imperative (write "add", not "adds" or "added")')
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repository", nargs="?", default=".")
    parser.add_argument("--since", help=f"the marker commit (default: {MARKER_FILE})")
    parser.add_argument("--range", help="check this revision range instead (e.g. main..HEAD)")
    args = parser.parse_args()
    repository = args.repository

    if args.range:
        revisions = args.range
    else:
        marker = args.since or read_marker(repository)
        if not marker:
            print(f"commit subjects: no marker commit: {MARKER_FILE} is missing or names no "
                  "commit; write the full hash of the last commit not to check into it",
                  file=sys.stderr)
            return 2
        if git(repository, "cat-file", "-e", f"{marker}^{{commit}}").returncode != 0:
            shallow = git(repository, "rev-parse", "--is-shallow-repository").stdout.strip()
            if shallow == "true":
                print(f"commit subjects: the marker commit {marker} ({MARKER_FILE}) is not in this "
                      "shallow clone; fetch the history (git fetch --unshallow, or "
                      "actions/checkout with fetch-depth: 0) and run again", file=sys.stderr)
            else:
                print(f"commit subjects: the marker commit {marker} ({MARKER_FILE}) is not in "
                      "this repository; name a commit of its history", file=sys.stderr)
            return 2
        if git(repository, "merge-base", "--is-ancestor", marker, "HEAD").returncode != 0:
            print(f"commit subjects: the marker commit {marker} ({MARKER_FILE}) is not an "
                  "ancestor of HEAD", file=sys.stderr)
            return 2
        revisions = f"{marker}..HEAD"

    log = git(repository, "log", "--no-merges", "--format=%h%x00%s", revisions)
    if log.returncode != 0:
        print(f"commit subjects: git log {revisions} failed: {log.stderr.strip()}",
              file=sys.stderr)
        return 2
    checked = 0
    failures = 0
    for line in log.stdout.splitlines():
        commit, subject = line.split("\0", 1)
        checked += 1
        for problem in subject_problems(subject):
            failures += 1
            print(f"{commit} {subject!r}: {problem}")
    if failures:
        print(f"commit subjects: {failures} problem(s) in {checked} commit(s) of {revisions}; "
              "reword them (git rebase -i) as CONTRIBUTING.md, \"Commit messages\", says",
              file=sys.stderr)
        return 1
    print(f"commit subjects: all {checked} commit(s) of {revisions} conform")
    return 0


if __name__ == "__main__":
    sys.exit(main())
