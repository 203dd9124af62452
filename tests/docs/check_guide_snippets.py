#!/usr/bin/env python3
"""Checks that every `// guide: NAME` ... `// guide: end` block of a source file appears verbatim
(after removing the block's common indentation) in a Markdown guide.

A block that is a raw string literal constant (R"(...)") is checked by its contents, so the guide
can show the file itself (for example a YAML policy file) rather than the C++ constant.

usage: check_guide_snippets.py SOURCE GUIDE
"""
import re
import sys
import textwrap


def blocks(source_text):
    found = []
    name, lines = None, []
    for line in source_text.splitlines():
        marker = re.fullmatch(r"\s*// guide: (\S+)", line)
        if marker and marker.group(1) == "end":
            if name is None:
                raise SystemExit("'// guide: end' without a block")
            found.append((name, textwrap.dedent("\n".join(lines))))
            name, lines = None, []
        elif marker:
            if name is not None:
                raise SystemExit(f"block '{name}' is not closed before '{marker.group(1)}'")
            name, lines = marker.group(1), []
        elif name is not None:
            lines.append(line)
    if name is not None:
        raise SystemExit(f"block '{name}' is not closed")
    return found


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    source_path, guide_path = sys.argv[1:]
    source_text = open(source_path, encoding="utf-8").read()
    guide = open(guide_path, encoding="utf-8").read()
    found = blocks(source_text)
    if not found:
        raise SystemExit(f"{source_path}: no '// guide:' blocks")
    missing = []
    for name, text in found:
        raw = re.search(r'R"\((.*)\)"', text, re.DOTALL)
        expected = raw.group(1) if raw else text + "\n"
        if expected not in guide:
            missing.append(name)
    for name in missing:
        print(f"{guide_path}: block '{name}' of {source_path} is missing or differs")
    if missing:
        return 1
    print(f"{len(found)} blocks of {source_path} appear verbatim in {guide_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
