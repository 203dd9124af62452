#!/usr/bin/env python3
"""Lists the import knots of a library folder: groups of its modules that include each other.

A module is a file stem (foo.hpp and foo.cpp are one module `foo`) or a sub-folder of the sources
(`yaml/`, every file in it). An edge A -> B means a file of A includes a file of B. A knot is a
strongly connected group of two or more modules; two-module knots are listed by their pair.

    scripts/include-knots.py [dsl]     # default: dsl
"""
import re
import sys
from pathlib import Path

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)


def module_of(path: Path, src: Path, public: Path) -> str:
    for root in (src, public):
        try:
            rel = path.relative_to(root)
        except ValueError:
            continue
        return rel.parts[0] + "/" if len(rel.parts) > 1 else rel.stem
    raise ValueError(path)


def main() -> int:
    part = Path(sys.argv[1] if len(sys.argv) > 1 else "dsl")
    src = part / "src"
    public = part / "include" / "rebound" / part.name
    files = [f for root in (src, public) for f in root.rglob("*") if f.suffix in (".hpp", ".cpp")]
    by_include = {}
    for f in files:
        if f.is_relative_to(public):
            by_include[str(f.relative_to(part / "include"))] = f
        by_include[str(f.relative_to(src)) if f.is_relative_to(src) else str(f)] = f
    edges = {}
    for f in files:
        a = module_of(f, src, public)
        for name in INCLUDE.findall(f.read_text(errors="replace")):
            target = by_include.get(name)
            if target is None:
                continue
            b = module_of(target, src, public)
            if a != b:
                edges.setdefault(a, set()).add(b)
    # Tarjan's strongly connected components.
    index, low, stack, on_stack, knots = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                knots.append(sorted(group))

    nodes = sorted(set(edges) | {b for bs in edges.values() for b in bs})
    for v in nodes:
        if v not in index:
            visit(v)
    pairs = sorted((a, b) for a in edges for b in edges[a] if a < b and a in edges.get(b, ()))
    print(f"{part}: {len(nodes)} modules, {sum(map(len, edges.values()))} edges, "
          f"{len(knots)} knots, {len(pairs)} two-module knots")
    for a, b in pairs:
        print(f"  {a} <-> {b}")
    for group in knots:
        if len(group) > 2:
            print("  knot: " + " ".join(group))
    return 0


if __name__ == "__main__":
    sys.exit(main())
