#!/usr/bin/env python3
"""Tests scripts/check-commit-subjects.py on throw-away repositories: conforming subjects pass,
each kind of bad subject fails and is named, and a missing marker file, a marker that is not in
the clone (a shallow clone, or a made-up hash) and a marker off HEAD's history stop the check
with exit status 2 and a message that says what to do.

  check_commit_subjects_test.py SCRIPT
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = sys.argv[1]
ENV = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
           GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com", GIT_CONFIG_NOSYSTEM="1",
           HOME=tempfile.gettempdir())
failures = []


def git(repository, *args):
    return subprocess.run(["git", "-C", str(repository), *args], check=True, env=ENV,
                          capture_output=True, text=True).stdout.strip()


def commit(repository, subject):
    git(repository, "commit", "-q", "--allow-empty", "-m", subject, "-m", "Details.")
    return git(repository, "rev-parse", "HEAD")


def check(repository, *args):
    result = subprocess.run([sys.executable, SCRIPT, str(repository), *args], env=ENV,
                            capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


def expect(name, condition, output):
    if not condition:
        failures.append(f"{name}:\n{output}")


def new_repository(root, name):
    repository = Path(root) / name
    repository.mkdir()
    git(repository, "init", "-q", "-b", "main")
    return repository


def write_marker(repository, marker):
    (repository / ".ci").mkdir(exist_ok=True)
    (repository / ".ci/commit-subjects-since").write_text(f"# the last unchecked commit\n{marker}\n")


with tempfile.TemporaryDirectory() as root:
    repository = new_repository(root, "repository")
    old = commit(repository, "An old subject written before the rule, long and not imperative at all")
    write_marker(repository, old)

    status, output = check(repository)
    expect("no commit after the marker", status == 0 and "all 0 commit(s)" in output, output)

    commit(repository, "cmake: find only each component's own dependencies")
    commit(repository, "docs, readme: show the first example")
    commit(repository, "ci: check commit subjects since a marker commit")
    commit(repository, "tests/install: embed the README's policy file")
    commit(repository, "scripts: process the list as each access needs")
    status, output = check(repository)
    expect("conforming subjects pass", status == 0 and "all 5 commit(s)" in output, output)

    bad = {
        "cmake: " + "x" * 70: "more than 72",
        "Find only each component's own dependencies": "no area prefix",
        "cmake: finds only each component's own dependencies": '"finds" is not the imperative',
        "cmake: Added the component files": '"added" is not the imperative',
        "cmake: making the component files": '"making" is not the imperative',
    }
    for subject in bad:
        commit(repository, subject)
    status, output = check(repository)
    expect("bad subjects fail", status == 1, output)
    for subject, problem in bad.items():
        expect(f"'{subject}' is reported", any(subject in line and problem in line
                                                for line in output.splitlines()), output)
    expect("good subjects are not reported", "find only each component" not in output, output)

    # A merge commit is not checked (git's own subject has no area prefix).
    merged = new_repository(root, "merged")
    base = commit(merged, "An old subject")
    write_marker(merged, base)
    git(merged, "checkout", "-q", "-b", "topic")
    commit(merged, "docs: add a page")
    git(merged, "checkout", "-q", "main")
    commit(merged, "cmake: add a component")
    git(merged, "merge", "-q", "--no-ff", "--no-edit", "topic")
    status, output = check(merged)
    expect("merge commits are not checked", status == 0 and "all 2 commit(s)" in output, output)

    # The marker file is missing.
    (repository / ".ci/commit-subjects-since").unlink()
    status, output = check(repository)
    expect("a missing marker file stops the check", status == 2 and
           ".ci/commit-subjects-since is missing" in output, output)

    # The marker names a commit this repository does not have.
    write_marker(repository, "0123456789abcdef0123456789abcdef01234567")
    status, output = check(repository)
    expect("an unknown marker stops the check", status == 2 and "is not in this repository"
           in output, output)

    # A shallow clone without the marker: says how to fetch the history.
    write_marker(repository, old)
    git(repository, "add", ".ci/commit-subjects-since")
    commit(repository, "ci: name the marker commit")
    shallow = Path(root) / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{repository}", str(shallow)],
                   check=True, env=ENV)
    status, output = check(shallow)
    expect("a shallow clone without the marker stops the check", status == 2 and
           "shallow clone" in output and "fetch-depth: 0" in output, output)

    # A marker that is not an ancestor of HEAD (on another branch).
    git(repository, "checkout", "-q", "-b", "side", old)
    side = commit(repository, "docs: write on a side branch")
    git(repository, "checkout", "-q", "main")
    write_marker(repository, side)
    status, output = check(repository)
    expect("a marker off HEAD's history stops the check", status == 2 and
           "not an ancestor of HEAD" in output, output)

if failures:
    print("\n\n".join(failures))
    sys.exit(1)
print("check-commit-subjects: every case behaved as expected")
