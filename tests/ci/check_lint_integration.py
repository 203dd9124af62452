#!/usr/bin/env python3
"""Checks the files that run `rebound lint` where teams already run linters:

  - .pre-commit-hooks.yaml is a YAML list of pre-commit hooks with the keys pre-commit requires,
    one of them `rebound-lint`, whose entry is `rebound lint` and whose file pattern takes policy
    files and leaves out schemas and other YAML;
  - examples/ci/.github/workflows/rebound-lint.yml is a GitHub Actions workflow (name, on, jobs,
    steps that each run or use something) that runs `rebound lint --format sarif` into a file and
    uploads that same file with github/codeql-action/upload-sarif, even when lint fails, with the
    security-events permission upload-sarif needs;
  - docs/ci.md shows both files exactly as they are.

  check_lint_integration.py REPOSITORY
"""
import re
import sys
from pathlib import Path

import yaml

root = Path(sys.argv[1])
failures = []


def expect(condition, message):
    if not condition:
        failures.append(message)


def blocks_after_markers(markdown):
    """{path: text} of each fenced block preceded by an <!-- file: PATH --> line."""
    found = {}
    pattern = re.compile(r"<!-- file: (\S+) -->\n```[a-z]*\n(.*?)```\n", re.S)
    for match in pattern.finditer(markdown):
        found[match.group(1)] = match.group(2)
    return found


# pre-commit's manifest.
hooks_path = root / ".pre-commit-hooks.yaml"
hooks = yaml.safe_load(hooks_path.read_text())
expect(isinstance(hooks, list) and hooks, ".pre-commit-hooks.yaml is not a list of hooks")
for hook in hooks or []:
    for key in ("id", "name", "entry", "language"):
        expect(key in hook, f"hook {hook.get('id')} has no {key}")
lint_hooks = [h for h in hooks or [] if h.get("id") == "rebound-lint"]
expect(len(lint_hooks) == 1, "no rebound-lint hook")
if lint_hooks:
    hook = lint_hooks[0]
    expect(hook["entry"].split()[:2] == ["rebound", "lint"], "the hook does not run rebound lint")
    expect(hook.get("language") == "system", "the hook is not language: system")
    files = re.compile(hook["files"])
    exclude = re.compile(hook.get("exclude", "(?!)"))

    def takes(path):
        return bool(files.search(path)) and not exclude.search(path)

    for path in ("policies/payments.yaml", "svc/policies/retry.json", "retry.rebound",
                 "config/policies/tiers/standard.yml"):
        expect(takes(path), f"the hook does not take {path}")
    for path in (".github/workflows/ci.yml", "docker-compose.yaml", "policies/.rebound-lint.yaml",
                 "policies/schema/rebound-policy.schema.json", "policies/readme.md"):
        expect(not takes(path), f"the hook takes {path}")

# The GitHub Actions workflow.
workflow_path = root / "examples/ci/.github/workflows/rebound-lint.yml"
workflow = yaml.safe_load(workflow_path.read_text())
# YAML 1.1 reads the key `on` as true.
triggers = workflow.get("on", workflow.get(True))
expect(workflow.get("name"), "the workflow has no name")
expect(triggers and {"push", "pull_request"} <= set(triggers), "the workflow does not run on "
       "push and pull_request")
expect(workflow.get("permissions", {}).get("security-events") == "write",
       "the workflow lacks permissions: security-events: write (upload-sarif needs it)")
jobs = workflow.get("jobs", {})
expect(len(jobs) == 1, "the workflow has not exactly one job")
steps = next(iter(jobs.values()), {}).get("steps", [])
expect(next(iter(jobs.values()), {}).get("runs-on"), "the job has no runs-on")
for step in steps:
    expect(("run" in step) != ("uses" in step), f"step {step.get('name')} must run or use one thing")
lint_steps = [s for s in steps if "rebound lint --format sarif" in s.get("run", "")]
upload_steps = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
expect(len(lint_steps) == 1, "no step runs rebound lint --format sarif")
expect(len(upload_steps) == 1, "no step uploads with github/codeql-action/upload-sarif")
if lint_steps and upload_steps:
    written = re.search(r"> *(\S+\.sarif)", lint_steps[0]["run"])
    expect(written, "the lint step does not write its SARIF to a file")
    if written:
        expect(upload_steps[0].get("with", {}).get("sarif_file") == written.group(1),
               "the upload step does not upload the file the lint step writes")
    expect("always()" in str(upload_steps[0].get("if", "")),
           "the upload step does not run when lint fails (if: always())")
    expect(steps.index(lint_steps[0]) < steps.index(upload_steps[0]),
           "the upload comes before the lint")

# docs/ci.md shows both files as they are.
shown = blocks_after_markers((root / "docs/ci.md").read_text())
for path in (".pre-commit-hooks.yaml", "examples/ci/.github/workflows/rebound-lint.yml"):
    expect(path in shown, f"docs/ci.md does not show {path}")
    if path in shown:
        expect(shown[path] == (root / path).read_text(),
               f"docs/ci.md's copy of {path} differs from the file")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("lint integration: the pre-commit hook, the workflow and docs/ci.md agree")
