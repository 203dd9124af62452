"""Runs `rebound simulate --svg` for each scenario (contention, failure-rate, brownout, hedging)
and checks that each chart is well-formed XML with the expected structure: an <svg> root in the
SVG namespace, two panels' polylines per strategy, a legend entry per strategy, and numeric
points.

Usage: check_svg.py REBOUND_CLI SCRATCH_DIR
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

SVG = "{http://www.w3.org/2000/svg}"
STRATEGIES = ["exponential", "full", "equal", "decorrelated", "none"]


def check(cli, path, arguments, strategies, points, texts_expected):
    """Runs one scenario with --svg PATH and returns the problems of its chart."""
    subprocess.run([cli, "simulate", *arguments, "--svg", path], check=True,
                   stdout=subprocess.DEVNULL)
    root = ElementTree.parse(path).getroot()
    problems = []
    if root.tag != SVG + "svg":
        problems.append(f"root element is {root.tag}, expected an svg element")
    polylines = root.findall(f".//{SVG}polyline")
    if len(polylines) != 2 * len(strategies):
        problems.append(f"{len(polylines)} polylines, expected {2 * len(strategies)}")
    for line in polylines:
        line_points = [tuple(float(v) for v in p.split(",")) for p in line.get("points").split()]
        if len(line_points) != points:
            problems.append(f"a polyline has {len(line_points)} points, expected {points}")
    texts = ["".join(t.itertext()) for t in root.iter(SVG + "text")]
    for expected in strategies + texts_expected:
        if expected not in texts:
            problems.append(f"no text '{expected}'")
    return [f"{' '.join(arguments)}: {problem}" for problem in problems]


def main() -> int:
    cli, scratch = sys.argv[1], sys.argv[2]
    os.makedirs(scratch, exist_ok=True)
    problems = check(cli, os.path.join(scratch, "simulate.svg"),
                     ["--runs", "2", "--clients", "10,20,30"], STRATEGIES, 3,
                     ["clients", "Write calls", "Completion time"])
    problems += check(cli, os.path.join(scratch, "failure-rate.svg"),
                      ["--scenario", "failure-rate", "--requests", "1000"],
                      ["none", "retries", "budget", "breaker"], 11,
                      ["failure rate, %", "Success rate", "Work"])
    problems += check(cli, os.path.join(scratch, "brownout.svg"),
                      ["--scenario", "brownout", "--strategies", "none,backoff.budget"],
                      ["none", "backoff.budget"], 80, ["time, s", "Goodput", "Offered load"])
    problems += check(cli, os.path.join(scratch, "hedging.svg"),
                      ["--scenario", "hedging", "--requests", "2000",
                       "--strategies", "none,hedge:5ms,hedge:p95"],
                      ["none", "hedge:5ms", "hedge:p95"], 4, ["Latency", "Extra load"])
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
