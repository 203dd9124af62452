#!/usr/bin/env python3
"""Runs rebound_hedging_experiment several times; prints the medians against the goals and draws.

  bench/hedging_experiment.py BINARY [--runs 3] [--svg FILE] [--json FILE] [-- OPTIONS...]
  bench/hedging_experiment.py BINARY --replay FILE [--svg FILE]   (the runs of an earlier --json)

OPTIONS go to the experiment (bench/hedging_experiment.cpp). Each figure is the median over the
runs; each goal's ratio is taken in every run (no hedge and the learned hedge of the same run)
and its median is the goal's figure. The SVG shows the slowdown of the run whose learned p99
ratio is the median: hedges started per second under each hedging strategy against the line of
max_extra_load of the requests, and the hedge delay the runs read. Exit status 0 when every goal is
met, 1 otherwise, 2 when a run fails.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

GOALS = [  # (name, figure of one run, limit)
    ("p99: learned hedge / no hedge", lambda r: ratio(r, "p99_ms"), 0.3),
    ("p99.9: learned hedge / no hedge", lambda r: ratio(r, "p999_ms"), 0.5),
    ("extra requests, learned hedge (server's count)", lambda r: learned(r)["server_extra"], 0.07),
    ("slowdown: hedges / (max_extra_load * requests + burst), learned",
     lambda r: learned(r)["slowdown"]["hedges"] / learned(r)["slowdown"]["bound"], 1.0),
    ("slowdown: hedges / (max_extra_load * requests + burst), fixed",
     lambda r: fixed(r)["slowdown"]["hedges"] / fixed(r)["slowdown"]["bound"], 1.0),
]
FIGURES = ["p50_ms", "p90_ms", "p99_ms", "p999_ms", "extra", "server_extra"]


def strategy(run, index):
    return run["strategies"][index]


def learned(run):
    return strategy(run, 1)


def fixed(run):
    return strategy(run, 2)


def ratio(run, figure):
    return learned(run)[figure] / strategy(run, 0)[figure]


def summarize(runs):
    """The medians of each strategy's FIGURES, and each goal's (name, median, per run, limit, met)."""
    figures = [(strategy(runs[0], i)["strategy"],
                [statistics.median(strategy(r, i)[f] for r in runs) for f in FIGURES])
               for i in range(len(runs[0]["strategies"]))]
    goals = []
    for name, figure, limit in GOALS:
        values = [figure(r) for r in runs]
        median = statistics.median(values)
        goals.append((name, median, values, limit, median <= limit))
    return figures, goals


def median_run(runs):
    """The run whose learned p99 ratio is the median: the one the figure shows."""
    return sorted(runs, key=lambda r: ratio(r, "p99_ms"))[len(runs) // 2]


def run_once(binary, options):
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "run.json")
        subprocess.run([binary, "--json", path] + options, check=True, stdout=sys.stderr)
        with open(path, encoding="utf-8") as f:
            return json.load(f)


def polyline(points, colour, dash=""):
    text = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    extra = f' stroke-dasharray="{dash}"' if dash else ""
    return f'<polyline fill="none" stroke="{colour}" stroke-width="1.5"{extra} points="{text}"/>'


def draw(run, path):
    """Two panels over the slowdown: starts per second, and the learned delay."""
    width, height, left, top, panel = 720, 430, 60, 30, 150
    hedged = [s for s in run["strategies"][1:]]
    slow = hedged[0]["slowdown"]
    sample_s = slow["sample_ms"] / 1000.0
    samples = len(slow["requests_per_sample"])
    load = run["settings"]["max_extra_load"]
    right = width - 20

    def x(i):
        return left + (right - left) * i / samples

    requests = hedged[0]["slowdown"]["requests_per_sample"]
    rate_max = 1.3 * max([load * v / sample_s for v in requests] +
                         [v / sample_s for s in hedged for v in s["slowdown"]["hedges_per_sample"]])
    delay_max = max(max(s["slowdown"]["delay_ms_per_sample"]) for s in hedged) or 1.0
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    x0, x1 = x(slow["slow_from_ms"] / slow["sample_ms"]), x(slow["slow_until_ms"] / slow["sample_ms"])
    for base in (top, top + panel + 60):
        out.append(f'<rect x="{x0:.1f}" y="{base}" width="{x1 - x0:.1f}" height="{panel}" '
                   f'fill="#f4e1d2"/>')
        out.append(f'<rect x="{left}" y="{base}" width="{right - left}" height="{panel}" '
                   f'fill="none" stroke="#888"/>')
    out.append(f'<text x="{left}" y="{top - 10}">Hedges started per second, every request slow '
               f'in the shaded time ({sum(requests) / (samples * sample_s):.0f} requests/s; '
               f'max_extra_load {load:.0%}, burst {run["settings"]["burst"]})</text>')
    colours = ["#1f77b4", "#d62728"]

    def rate_y(v):
        return top + panel - panel * v / rate_max

    out.append(polyline([(x(i + 0.5), rate_y(load * v / sample_s)) for i, v in enumerate(requests)],
                        "#555", "4 3"))
    for s, colour in zip(hedged, colours):
        out.append(polyline([(x(i + 0.5), rate_y(v / sample_s))
                             for i, v in enumerate(s["slowdown"]["hedges_per_sample"])], colour))
    legend = [(f"{load:.0%} of requests", "#555", "4 3")]
    legend += [(f'hedges, {s["strategy"]}', c, "") for s, c in zip(hedged, colours)]
    for k, (name, colour, dash) in enumerate(legend):
        lx = left + 10 + 170 * k
        out.append(polyline([(lx, top + 12), (lx + 20, top + 12)], colour, dash))
        out.append(f'<text x="{lx + 24}" y="{top + 16}">{name}</text>')
    out.append(f'<text x="{left - 6}" y="{top + 4}" text-anchor="end">{rate_max:.0f}/s</text>')
    out.append(f'<text x="{left - 6}" y="{top + panel}" text-anchor="end">0</text>')
    base = top + panel + 60
    out.append(f'<text x="{left}" y="{base - 10}">Hedge delay the runs read (ms)</text>')

    def delay_y(v):
        return base + panel - panel * v / delay_max

    for s, colour in zip(hedged, colours):
        out.append(polyline([(x(i + 0.5), delay_y(v))
                             for i, v in enumerate(s["slowdown"]["delay_ms_per_sample"])], colour))
    out.append(f'<text x="{left - 6}" y="{base + 4}" text-anchor="end">{delay_max:.0f}</text>')
    out.append(f'<text x="{left - 6}" y="{base + panel}" text-anchor="end">0</text>')
    seconds = int(samples * sample_s)
    for t in range(seconds + 1):
        tx = x(t / sample_s)
        out.append(f'<text x="{tx:.1f}" y="{base + panel + 14}" text-anchor="middle">{t}s</text>')
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--svg")
    parser.add_argument("--json")
    parser.add_argument("--replay", help="report the runs of an earlier --json instead of running")
    parser.add_argument("options", nargs="*")
    args, rest = parser.parse_known_args()
    args.options += [o for o in rest if o != "--"]
    try:
        if args.replay:
            with open(args.replay, encoding="utf-8") as f:
                runs = json.load(f)
        else:
            runs = [run_once(args.binary, args.options) for _ in range(args.runs)]
    except subprocess.CalledProcessError as error:
        print(f"hedging_experiment.py: a run failed: {error}", file=sys.stderr)
        return 2
    figures, goals = summarize(runs)
    print("| strategy | " + " | ".join(FIGURES) + " |")
    print("|---" * (len(FIGURES) + 1) + "|")
    for name, medians in figures:
        print(f"| {name} | " + " | ".join(f"{m:.3g}" for m in medians) + " |")
    print()
    print("| goal | median | per run | limit | met |")
    print("|---|---|---|---|---|")
    for name, median, values, limit, ok in goals:
        print(f"| {name} | {median:.3f} | {', '.join(f'{v:.3f}' for v in values)} | "
              f"<= {limit} | {'yes' if ok else 'NO'} |")
    met = all(ok for *_, ok in goals)
    if args.svg:
        draw(median_run(runs), args.svg)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(runs, f, indent=1)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
