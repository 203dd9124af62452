#!/usr/bin/env python3
"""How many codes of a vendor-code corpus a maps directory classifies as the corpus says.

    scripts/vendor-map-accuracy.py REBOUND_BINARY MAPS_DIR [CORPUS_TSV]

CORPUS_TSV (default tests/data/vendor-codes/families.tsv) has the columns vendor, sqlstate,
native, phase, category, meaning; '#' lines are comments. Each row is classified with
`rebound classify --vendor-maps MAPS_DIR --format json`. Prints two figures: the rows whose
category is the corpus's ("category"), and the rows whose retry-by-default (docs/categories.md)
is the corpus category's ("retry"), the second forgiving a wrong category that retries the same.
Run it against an older copy of the maps (git show REV:policies/vendors/FILE) for a before/after.
"""
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def retryable_categories():
    """Categories retried by default, from the table of docs/categories.md."""
    text = (ROOT / "docs/categories.md").read_text()
    return {m.group(1) for m in re.finditer(r"^\| `([a-z_]+)` \| yes \|", text, re.M)}


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__)
    binary, maps = argv[1], argv[2]
    corpus = pathlib.Path(argv[3]) if len(argv) == 4 else \
        ROOT / "tests" / "data" / "vendor-codes" / "families.tsv"
    retryable = retryable_categories()
    total = same_category = same_retry = 0
    for line in corpus.read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        vendor, sqlstate, native, phase, category, meaning = line.split("\t")
        out = subprocess.run(
            [binary, "classify", "--vendor", vendor, "--sqlstate", sqlstate, "--native", native,
             "--phase", phase, "--vendor-maps", maps, "--format", "json"],
            check=True, capture_output=True, text=True).stdout
        got = json.loads(out)["category"]
        total += 1
        same_category += got == category
        same_retry += (got in retryable) == (category in retryable)
        if got != category:
            print(f"  {vendor} {native} {phase}: {got}, expected {category} ({meaning})")
    print(f"category: {same_category}/{total} ({100.0 * same_category / total:.1f}%)")
    print(f"retry:    {same_retry}/{total} ({100.0 * same_retry / total:.1f}%)")


if __name__ == "__main__":
    main(sys.argv)
