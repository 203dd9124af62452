"""Runs `rebound simulate --svg` and checks that the chart is well-formed XML with the expected
structure: an <svg> root in the SVG namespace, two panels' polylines per strategy, a legend entry
per strategy, and numeric points.

Usage: check_svg.py REBOUND_CLI SCRATCH_DIR
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

SVG = "{http://www.w3.org/2000/svg}"
STRATEGIES = ["exponential", "full", "equal", "decorrelated", "none"]


def main() -> int:
    cli, scratch = sys.argv[1], sys.argv[2]
    os.makedirs(scratch, exist_ok=True)
    path = os.path.join(scratch, "simulate.svg")
    subprocess.run([cli, "simulate", "--runs", "2", "--clients", "10,20,30", "--svg", path],
                   check=True, stdout=subprocess.DEVNULL)
    root = ElementTree.parse(path).getroot()
    problems = []
    if root.tag != SVG + "svg":
        problems.append(f"root element is {root.tag}, expected an svg element")
    polylines = root.findall(f".//{SVG}polyline")
    if len(polylines) != 2 * len(STRATEGIES):
        problems.append(f"{len(polylines)} polylines, expected {2 * len(STRATEGIES)}")
    for line in polylines:
        points = [tuple(float(v) for v in p.split(",")) for p in line.get("points").split()]
        if len(points) != 3:
            problems.append(f"a polyline has {len(points)} points, expected 3")
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    for expected in STRATEGIES + ["clients", "Write calls", "Completion time"]:
        if expected not in texts:
            problems.append(f"no text '{expected}'")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
