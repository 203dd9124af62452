#!/usr/bin/env python3
"""bench/report.py on made-up results shows what docs/performance.md must show.

    tests/bench/check_report.py bench/report.py

The results (machine.json, rebound_executor_bench.json, rebound_http_client_bench.json, one
pgbench and one contention round,
round-trips.json, queue.json, brownout.json, two shapes of the hostile lint bench) are written to a temporary directory; the report
must hold the handler lookup goals against the allocation-free baselines (transparent
std::unordered_map, absl::flat_hash_map) with their ratios, the pgbench and `rebound immediate` contention rows next to each other with the
like-for-like goal, the measured round trips per attempt, and the brownout measured beside the
simulation with its goals. Exits 1 naming what is missing.
"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path


def benchmark(name, nanoseconds):
    return {"name": name + "_median", "run_name": name, "aggregate_name": "median",
            "real_time": nanoseconds, "cpu_time": nanoseconds, "time_unit": "ns"}


def write_results(results):
    (results / "machine.json").write_text(json.dumps({"cpus": 2, "load_before": ["1", "1", "1"]}))
    (results / "commands.txt").write_text("")
    (results / "notes.txt").write_text("")
    (results / "rebound_executor_bench.json").write_text(json.dumps({"benchmarks": [
        benchmark("handler_lookup/registry_resolve", 8.0),
        benchmark("handler_lookup/unordered_map_string", 32.0),
        benchmark("handler_lookup/unordered_map_transparent", 10.0),
        benchmark("handler_lookup/absl_flat_hash_map", 6.0)]}))
    # Apart, the call looks 10% slower than the transfer; paired, 1.5% (the goal's figure).
    (results / "rebound_async_http_bench.json").write_text(json.dumps({"benchmarks": [
        benchmark("async_http/perform", 200000.0), benchmark("async_http/call", 220000.0),
        dict(benchmark("async_http/paired", 406000.0), perform_us=200.0, call_us=203.0,
             call_over_perform=1.015)]}))
    (results / "rebound_http_client_bench.json").write_text(json.dumps({"benchmarks": [
        benchmark("BM_http_call_kept_connection/real_time", 300000.0),
        benchmark("BM_http_call_new_connection/real_time", 900000.0)]}))
    (results / "pgbench-1.txt").write_text(
        "number of transactions actually processed: 3200/3200\n"
        "number of failed transactions: 0 (0.000%)\n"
        "total number of retries: 11800\n"
        "tps = 2000.000000 (without initial connection time)\n")
    settings = {"threads": 16, "transactions_per_thread": 200, "max_attempts": 100,
                "initial_us": 500, "max_us": 50000, "exhausted": 0, "other_failures": 0,
                "final_value": 3200, "committed": 3200}
    (results / "contention-1.json").write_text(json.dumps([
        dict(settings, strategy="immediate", attempts=18000, wall_seconds=2.0),
        dict(settings, strategy="equal", attempts=5000, wall_seconds=1.5)]))
    def queue_run(name, **counters):
        return dict({"name": name, "run_name": name, "real_time": 100.0, "cpu_time": 1.0,
                     "time_unit": "ms"}, **counters)
    # The durable run (goals) and the fsync=off run (a second, labelled figure).
    (results / "queue-fsync-off.json").write_text(json.dumps({
        "context": {"postgresql_fsync": "off", "postgresql_synchronous_commit": "on",
                    "postgresql_filesystem": "ext2/ext3"},
        "benchmarks": [queue_run("queue_naive_for_update/workers:4/iterations:3/real_time",
                                 messages_per_second=9000.0)]}))
    (results / "queue.json").write_text(json.dumps({
        "context": {"postgresql_fsync": "on", "postgresql_synchronous_commit": "on",
                    "postgresql_filesystem": "ext2/ext3"},
        "benchmarks": [
        queue_run("queue_naive_for_update/workers:4/iterations:3/real_time",
                  messages_per_second=2000.0),
        queue_run("queue_skip_locked/workers:4/grouped:0/iterations:3/real_time",
                  messages_per_second=3000.0),
        queue_run("queue_skip_locked/workers:4/grouped:1/iterations:3/real_time",
                  messages_per_second=7000.0),
        # Two grouped repetitions and their median: each repetition is shown, the worst p99
        # decides; the default completion's repetition is shown beside them.
        queue_run("queue_retry_lateness/grouped:1/iterations:1/repeats:2/real_time",
                  repetitions=2, lateness_p50_ms=1.5, lateness_p99_ms=120.0,
                  max_messages_per_second=900.0, offered_messages_per_second=450.0,
                  retries_measured=4500, load_average=3.5, cpu_pressure_percent=60.0),
        queue_run("queue_retry_lateness/grouped:1/iterations:1/repeats:2/real_time",
                  repetitions=2, lateness_p50_ms=1.0, lateness_p99_ms=20.0,
                  max_messages_per_second=1000.0, offered_messages_per_second=500.0,
                  retries_measured=5000, load_average=1.2),
        dict(queue_run("queue_retry_lateness/grouped:1/iterations:1/repeats:2/real_time_median",
                       lateness_p99_ms=70.0), aggregate_name="median",
             run_name="queue_retry_lateness/grouped:1/iterations:1/repeats:2/real_time"),
        queue_run("queue_retry_lateness/grouped:0/iterations:1/repeats:2/real_time",
                  repetitions=2, lateness_p50_ms=9.0, lateness_p99_ms=300.0,
                  max_messages_per_second=500.0, offered_messages_per_second=250.0,
                  retries_measured=2500, load_average=9.5),
        queue_run("queue_table_size/done_rows:1000000/delete_done:0/iterations:3/real_time",
                  us_per_message=0.0004)]}))
    (results / "round-trips.json").write_text(json.dumps(
        {"transactions": 200, "rebound_immediate": 3.0, "pgbench": 4.0}))
    brownout = {"capacity": 100, "arrival_rate": 80, "brownout_capacity": 40,
                "brownout_start_ms": 4000, "brownout_ms": 10000, "run_ms": 26000, "queue": 150,
                "workers": 8, "timeout_ms": 1000,
                "policy_file": "simulation/policies/brownout.yaml"}

    def policy(attempts, budget=None, breaker=None):
        return {"max_attempts": attempts, "first_backoff_ms": 100.0 if attempts > 1 else None,
                "budget": None if budget is None else {"max_tokens": budget, "token_ratio": 0.1},
                "breaker": breaker}
    breaker = {"failure_ratio": 0.5, "minimum_calls": 20, "window_ms": 1000.0,
               "slow_call_ms": 500.0, "open_for_ms": 2000.0, "max_open_for_ms": 16000.0}

    def strategy(name, recovery, peak, rule):
        return {"strategy": name, "policy": rule, "recovery_s": recovery,
                "peak_amplification": peak, "brownout_amplification": peak * 0.9,
                "brownout_retries": 12, "largest_queue": 150, "server_received": 2000,
                "server_shed": 100, "late_arrivals": 0}
    (results / "brownout.json").write_text(json.dumps(dict(brownout, strategies=[
        strategy("none", 4.0, 1.0, policy(1)), strategy("immediate", None, 4.0, policy(4)),
        strategy("backoff", None, 4.05, policy(4)),
        strategy("backoff.budget", 5.0, 1.1, policy(4, 20)),
        strategy("backoff.default-budget", 5.0, 1.6, policy(4, 100)),
        strategy("backoff.breaker", 0.0, 1.35, policy(4, None, breaker)),
        strategy("backoff.budget.breaker", 7.0, 1.0, policy(4, 20, breaker))], simulated=[
        {"strategy": "none", "recovery_s": 16.0, "peak_amplification": 1.0,
         "largest_queue": 4000}])))
    (results / "brownout.svg").write_text("<svg/>")

    def lint_run(name, milliseconds, size_bytes, peak):
        return dict(benchmark(name, milliseconds), time_unit="ms", bytes=size_bytes, peak_MB=peak)
    # `chain` grows linearly up to its depth limit of 32 (1 ms per 8 policies), and past it
    # (1,000 policies) only the reading grows; `wide_list` quadratically from its second size on
    # (4x the time for 2x the items: slope 2), and its largest file past the limit takes 2.4 s and
    # 600 MB.
    (results / "rebound_hostile_lint_bench-chain.json").write_text(json.dumps({"benchmarks": [
        lint_run("chain/8", 1.0, 200.0, 6.0), lint_run("chain/16", 2.0, 400.0, 6.0),
        lint_run("chain/32", 4.0, 800.0, 7.0), lint_run("chain/1000", 8.0, 65536.0, 30.0)]}))
    (results / "rebound_hostile_lint_bench-wide_list.json").write_text(json.dumps({"benchmarks": [
        lint_run("wide_list/16", 1.0, 400.0, 6.0), lint_run("wide_list/500", 150.0, 8192.0, 20.0),
        lint_run("wide_list/1000", 600.0, 16384.0, 100.0),
        lint_run("wide_list/40000", 2400.0, 819200.0, 600.0)]}))

def main():
    report_script = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="rebound-report-test") as scratch:
        results = Path(scratch) / "results"
        results.mkdir()
        write_results(results)
        output = Path(scratch) / "performance.md"
        subprocess.run([sys.executable, report_script, "--results", str(results),
                        "--output", str(output), "--svg", str(Path(scratch) / "chart.svg")],
                       check=True)
        text = output.read_text()
    lines = text.splitlines()
    expected = [
        ("call <= 1.02x the bare transfer", "1.01x paired (203.0 µs against 200.0 µs; apart: "
         "1.10x)", "**met**"),
        # 8 / 10 and 8 / 6 ns: one goal met, one missed.
        ("registry_resolve <= 1.0x unordered_map_transparent", "0.80x", "**met**"),
        ("registry_resolve <= 1.2x absl_flat_hash_map", "1.33x", "**missed**"),
        # 18000 / 15000 attempts, 2.0 / 1.6 s.
        ("rebound immediate (like for like with pgbench)", "attempts 1.20x, wall 1.25x",
         "**missed**"),
        # 300 / 900 µs per call.
        ("| kept connection |", "300"),
        ("kept connection takes 0.33x the time of one on a new connection",),
        ("Round trips per attempt, measured", "rebound immediate 3.00, pgbench 4.00", ""),
        # The brownout: measured beside simulated, each goal against the no-retry recovery (4 s).
        ("| none | 4.0 s | 16.0 s | 1.00x | 1.00x |",),
        ("backoff.budget: peak amplification during the brownout <= 1.3x", "1.10x", "**met**"),
        ("backoff.budget: recovery <= 1.5x", "5.0 s against 4.0 s", "**met**"),
        ("backoff.breaker: peak amplification", "1.35x", "**missed**"),
        ("backoff.budget.breaker: recovery", "7.0 s against 4.0 s", "**missed**"),
        ("immediate (no budget, no breaker)", "recovery never (metastable)", "**met**"),
        ("| backoff.budget.breaker | 4 attempts; backoff from 100 ms; budget 20 tokens, ratio "
         "0.1; breaker 50% of 20 calls in 1 s, slow call 500 ms, open 2 s (max 16 s) |",),
        ("backoff.breaker: 12 retries sent in the brownout", "the calls of the last 1 s",
         "slower than 500 ms", "it let 12 retries through before it opened"),
        ("backoff.default-budget: a budget lets about max_tokens / 2 = 50 retries",
         "1 + 50 / 80 = 1.62x"),
        ("![goodput and offered load, measured](performance-brownout.svg)",),
        # 7000 / 2000 and 3000 / 2000 messages/s; p99 120 and 20 ms; 0.0004 s per message.
        ("4 workers >= 3x the naive claim", "grouped completion 3.50x",
         "one transaction per message 1.50x", "**met**"),
        (">= 2,000 messages/s", "7,000 messages/s", "**met**"),
        ("p99 lateness of due retries <= 100 ms", "grouped: p99 120.0 / 20.0 ms in 2 runs",
         "**missed**"),
        ("| grouped | 3.5 | 60% | 900 | 450 | 4,500 | 1.5 ms | 120.0 ms |",),
        ("| grouped | 1.2 | - | 1,000 | 500 | 5,000 | 1.0 ms | 20.0 ms |",),
        ("| one transaction per attempt | 9.5 | - | 500 | 250 | 2,500 | 9.0 ms | 300.0 ms |",),
        ("| 1,000,000 done rows kept |", "400 µs"),
        ("| naive `FOR UPDATE` |", "2,000"),
        ("Messages per second", "server: fsync=on, synchronous_commit=on, data directory on "
         "ext2/ext3"),
        ("server that is not durable (fsync=off, synchronous_commit=on", "no goal is judged"),
        ("| naive `FOR UPDATE` |", "9,000"),
        # Hostile lint: the quadratic shape fails all three goals; the table shows per-KB cost.
        ("lints in at most 2 s", "slowest 600 ms", "past the limits, where loading stops early: "
         "2,400 ms", "**met**"),
        ("peak memory at most 512 MB", "600 MB", "**missed**"),
        ("time grows linearly with size", "steepest 2.00 (`wide_list`)", "**missed**"),
        ("| `chain` | 32 policies, each extending the one before | 0.8 KB | 4.00 ms |",),
        ("| `chain` | 1,000 policies, each extending the one before (past the limit: extends depth "
         "32) | 64.0 KB | 8.00 ms | 125.00 µs |",),
        ("| `wide_list` | 40,000 items in one retry_on (past the limit: 1,000 items of one list) |",),
        ("![lint time against size](performance-hostile-lint.svg)",),
    ]
    problems = []
    for needles in expected:
        if not any(all(n in line for n in needles) for line in lines):
            problems.append("no line with " + " + ".join(repr(n) for n in needles))
    rows = [i for i, line in enumerate(lines)
            if line.startswith("| pgbench --max-tries |") or line.startswith("| rebound immediate |")]
    if len(rows) != 2 or rows[1] != rows[0] + 1:
        problems.append(f"the pgbench and rebound immediate rows are not next to each other: {rows}")
    for problem in problems:
        print(f"check_report: {problem}")
    if problems:
        print(text)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
