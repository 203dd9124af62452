#!/usr/bin/env python3
"""Writes docs/performance.md (and the contention chart) from the results of bench/run.sh.

    bench/report.py --results DIR --output docs/performance.md --svg docs/performance-contention.svg

DIR holds what bench/run.sh wrote: machine.json, commands.txt, notes.txt, one Google Benchmark
JSON file per program (<program>.json), lint.txt, pgbench-<round>.txt/.json,
contention-<round>.json, brownout.json (with brownout.svg and brownout-simulated.svg, copied
next to the output as performance-brownout*.svg) and hedging.json (the runs of
bench/hedging_experiment.py, with hedging.svg copied as performance-hedging.svg). Missing pieces are
reported as skipped, not invented. Standard library only. The explanations are kept here, next to
the tables they explain.
"""

import argparse
import glob
import json
import math
import os
import re
import shutil
import statistics
import sys
from datetime import datetime, timezone

# ---------------------------------------------------------------------------------------------
# Reading the results


def steal_by_phase(samples):
    """[(phase, steal %)] from run.sh's samples ("phase load steal total", ticks since boot, the
    first named "start"); empty for results recorded before run.sh sampled steal."""
    ticks = [(sample[0], int(sample[2]), int(sample[3])) for sample in samples if len(sample) >= 4]
    shares = []
    for (_, steal_before, total_before), (phase, steal, total) in zip(ticks, ticks[1:]):
        if total > total_before:
            shares.append((phase, 100.0 * (steal - steal_before) / (total - total_before)))
    return shares


def load_benchmarks(path):
    """Google Benchmark aggregates by run name: median/mean/stddev/cv of real and cpu time (in
    ns), and the median of every counter."""
    if not os.path.exists(path):
        return None
    try:
        with open(path) as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    to_ns = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    runs = {}
    for entry in data.get("benchmarks", []):
        name = entry.get("run_name", entry["name"])
        run = runs.setdefault(name, {"counters": {}})
        aggregate = entry.get("aggregate_name")
        if aggregate is None and entry.get("repetitions", 1) > 1:
            # One repetition of several: kept as it is (the lateness runs report each one).
            run.setdefault("repetitions", []).append(
                {key: value for key, value in entry.items() if isinstance(value, (int, float))})
            continue
        if aggregate is None:  # a single run without repetitions: treat as the median
            aggregate = "median"
        if aggregate == "cv":
            run["cv_real"] = entry.get("real_time", 0.0)
            run["cv_cpu"] = entry.get("cpu_time", 0.0)
            continue
        scale = to_ns.get(entry.get("time_unit", "ns"), 1.0)
        run[aggregate + "_real"] = entry.get("real_time", 0.0) * scale
        run[aggregate + "_cpu"] = entry.get("cpu_time", 0.0) * scale
        if aggregate == "median":
            for key, value in entry.items():
                if key in ("items_per_second", "bytes_per_second", "allocs_per_op", "file_bytes",
                           "bare_ns", "adapter_ns", "overhead_ns", "overhead_percent",
                           "messages_per_second", "us_per_message", "max_messages_per_second",
                           "offered_messages_per_second", "lateness_p50_ms", "lateness_p99_ms",
                           "retries_measured", "load_average", "cpu_pressure_percent",
                           "bytes_per_run", "bytes", "peak_MB", "perform_us", "call_us",
                           "call_over_perform"):
                    run["counters"][key] = value
    for run in runs.values():  # cv when the library did not report it
        if "cv_real" not in run and run.get("mean_real"):
            run["cv_real"] = run.get("stddev_real", 0.0) / run["mean_real"]
    return {"context": data.get("context", {}), "runs": runs}


def find_run(program, pattern):
    """The run whose name matches `pattern` (a regular expression, searched)."""
    if program is None:
        return None
    for name, run in program["runs"].items():
        if re.search(pattern, name):
            return run
    return None


def median_ns(run):
    return None if run is None else run.get("median_real")


def read_text(path):
    try:
        with open(path) as handle:
            return handle.read()
    except OSError:
        return None


def parse_pgbench(text):
    """Committed, failed, retries and pgbench's own duration from its PostgreSQL 15 output."""
    if text is None:
        return None

    def number(pattern, cast=int):
        match = re.search(pattern, text)
        return cast(match.group(1)) if match else None

    processed = number(r"number of transactions actually processed: (\d+)")
    failed = number(r"number of failed transactions: (\d+)") or 0
    retries = number(r"total number of retries: (\d+)") or 0
    tps = number(r"tps = ([0-9.]+) \(without initial connection time\)", float)
    if processed is None or not tps:
        return None
    return {
        "committed": processed,
        "exhausted": failed,
        "attempts": processed + failed + retries,
        "wall_seconds": processed / tps,
    }


def load_contention(results):
    """Per strategy: the rounds' results, pgbench first."""
    rounds = {}
    for path in sorted(glob.glob(os.path.join(results, "pgbench-*.txt"))):
        parsed = parse_pgbench(read_text(path))
        extra_path = path[:-4] + ".json"
        if parsed and os.path.exists(extra_path):
            with open(extra_path) as handle:
                extra = json.load(handle)
            parsed["final_value"] = extra.get("final_value")
            parsed["wall_seconds_outside"] = extra.get("wall_seconds_outside")
        if parsed:
            rounds.setdefault("pgbench --max-tries", []).append(parsed)
    settings = {}
    for path in sorted(glob.glob(os.path.join(results, "contention-*.json"))):
        with open(path) as handle:
            for entry in json.load(handle):
                rounds.setdefault("rebound " + entry["strategy"], []).append(entry)
                settings = entry
    return rounds, settings


def round_trips_sentence(results):
    """The measured round trips per attempt (bench/round_trips.sh), or why there are none."""
    measured = None
    path = os.path.join(results, "round-trips.json")
    if os.path.exists(path):
        with open(path) as handle:
            measured = json.load(handle)
    if not measured:
        return "Round trips per attempt were not measured (bench/round_trips.sh needs strace)."
    return (f"Round trips per attempt, measured (`bench/round_trips.sh`: sendto system calls of "
            f"one client without conflicts, {measured['transactions']} transactions, strace): "
            f"rebound immediate {measured['rebound_immediate']:.2f}, pgbench "
            f"{measured['pgbench']:.2f}. With psqlODBC's `Protocol=7.4-1` (the test server's "
            f"connection string) an attempt is `BEGIN;SELECT`, `UPDATE`, `COMMIT` (docs/odbc.md).")


def median_of(rounds, key):
    values = [r[key] for r in rounds if r.get(key) is not None]
    return statistics.median(values) if values else None


# ---------------------------------------------------------------------------------------------
# Formatting


def fmt_ns(value):
    if value is None:
        return "–"
    if value >= 1e6:
        return f"{value / 1e6:,.2f} ms"
    if value >= 1e4:
        return f"{value / 1e3:,.1f} µs"
    return f"{value:,.1f} ns"


def fmt_ratio(value):
    return "–" if value is None else f"{value:.2f}x"


def fmt_cv(run):
    if run is None or run.get("cv_real") is None:
        return "–"
    return f"{100 * run['cv_real']:.1f}%"


def verdict(ok):
    if ok is None:
        return "not measured"
    return "**met**" if ok else "**missed**"


class Report:
    def __init__(self):
        self.lines = []
        self.goals = []  # (area, goal, figure, ok)

    def add(self, text=""):
        self.lines.append(text)

    def table(self, header, rows, numeric_from=1):
        """Columns from `numeric_from` on are right-aligned."""
        self.add("| " + " | ".join(header) + " |")
        self.add("|" + "|".join("---" if i < numeric_from else "---:" for i in range(len(header)))
                 + "|")
        for row in rows:
            self.add("| " + " | ".join(str(cell) for cell in row) + " |")
        self.add()

    def section(self, title, ran, target, prose):
        """Starts a section: its prose, or a note that `target` did not run. True when it ran."""
        self.add(f"## {title}")
        self.add()
        if not ran:
            self.add(f"Skipped: `{target}` was not built or did not run.")
            self.add()
            return False
        self.add(prose)
        return True

    def goal(self, area, goal, figure, ok):
        self.goals.append((area, goal, figure, ok))


# ---------------------------------------------------------------------------------------------
# Sections. The prose states what is measured and why; the numbers come from the results.

DECISION_CASES = [
    "rules64_hit",
    "rules64_hit_error_type",
    "rules64_hit_deep_error_type",
    "types50_hit_shared_head_tail",
    "types50_hit_deep",
    "types50_miss_every_prefix",
    "rules64_hit_server_delay",
    "rules64_miss",
    "rules64_with_budget",
    "jitter_none",
    "jitter_full",
    "jitter_equal",
    "jitter_decorrelated",
    "jitter_bounded",
    "jitter_proportional",
]

DECISION_PROSE = """\
`bench/decision_bench/` (target `rebound_decision_bench`) measures `rebound::decide()` and, in
the same binary, a hand-written function that implements the same policy inline. The ratio between
the two shows what the engine's generality costs.

### What is measured

Every case is registered twice: `<case>/rebound` calls `rebound::decide()` on a compiled `Policy`;
`<case>/baseline` calls a hand-written function for the same policy. The baseline uses:

- `switch` statements on the packed SQLSTATE, the SQLSTATE class, the vendor and native code, the
  category and the HTTP status, an if-chain for error types (with the same dotted-prefix walk)
  and `std::string_view::find` for messages, tried in list order, first hit wins;
- a constant table of base delays (the values `Policy` precomputes);
- the policy's one jitter kind written out, with the same range arithmetic, the same
  multiply-shift draw and the same `rebound::SeededRandomSource`, seeded alike;
- the same deadline check and, for `with_budget`, the same lock-free token budget algorithm.

Before running anything, the program runs 4000 decisions of every case on both sides and checks
they are identical: retry flag, reason, delay (so the same random draws), next attempt, category
and the matched rule text. If anything differs it prints the first difference and exits with
status 1 without running benchmarks. The baseline functions are `[[gnu::noipa]]` so the compiler
cannot specialise them for the constant error of a case, just as it cannot look inside
`decide()`, which is in another translation unit.

The loop: the attempt cycles 1, 2, 3, 4 (`max_attempts` 5), so every entry of the backoff table
is used and every decision in the retry cases retries; `elapsed` is 250 ms times the attempt and
the previous decision's delay is passed as `previous_delay`, as a retry loop would do; the
`Decision` goes through `benchmark::DoNotOptimize`. The loop costs the same on both sides;
`jitter_none/baseline` includes it and so is an upper bound for it.

Cases: `rules64_*` use a 64-rule policy (56 `retry_on`: SQLSTATEs, SQLSTATE classes, vendor native
codes, the transient categories, HTTP statuses, error types and message substrings; 8
`never_retry_on`), exponential backoff 50 ms x2 up to 2 s, full jitter, `deadline: 30s` and
`min_attempt_budget: 100ms`. `rules64_hit` is a MySQL lock wait timeout (matched by
`native:mysql:1205`), `rules64_hit_error_type` an unclassified `io.timeout.read` (matched by
`error:io.timeout` through the prefix walk), `rules64_hit_server_delay` is `rules64_hit` carrying a
server delay hint of 150 ms (decision step 6: the longer of the jittered delay and the hint, under
the default cap of 5m), `rules64_miss` a PostgreSQL division by zero (no rule:
`non_retryable`), `rules64_with_budget` is `rules64_hit` with `budget: {max_tokens: 100,
token_ratio: 1}` and `record_success()` after every decision, and `rules64_hit_deep_error_type` is
`io.timeout.read.socket.tls.handshake`, six levels below its rule. `types50_*` use a policy of 50
error-type rules with the 64-rule policy's schedule (`bench/decision_bench/error_type_cases.hpp`):
`hit_shared_head_tail` is one of twenty names of one length that share their first and last eight
bytes; `hit_deep` a name five levels below its rule; `miss_every_prefix` matches nothing although
every one of its dotted prefixes has the length of some rule, so that none is skipped. Their
baseline compares each prefix with every name in list order. `jitter_*` use a one-rule policy
(`retry_on: [category:deadlock]`, exponential 100 ms x2 up to 1 s) with each jitter kind.

Allocations: the program replaces the global `operator new`/`delete` with counting versions; each
benchmark reports the allocations its thread made inside the timed loop per iteration as
`allocs_per_op`.

Error types, and why their cost moved more than the baseline's from one machine to the next: the
lookup used to hash each dotted prefix from its start (length, first and last eight bytes, a mix
of the middle) and to confirm a hit on a name longer than 16 characters with `memcmp`, a call
into the C library whose implementation glibc picks by the CPU's features at load time. Both
the repeated hashing and that call scale differently across CPU models than the baseline's
inlined comparisons. Now one pass reads the type eight bytes at a time, finds the dots of each
word together, and has the hash of every dotted prefix at hand from the words before it; a
table entry is confirmed by its hash, its length and its first two words for names of up to 24
characters (the hash step is a bijection of its word, so nothing else can differ), and by
`memcmp` only beyond. No library function is called for a type of up to 24 characters.

The walk also stops early. The policy keeps, beside its table of rule names, a filter of two bits
per slot (512 slots of one byte, chosen by a hash's top nine bits) that says with one load, and
no shift or mask, whether a prefix may be a rule name and whether a rule name may continue it. The table is probed only for a
possible rule name, and the walk ends at the first prefix that no rule name continues: nothing
longer can match. `types50_miss_every_prefix` now ends at its first prefix (`svc`), and
`types50_hit_deep` below its rule, instead of looking up every prefix whose length some rule has.

`bench/decision_instructions.sh BUILD_DIR` counts the instructions of one decision of each case
on both sides under valgrind's cachegrind, a figure that other load does not move: the way to
compare two builds on a busy machine. The goals stay in nanoseconds.
"""

MODELS_PROSE = """\
The same binary runs models of well-known designs as further baselines. Each is checked first,
over the same 4000 decisions, to take the engine's retry/stop decisions (retry flag, reason, next
attempt, category); their delays come from their own generators by construction, so the check is
that every delay lies in the policy's full-jitter range `[0, base(attempt)]` (the mutex model
shares the engine's generator, so its delays must be identical).

- `jitter_full/model_clone_per_operation`: the google-cloud-cpp design. A client holds prototype
  retry and backoff policy objects (virtual classes) and clones both on the heap per operation
  (two allocations, amortised over the operation's four failures here); the backoff clone
  creates its `std::mt19937_64` on the operation's first failure, seeded from
  `std::random_device`, and draws with `std::uniform_int_distribution`.
- `jitter_full/model_clone_getentropy`: the same with `std::random_device("getentropy")`. On this
  machine libstdc++ 12's default `std::random_device` uses the RDSEED instruction, which is very
  slow inside this VM (measured separately: about 55 µs per construction and two draws with the
  default or `"rdseed"` source, 19 µs with `"rdrand"`, 7.5 µs with `"/dev/urandom"`, 0.9 µs with
  `"getentropy"`), so the first model is mostly the seeding; this one shows the design's cost
  where seeding is cheap (two clones, a `std::mt19937_64` initialised and twisted per operation).
- `jitter_full/model_std_rand`: the same policy with the delay drawn as
  `std::rand() % (base + 1)` (global generator behind glibc's lock).
- `rules64_with_budget/model_mutex_quota`: the hand-written 64-rule baseline with the retry
  budget's token count behind a `std::mutex` instead of compare-and-swap.

"model / rebound" above 1 means the engine is faster than the design it replaces. The mutex
model is the hand-written rules with a different budget, so read it against the hand-written
column: the difference is an uncontended lock and unlock against the two compare-and-swap loops
(one thread here; the 2-thread budget figures are under "Executor and handler lookup").
"""

WHERE_TIME_GOES = """\
### Where the time goes

`perf record` (cpu-clock sampling; the VM has no hardware counters) guided four rounds of changes.

First round, on the first version of the engine:

- **`std::optional` returns spilled through the stack.** The rule search returned
  `std::optional<std::size_t>` and the jitter clamp went through `Backoff::cap()`; GCC 12 builds
  these with an 8-byte and a 1-byte store and reads them back with a 16-byte load that cannot be
  forwarded, so each read stalled (in `jitter_none`, 84% of the samples sat right after those
  reloads). The search now returns plain integers in registers and the clamp reads a precomputed
  cap.
- **Message matchers** ran `std::string_view::find`: `memchr` for the first character, then a
  `memcmp` call per candidate (42% of the engine's samples in `rules64_miss`).
- **Error types** were binary-searched by text, one `memcmp` call per probe and per dotted prefix.

Second round (the 64-rule cases were at 45-58 ns, the one-rule cases at 2.5-4.7x):

- **Two searches per decision.** `never_retry_on` and `retry_on` were compiled separately and
  each binary-searched its SQLSTATE, class, native and error-type tables. Now one `RuleIndex`
  holds both lists: every entry carries the lowest matching index of each list, so each kind of
  key is probed once. SQLSTATEs (packed into one word, upper-cased with bit operations), classes
  and vendor native codes share one open-addressed hash table (one multiplication, at most a
  quarter full so that misses end at once); error types are hashed by length and first and last
  eight bytes, which also decide equality up to 16 characters, and dotted prefixes of a length no
  rule name has are not looked up.
- **Message search** now tests 16 start positions per step for the needle's first and last
  characters with SSE2 (W. Mula's method) and compares the middle only where both agree; a
  message rule that cannot beat a rule already found is not searched.
- **Calls that should have been inlined.** The libraries are built with `-fPIC`, and GCC does not
  inline a function with external linkage in position-independent code (it could be interposed):
  `perf` showed two-instruction helpers of the search as separate functions. The project now
  compiles with `-fno-semantic-interposition` under GCC.
- **The fixed costs** of every decision: the jitter interval of every retry is precomputed at
  compile time (only decorrelated jitter depends on the previous delay, and it is computed in
  integers), `uniform_between` is inline, and a policy whose rules are all categories is searched
  with one inline table read.

Third round (issue "decide() keeps its speed goals on any machine"):

- **The server delay hint brought the stall back.** Decision step 6 returned the combined delay as
  `std::optional<Duration>`, the same 8+1-byte store and 16-byte reload as in the first round:
  `jitter_none` went from 5.9 to 19.9 ns, 60% of its samples on the two reloads. The hint is now
  combined in place and only when the error carries one (7.1 ns on the same machine).
- **Long error-type names that share their ends shared a hash.** The key was the length and the
  first and last eight bytes, so twenty names such as `payments.<five letters>.timeout` fell into
  one probe chain, each probe a `memcmp`. The key now also mixes the bytes between, eight at a
  time (`types50_hit_shared_head_tail`: 80 to 47 ns of CPU time on a loaded machine).
- **Register saves on a path that calls nothing.** `decide()` saved and restored six registers
  on every decision, for the random draw and the budget's calls, even on paths that make neither.
  A policy whose decisions call nothing (category rules only, no draw, no retry_if, deadline,
  budget or route: `Policy::decides_without_calls`) now takes the same steps built without those
  calls, chosen inline in `decide()` (a shared entry would cost the saves back: a result returned
  through memory rules out a tail call under GCC 12). `jitter_none`: 110 to 82 instructions,
  5.7-5.9 to 4.0-4.2 ns (two builds in turns, load 1.8); the other cases take one more test.

Fourth round (the same issue; instructions per decision by `bench/decision_instructions.sh`, from
before the round to after it: `rules64_hit` 519 to 380, `rules64_hit_error_type` 566 to 404,
`rules64_miss` 577 to 364, `types50_hit_deep` 535 to 374, `types50_hit_shared_head_tail` 503 to
377, `jitter_full` 162 to 146):

- **The search is inlined into the decision.** The field tests, the SQLSTATE and native-code
  probes and the portable message search are defined in `engine/src/rule_index_find.hpp`, which
  `decide()` inlines: no call, no second set of saved registers, and the match stays in the
  decision's own frame. `decide()` itself is forced inline (GCC kept it out of line in a caller
  with several calls to it). Two parts stay out of line: the AVX2 message search, since code for
  AVX2 cannot be inlined into a function built for the default target, and the error-type walk,
  which inlined saved a few instructions in some cases and cost a few in others.
- **AVX2 message search.** On a CPU with AVX2 a message of 32 bytes or more is searched 32 start
  positions per step, in a function compiled for AVX2 by attribute (the library keeps the default
  target). `RuleIndex::compile` asks the CPU once and keeps the choice in the index, so a decision
  compares the message's size with one member. Shorter messages and other CPUs keep the SSE2
  search (`rules64_miss`: four message rules over 56 characters, 400 to 361 instructions).
- **The message search calls nothing:** no `memchr` or `memcmp`, so its values stay in registers.
- **The error-type walk** is one loop over whole words and the last, partial one, with the type's
  end as one more end of a prefix. A name's hash ends with a step over its partial word, which is
  empty when the name fills its last word, so a prefix that ends at a word boundary or a leading
  dot needs no case of its own. The filter keeps one byte per slot (one load answers both its
  questions), dots are found with one SSE2 compare per word, whole words are loaded directly, and
  a table entry is confirmed against the type's own words.
- **Smaller steps.** Lower case in a SQLSTATE is detected with one mask; each retry keeps its
  count of possible delays, so the jitter draw is one multiplication; step 7 adds elapsed time
  and delay as unsigned numbers (both are at least 0, so the sum cannot wrap) and compares the sum
  with `deadline - min_attempt_budget + 1`, computed when the policy is compiled (the largest
  unsigned value without a deadline, so no test of the deadline itself): six instructions fewer
  than the saturating add it replaced, on every case whose policy has a deadline (2026-11-28).

What is left: the named cases are now bound more by chains of dependent loads than by their
instruction count. `perf` puts most of `rules64_hit_error_type`'s walk samples on the load of the
filter byte, whose address is a hash of the prefix, and `rules64_hit`'s on the probe of the
SQLSTATE class. Between the builds before and after this round, run in turns on one machine,
`rules64_hit_error_type` went from 23.1-24.0 to 20.7-22.2 ns (instructions: -14%). Two changes
that shortened the walk's dependency chain or its memory round trip were measured slower and
dropped: the walk returning its match by value instead of updating the caller's, and dots found
with integer arithmetic instead of the SSE2 compare. Two more were measured and dropped
(2026-11-28, instructions per decision before and after): a copy of the whole decision compiled
for AVX2 and chosen once per policy, which let the message search be inlined on AVX2 machines
too (`rules64_hit` 380 to 375, but `rules64_hit_error_type` 404 to 422, `types50_hit_deep` 374 to
382, `types50_hit_shared_head_tail` 377 to 385, `jitter_full` 146 to 150: the wider code saved
more registers); and a test that skips the message search when no message rule comes before the
rule the keys found (`rules64_hit` -2, `rules64_hit_error_type` +4, `types50_hit_deep` +2: the
`never_retry_on` message rule of the 64-rule policy must be searched anyway). What remains per
decision of `rules64_hit` (callgrind): about 230 instructions in `decide()` itself with the
inlined search, 92 in the AVX2 search of its 96-character message for the one `never_retry_on`
message rule (three 32-position steps and no false candidate), 22 in the random draw and 28 in
the benchmark loop; of `rules64_hit_error_type`, about 200 in `decide()` and 145 in the walk over the
three prefixes of `io.timeout.read`.

How much the host moves these figures, measured on the 2-vCPU VM that produced this report:

- **One build, one session.** Three full runs on a busy host missed 21 ns in every run
  (slowest case 25.5, 23.3 and 22.8 ns, cv up to 28%); three on a quiet host an hour later met it
  in every run (slowest 20.6, 20.6 and 20.9 ns, cv mostly under 3%). Instruction counts, which
  load does not move, were the same.
- **Seconds apart, nothing else running in the VM.** Separate runs of the same binary read
  `rules64_hit` at 20.4 to 21 ns in some and 34 to 37 ns in others, while the hypervisor's steal
  counter took 0.05% of the CPU time. The time is most likely taken on the physical core itself,
  by whatever runs on its other hardware thread, which the guest cannot see; the report's steal
  line tells that case from a virtual CPU held off.
- **Why the decision suffers more than its baselines there (a hypothesis; the VM has no hardware
  counters):** it runs about 380 instructions in 21 ns, close to five a cycle, near the width of the
  core; a sibling thread takes issue slots the decision needs and the baselines, at a lower rate,
  leave idle.
- **Back to back, one build, a quiet guest.** Seven full runs one after another, 13 minutes each
  (2026-11-28), met and missed 21 ns in turn: met, missed (`rules64_hit` 22.5 ns, cv 20%), met
  (slowest 21.0 ns), missed (`rules64_hit_error_type` 24.5 ns against 20.5 in the first run, its
  baseline 8% slower than there), and, with the fastest repetition reported, met, missed
  (`types50_hit_shared_head_tail` 21.9 ns, cv 22%), met. The fastest repetition of the four
  slowest cases stayed at 20.1 to 20.5 ns in every one of those runs: the decision's own cost did
  not move, its margin to the goal is 2 to 4%, and the medians drift over it by up to 7% with the
  host. Steal stayed under 0.1% of the CPU time in every decision phase.
- **Another VM of the same kind, the next day.** Three full runs back to back at the build of
  this report (2026-11-29, load 0.82, 0.39 and 0.19 before them, steal 0.0% in every decision
  phase) missed 21 ns in all three: slowest medians 21.3 ns (`rules64_hit`), 21.9 ns
  (`rules64_hit`) and 22.6 ns (`rules64_hit_deep_error_type`, whose fastest repetition was
  17.4 ns). The fastest repetitions of the four slowest cases were 19.8 to 20.8 ns in the first
  two runs and 20.0 to 21.8 ns in the third, where the baselines were 2 to 7% slower too: on this
  VM the decision's own cost sits at the goal, not 2 to 4% under it.
- **Not the guest's own other CPU.** A tight integer loop pinned to the VM's second virtual CPU,
  the benchmark pinned to the first, left `rules64_hit` and `rules64_hit_error_type` within 4% of
  the quiet figures: the two virtual CPUs do not share a physical core, and what slows a run comes
  from outside the guest.
- **Not the stack's alignment.** With address randomisation off, the stack was moved in 16-byte
  steps over 1 KiB (the environment's size): at the 14 of 64 positions measured while the host was
  quiet, `rules64_hit_error_type` stayed within 4% of `rules64_hit`.

So a run is judged against its own baselines (interleaved, same process), and the goals are read
over three consecutive runs.
"""


# The decision goals: every named case within both, each in the same run as its baseline. They
# keep a margin below the 25 ns and 2.0x that must hold on a slower machine of the same kind.
DECISION_GOAL_NS = 21.0
DECISION_GOAL_RATIO = 1.7
# Cases reported beside the goals, not under them: they add a budget's atomic operations or a
# server's hint to `rules64_hit`.
DECISION_CASES_APART = ("rules64_with_budget", "rules64_hit_server_delay")
# A median this much above the fastest repetition marks a case the host disturbed.
DECISION_DISTURBED = 1.05


def fastest_cell(run):
    """The fastest repetition and how far the median is above it, flagged past DECISION_DISTURBED
    ("–" from results without the statistic)."""
    fastest = run.get("min_real")
    if not fastest:
        return "–"
    above = median_ns(run) / fastest
    flag = " **disturbed**" if above > DECISION_DISTURBED else ""
    return f"{fmt_ns(fastest)} (+{100 * (above - 1):.0f}%){flag}"


def margin(value, goal):
    """The margin of `value` to an upper `goal`, flagged when within 10% of it or over."""
    share = (goal - value) / goal
    text = f"{100 * share:+.0f}%"
    if share < 0:
        return text + " **over**"
    return text + (" **near**" if share < 0.10 else "")


def read_decision_instructions(path):
    """{case: (rebound, baseline)} instructions per decision from decision_instructions.sh."""
    counts = {}
    for line in (read_text(path) or "").splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[1].isdigit() and parts[2].isdigit():
            counts[parts[0]] = (int(parts[1]), int(parts[2]))
    return counts


def section_decision(report, program, instructions):
    if not report.section("Decision: `decide()` against hand-written rules",
                          program is not None, "rebound_decision_bench", DECISION_PROSE):
        return
    rows = []
    named = []  # (case, ns, ratio) of the cases the goals name
    allocs_ok = True
    for case in DECISION_CASES:
        engine = find_run(program, f"^{case}/rebound$")
        baseline = find_run(program, f"^{case}/baseline$")
        if engine is None or baseline is None:
            continue
        ns = median_ns(engine)
        ratio = ns / median_ns(baseline)
        allocs = (engine["counters"].get("allocs_per_op", 0), baseline["counters"].get("allocs_per_op", 0))
        allocs_ok = allocs_ok and allocs[0] == 0
        apart = case in DECISION_CASES_APART
        if not apart:
            named.append((case, ns, ratio))
        counted = instructions.get(case)
        rows.append([f"`{case}`" + (" (apart)" if apart else ""), fmt_ns(ns), fastest_cell(engine),
                     fmt_ns(median_ns(baseline)), fmt_ratio(ratio),
                     margin(ns, DECISION_GOAL_NS), margin(ratio, DECISION_GOAL_RATIO),
                     f"{counted[0]:,} / {counted[1]:,}" if counted else "-",
                     f"{allocs[0]:g} / {allocs[1]:g}", f"{fmt_cv(engine)} / {fmt_cv(baseline)}"])
    report.add("### Results")
    report.add()
    report.add("Median real time of the repetitions, which run in random order across the cases "
               "(`--benchmark_enable_random_interleaving`), so that a case and its baseline meet "
               "the machine's slow spells alike; ratio = rebound / baseline; cv = stddev / mean "
               f"over the repetitions. The margins are to the goals of {DECISION_GOAL_NS:g} ns and "
               f"{DECISION_GOAL_RATIO:g}x (positive: under the goal); **near** marks a case within "
               "10% of a goal, so that the next regression shows before it is a miss. Fastest: the "
               "quickest repetition of rebound's side and how far the median is above it; the "
               "machine only ever slows a repetition, so a median more than "
               f"{100 * (DECISION_DISTURBED - 1):.0f}% above it (**disturbed**) counts repetitions "
               "the host slowed, not a slower decision. The goals stay on the median. Cases marked "
               "(apart) are not under the goals: they add a budget or a server's hint to "
               "`rules64_hit`. Instructions: per decision, the benchmark loop's included, counted "
               "by `bench/decision_instructions.sh` under cachegrind (\"-\": valgrind was not "
               "installed).")
    report.add()
    report.table(["case", "rebound", "fastest rebound", "baseline", "ratio",
                  f"margin to {DECISION_GOAL_NS:g} ns",
                  f"margin to {DECISION_GOAL_RATIO:g}x", "instructions rebound / baseline",
                  "allocs/op rebound / baseline",
                  "cv rebound / baseline"], rows)
    if named:
        slowest = max(named, key=lambda item: item[1])
        widest = max(named, key=lambda item: item[2])
        report.goal("decision", f"median <= {DECISION_GOAL_NS:g} ns in every named case "
                    "(64-rule hit, error type, miss, the error-type cases, every jitter kind)",
                    f"slowest `{slowest[0]}` {fmt_ns(slowest[1])}, margin "
                    f"{margin(slowest[1], DECISION_GOAL_NS)}", slowest[1] <= DECISION_GOAL_NS)
        report.goal("decision", f"<= {DECISION_GOAL_RATIO:g}x the hand-written baseline in every "
                    "named case", f"widest `{widest[0]}` {fmt_ratio(widest[2])}, margin "
                    f"{margin(widest[2], DECISION_GOAL_RATIO)}", widest[2] <= DECISION_GOAL_RATIO)
    report.goal("decision", "0 allocations per decision",
                "0 in every case" if allocs_ok else "allocations seen", allocs_ok if rows else None)

    report.add("### Against models of well-known designs")
    report.add()
    report.add(MODELS_PROSE)
    rows = []
    for case, model in [("jitter_full", "model_clone_per_operation"),
                        ("jitter_full", "model_clone_getentropy"),
                        ("jitter_full", "model_std_rand"),
                        ("rules64_with_budget", "model_mutex_quota")]:
        engine = find_run(program, f"^{case}/rebound$")
        baseline = find_run(program, f"^{case}/baseline$")
        modelled = find_run(program, f"^{case}/{model}$")
        if engine is None or modelled is None or baseline is None:
            rows.append([f"`{case}/{model}`", "not run", "", "", "", "", "", ""])
            continue
        rows.append([f"`{case}/{model}`", fmt_ns(median_ns(modelled)), fmt_ns(median_ns(engine)),
                     fmt_ns(median_ns(baseline)),
                     fmt_ratio(median_ns(modelled) / median_ns(engine)),
                     fmt_ratio(median_ns(modelled) / median_ns(baseline)),
                     f"{modelled['counters'].get('allocs_per_op', 0):.2f}", fmt_cv(modelled)])
    report.table(["model", "model", "rebound", "hand-written", "model / rebound",
                  "model / hand-written", "allocs/op model", "cv model"], rows)
    report.add("No goal is set for these; they place the engine among the designs it replaces.")
    report.add()
    report.add(WHERE_TIME_GOES)


EXECUTOR_PROSE = """\
`bench/executor_bench.cpp` (target `rebound_executor_bench`): `executor_overhead/*` runs work that
succeeds on the first attempt directly and through `RetryExecutor::run` (`run_resolved`: with a
resolved handler and a policy without a deadline, so the run reads no clock;
`run_resolved_measured`: the same with `ExecutorOptions::measure_elapsed`, two steady-clock reads
for `RunResult::elapsed`, as every run under a policy with a deadline makes, whose cost
`steady_clock_now` shows; `run_resolved_coarse_clock`: `run_resolved_measured` with a
`CLOCK_MONOTONIC_COARSE` clock; `run_metrics_counters`: `run_resolved` with a `RetryMetrics`
listener without its duration histograms; `run_metrics_histograms_frozen_clock`: with them, under a
clock that answers one instant, so the difference is what recording the two histograms costs;
`run_metrics_histograms`: with them and the steady clock, two reads per run;
`run_by_handler`: through `dsl::make_resolver`); `handler_lookup/*` looks
up 1,000 handlers (names of 24 to 48 characters, bound exactly) in a scattered order through
`std::unordered_map<std::string, ...>` (the baseline, with the `std::string` built from the
`string_view`), `PolicySet::resolve`, `HandlerRegistry::resolve` (one reference count on the
policy), `HandlerRegistry::choose` (the same choice as views) and the whole resolver of
`dsl::make_resolver`; `decide_shared_policy/*` calls `decide()` on one policy shared by 1 and 2
threads (real time, items per second). On a 2-CPU machine with other load, the 2-thread figure
depends on whether a second CPU is actually free: read it with the load average above.
"""


def throughput_rows(program):
    """One row per run: name, median, fastest repetition, items per second (when counted), cv."""
    rows = []
    for name, run in program["runs"].items():
        items = run["counters"].get("items_per_second")
        rows.append([f"`{name}`", fmt_ns(median_ns(run)), fastest_cell(run),
                     "–" if items is None else f"{items / 1e6:,.1f} M/s", fmt_cv(run)])
    return rows


def fastest_ns(run):
    """The fastest repetition (the median from results without it): nanosecond goals are judged
    on it, as medians on a shared VM move with load the guest cannot see."""
    if run is None:
        return None
    return run.get("min_real") or median_ns(run)


def add_instructions(report, per, script, instructions):
    """The table of a bench/*_instructions.sh script (bench/cachegrind.sh), if it ran."""
    if instructions:
        report.add(f"Instructions per {per}, counted by `bench/{script}` under cachegrind "
                   "(other load does not move them):")
        report.add()
        report.add("```text\n" + instructions.strip() + "\n```")
        report.add()


def section_executor(report, program, instructions=None):
    if not report.section("Executor and handler lookup",
                          program is not None, "rebound_executor_bench", EXECUTOR_PROSE):
        return
    rows = throughput_rows(program)
    report.table(["benchmark", "median", "fastest", "items/s", "cv"], rows)
    direct = fastest_ns(find_run(program, r"^executor_overhead/direct_call$"))
    resolved = fastest_ns(find_run(program, r"^executor_overhead/run_resolved$"))
    if direct is not None and resolved is not None:
        report.goal("executor", "run_resolved - direct_call <= 30 ns (fastest repetitions)",
                    f"{resolved - direct:.1f} ns", resolved - direct <= 30.0)
    counters = fastest_ns(find_run(program, r"^executor_overhead/run_metrics_counters$"))
    histograms = fastest_ns(
        find_run(program, r"^executor_overhead/run_metrics_histograms_frozen_clock$"))
    if counters is not None and histograms is not None:
        report.goal("metrics", "the duration histograms add <= 5 ns to a run (fastest "
                    "repetitions, clock apart)", f"{histograms - counters:.1f} ns",
                    histograms - counters <= 5.0)
    add_instructions(report, "run", "executor_instructions.sh", instructions)
    unordered = median_ns(find_run(program, r"^handler_lookup/unordered_map_string$"))
    registry = median_ns(find_run(program, r"^handler_lookup/registry_resolve$"))
    if unordered and registry is not None:
        ratio = registry / unordered
        report.goal("handler lookup", "registry_resolve <= 20 ns and <= 0.5x unordered_map_string",
                    f"{registry:.1f} ns, {ratio:.2f}x", registry <= 20.0 and ratio <= 0.5)
    # Baselines that do not allocate per lookup (the program checked before timing that they
    # answer every handler as the registry does).
    for baseline, limit in (("unordered_map_transparent", 1.0), ("absl_flat_hash_map", 1.2)):
        other = median_ns(find_run(program, rf"^handler_lookup/{baseline}$"))
        if other and registry is not None:
            report.goal("handler lookup", f"registry_resolve <= {limit:.1f}x {baseline}",
                        f"{registry / other:.2f}x ({registry:.1f} / {other:.1f} ns)",
                        registry / other <= limit)
    for kind in ("no_budget", "with_budget"):
        one = find_run(program, rf"^decide_shared_policy/{kind}/.*threads:1$")
        two = find_run(program, rf"^decide_shared_policy/{kind}/.*threads:2$")
        if one and two and one["counters"].get("items_per_second"):
            scaling = two["counters"]["items_per_second"] / one["counters"]["items_per_second"]
            report.goal("shared policy", f"{kind}: 2 threads >= 1.8x the items/s of 1",
                        f"{scaling:.2f}x", scaling >= 1.8)


BREAKER_PROSE = """\
`bench/breaker_bench.cpp` (target `rebound_breaker_bench`) measures a closed circuit breaker's
bookkeeping: `acquire` plus the record of the outcome, every 16th call a failure (far below the
trip ratio), on one thread and on two threads sharing one breaker. The model is the usual design,
Resilience4j's sliding window: a mutex-guarded ring of the last 100 outcomes with running counts.
Both read the steady clock every 64th call, as threads of a service read one clock, so only the
bookkeeping is compared. The breaker's
design (per-thread stripes, a published verdict per stripe) is described in
`engine/src/circuit_breaker.cpp`.
"""


def section_breaker(report, program):
    if not report.section("Circuit breaker, closed state", program is not None,
                          "rebound_breaker_bench", BREAKER_PROSE):
        return
    rows = throughput_rows(program)
    report.table(["benchmark", "median (real time)", "items/s (all threads)", "cv"], rows)
    one = find_run(program, r"^BM_breaker_closed_admit_record/.*threads:1$")
    two = find_run(program, r"^BM_breaker_closed_admit_record/.*threads:2$")
    ring_two = find_run(program, r"^BM_mutex_ring_admit_record/.*threads:2$")
    if one is not None:
        report.goal("circuit breaker", "closed, admit + record, 1 thread <= 15 ns",
                    fmt_ns(median_ns(one)), median_ns(one) <= 15.0)
    items = lambda run: (run or {}).get("counters", {}).get("items_per_second")
    if items(one) and items(two):
        scaling = items(two) / items(one)
        report.goal("circuit breaker", "2 threads >= 1.8x the items/s of 1",
                    f"{scaling:.2f}x", scaling >= 1.8)
    if items(two) and items(ring_two):
        ratio = items(two) / items(ring_two)
        report.goal("circuit breaker", ">= 3x the mutex-guarded ring at 2 threads",
                    f"{ratio:.1f}x", ratio >= 3.0)


LATENCY_RECORDER_PROSE = """\
`bench/latency_recorder_bench.cpp` (target `rebound_latency_recorder_bench`) measures the latency
recorder of learned hedge delays (`engine/include/rebound/latency_recorder.hpp`): the record of one
attempt's latency, on one thread and on two threads sharing one recorder (the steady clock read
every 64th call), and the read of the 95th percentile of a window of 10 full buckets, for a
service's latencies (1ms plus an exponential of mean 4ms, 1% at 100ms) and for the worst case,
latencies over the whole range from 1us to 1h (every group of bins of every bucket used),
recorded in time order and, the slowest read, backwards (no bucket summed per group). The
goals are judged on the fastest of the repetitions (`min`), as other load on a shared machine only
ever slows a repetition down; `bytes` is `sizeof(LatencyRecorder)`, the memory of one handler's
recorder. Instructions per operation, a figure other load does not move:
`bench/latency_recorder_instructions.sh BUILD` (cachegrind, `--ops CASE COUNT` for a COUNT and 0;
cases `record`, `quantile_service`, `quantile_whole_range`, `quantile_whole_range_unsummed`).
"""


def min_ns(run, kind="real"):
    return None if run is None else run.get("min_" + kind)


def section_latency_recorder(report, program, instructions=None):
    if not report.section("Latency recorder of learned hedge delays", program is not None,
                          "rebound_latency_recorder_bench", LATENCY_RECORDER_PROSE):
        return
    rows = [[f"`{name}`", fmt_ns(median_ns(run)), fmt_ns(min_ns(run)), fmt_ns(min_ns(run, "cpu")),
             fmt_cv(run)] for name, run in program["runs"].items()]
    report.table(["benchmark", "median (real time)", "fastest (real time)", "fastest (CPU time)",
                  "cv"], rows)
    record = find_run(program, r"^BM_latency_record/.*threads:1$")
    if min_ns(record) is not None:
        report.goal("latency recorder", "record <= 20 ns (fastest repetition, 1 thread)",
                    fmt_ns(min_ns(record)), min_ns(record) <= 20.0)
    for case, what in (("service", "a service's latencies"),
                       ("whole_range", "the whole range"),
                       ("whole_range_unsummed", "the whole range, no bucket summed")):
        read = find_run(program, rf"^BM_latency_quantile_{case}$")
        if min_ns(read) is not None:
            report.goal("latency recorder", f"p95 read of a full window <= 1 µs, {what} "
                        "(fastest repetition)", fmt_ns(min_ns(read)), min_ns(read) <= 1000.0)
    add_instructions(report, "operation", "latency_recorder_instructions.sh", instructions)
    size = (record or {}).get("counters", {}).get("bytes")
    if size is not None:
        report.goal("latency recorder", "memory per handler <= 64 KiB", f"{size:,.0f} B",
                    size <= 64 * 1024)


PROTOCOLS_PROSE = """\
`bench/protocols_bench.cpp` (target `rebound_protocols_bench`) classifies HTTP responses with
`http::classify_response` (four response headers, `Retry-After` last: delay-seconds, each of the
three HTTP-date formats, and an unusable value), a transport failure of a POST with an
`Idempotency-Key`, and a gRPC `UNAVAILABLE` with a pushback trailer. The baseline is what
hand-written code often does for the date alone: `strptime` and `timegm`.
"""


def section_protocols(report, program):
    if not report.section("HTTP and gRPC classification", program is not None,
                          "rebound_protocols_bench", PROTOCOLS_PROSE):
        return
    rows = [[f"`{name}`", fmt_ns(median_ns(run)), fmt_cv(run)]
            for name, run in program["runs"].items()]
    report.table(["benchmark", "median", "cv"], rows)
    http = [median_ns(run) for name, run in program["runs"].items()
            if name.startswith("BM_http_") and "transport" not in name]
    if http and None not in http:
        worst = max(http)
        report.goal("HTTP classification", "<= 200 ns per response, Retry-After parsing included",
                    f"{worst:.1f} ns (slowest case)", worst <= 200.0)


ASYNC_PROSE = """\
`bench/async_bench.cpp` (target `rebound_async_bench`) measures the asynchronous executor of
`rebound::asio` (docs/async.md) beside a hand-written coroutine retry loop (await the work, and
after a failure wait on a `steady_timer`, five attempts at most) doing the same work, and the
blocking executor. The times are CPU time per run, as the runs are awaited on one thread:

- `async_overhead/*`: one run whose work succeeds at once, awaited from a coroutine with
  `asio::use_awaitable` (the executor's run is then one coroutine awaited in place):
  `executor_run_value` is `run_value`, which like the hand loop gives the value and throws
  the last attempt's error (the goal's case: the same work as the hand loop, the cheapest form);
  `executor_run` takes the policy by reference and fills the caller's `Result<int>` in place,
  `executor_run_returned` returns the `Result<int>`, and `executor_run_shared` takes the
  policy's `std::shared_ptr` (with `RunOptions`);
- `async_attempts/*`: four attempts (three failures), waits in virtual time for the executor and
  a sleeper that does not sleep for the blocking one.

The memory cases start 100,000 operations on one thread that each fail once and then wait an
hour, and divide the growth of the resident set by 100,000: the hand loop co_spawned with a
cancellation slot, the executor's run co_spawned the same way (under the policy's
`std::shared_ptr`, the goal's case, and through `run_value`), and, for comparison, runs started
with a callback and a stop token (a strand and a canceller each). The user's own coroutine frame
is not alive while a run waits. Each memory case runs alone in its own process, once: a process
reuses the pages an earlier case freed.
"""

ASYNC_GOAL_RATIO = 1.2
ASYNC_GOAL_BYTES = 1024.0


def section_async(report, timing, waiting):
    """`waiting`: the memory case name -> its program (one run each)."""
    if not report.section("Asynchronous executor (Asio)", timing is not None,
                          "rebound_async_bench", ASYNC_PROSE):
        return
    cpu = lambda run: None if run is None else run.get("median_cpu")
    hand = cpu(find_run(timing, r"^async_overhead/hand_loop$"))
    rows = []
    for name, run in timing["runs"].items():
        ratio = cpu(run) / hand if hand and name.startswith("async_overhead/") else None
        rows.append([f"`{name}`", fmt_ns(cpu(run)), fmt_ratio(ratio), fmt_cv(run)])
    report.table(["benchmark", "CPU time per run (median)", "x hand loop", "cv"], rows)
    executor = cpu(find_run(timing, r"^async_overhead/executor_run_value$"))
    if hand and executor is not None:
        ratio = executor / hand
        report.goal("async executor", f"a run that succeeds at once <= {ASYNC_GOAL_RATIO:g}x the "
                    "hand-written coroutine loop (`run_value`, which gives the value as the loop "
                    "does; the table gives the forms with a `Result<int>`)",
                    f"{ratio:.2f}x ({fmt_ns(executor)} / {fmt_ns(hand)}), margin "
                    f"{margin(ratio, ASYNC_GOAL_RATIO)}", ratio <= ASYNC_GOAL_RATIO)
    per_run = {}
    for case, program in waiting.items():
        run = find_run(program, rf"^async_waiting/{case}/")
        if run is not None and "bytes_per_run" in run["counters"]:
            per_run[case] = run["counters"]["bytes_per_run"]
    if not per_run:
        report.add("The memory cases did not run (see the notes).")
        report.add()
        report.goal("async executor", "memory per waiting run <= 1 KiB beyond the hand loop",
                    "did not run (see the notes)", False)
        return
    baseline = per_run.get("hand_loop")
    rows = [[f"`async_waiting/{case}`", f"{value:,.0f} B",
             "–" if baseline is None or case == "hand_loop" else f"{value - baseline:+,.0f} B"]
            for case, value in per_run.items()]
    report.table(["case", "RSS growth per waiting run", "beyond the hand loop"], rows)
    if baseline is not None and "executor_run" in per_run:
        beyond = per_run["executor_run"] - baseline
        report.goal("async executor", "memory per waiting run <= 1 KiB beyond the hand loop",
                    f"{beyond:,.0f} B ({per_run['executor_run']:,.0f} - {baseline:,.0f} B), "
                    f"margin {margin(beyond, ASYNC_GOAL_BYTES)}", beyond <= ASYNC_GOAL_BYTES)


HTTP_CLIENT_PROSE = """\
`bench/http_client_bench.cpp` (target `rebound_http_client_bench`) times one `HttpClient::call`
(a GET under a one-attempt policy) against `tests/support/flaky_http_server.py` on loopback:
on the connection the client keeps between calls (docs/protocols.md, "Connections"),
and on a new connection each time (a `Connection: close` request header, so the server closes it
after the answer: what every call paid before the client kept its handles). The server is
Python's `http.server`, with a thread per connection, so most of a call is the server's time;
the difference is the connection's setup and teardown. No goal is set.
"""


def section_http_client(report, program):
    if not report.section("HTTP client: kept connections", program is not None,
                          "rebound_http_client_bench", HTTP_CLIENT_PROSE):
        return
    kept = find_run(program, r"^BM_http_call_kept_connection")
    fresh = find_run(program, r"^BM_http_call_new_connection")
    rows = [[label, fmt_ns(median_ns(run)), fmt_cv(run)]
            for label, run in (("kept connection", kept), ("new connection", fresh)) if run]
    report.table(["call", "median", "cv"], rows)
    if kept and fresh and median_ns(kept) and median_ns(fresh):
        report.add(f"A call on the kept connection takes {fmt_ratio(median_ns(kept) / median_ns(fresh))} "
                   "the time of one on a new connection.")
        report.add()


ASYNC_HTTP_PROSE = """\
`bench/async_http_bench.cpp` (target `rebound_async_http_bench`) times sequential GETs through
`rebound::curl::AsyncHttpClient` on a kept loopback connection to
`tests/support/flaky_http_server.py`, one `io_context` on one thread: `call`, a run of the
asynchronous executor (policy resolution, the run's coroutine, the attempt's classification),
against `perform`, the bare transfer through the same curl multi driver, in the same run
(docs/protocols.md, "The libcurl adapter on Asio"). Goal (issue 15): the adapter's overhead on a
real loopback round trip is at most 2%. The two cases run one after the other, and the Python
server's speed moves by several percent between them, so the goal is judged on
`async_http/paired`: a transfer and a call in every iteration, alternating which goes first, each
timed on its own, so that any drift falls on both alike.
"""

ASYNC_HTTP_GOAL_RATIO = 1.02
HEDGED_CALL_GOAL_RATIO = 1.1


def section_async_http(report, program):
    if not report.section("HTTP on Asio: the adapter's overhead on a loopback round trip",
                          program is not None, "rebound_async_http_bench", ASYNC_HTTP_PROSE):
        return
    bare = find_run(program, r"^async_http/perform")
    call = find_run(program, r"^async_http/call")
    paired = find_run(program, r"^async_http/paired")
    rows = [[label, fmt_ns(median_ns(run)), fmt_cv(run)]
            for label, run in (("`perform` (bare transfer)", bare), ("`call` (a run)", call)) if run]
    report.table(["case", "median", "cv"], rows)
    counters = paired["counters"] if paired else {}
    if counters.get("call_over_perform") and counters.get("perform_us"):
        ratio = counters["call_over_perform"]
        report.add(f"Paired (`async_http/paired`, median of the repetitions): a call takes "
                   f"{fmt_ns(counters['call_us'] * 1e3)} where the transfer beside it takes "
                   f"{fmt_ns(counters['perform_us'] * 1e3)}: {fmt_ratio(ratio)}.")
        report.add()
        report.goal("HTTP on Asio", "call <= 1.02x the bare transfer",
                    f"{fmt_ratio(ratio)} paired ({fmt_ns(counters['call_us'] * 1e3)} against "
                    f"{fmt_ns(counters['perform_us'] * 1e3)}; apart: "
                    + (fmt_ratio(median_ns(call) / median_ns(bare)) if bare and call else "-")
                    + ")", ratio <= ASYNC_HTTP_GOAL_RATIO)
    elif bare and call and median_ns(bare) and median_ns(call):
        # Without the paired case the two separate medians stand in, and the report says so: they
        # carry the server's drift between the two cases, which the goal was not meant to judge.
        ratio = median_ns(call) / median_ns(bare)
        report.add("`async_http/paired` did not run (or reported no figures): the goal below is "
                   "judged on the two separate medians, which the server's drift between the "
                   "cases moves by several percent.")
        report.add()
        report.goal("HTTP on Asio", "call <= 1.02x the bare transfer",
                    f"{fmt_ratio(ratio)} unpaired ({fmt_ns(median_ns(call))} against "
                    f"{fmt_ns(median_ns(bare))}; cv {fmt_cv(call)} and {fmt_cv(bare)})",
                    ratio <= ASYNC_HTTP_GOAL_RATIO)
    hedged = find_run(program, r"^async_http/hedged_paired")
    counters = hedged["counters"] if hedged else {}
    if counters.get("hedged_over_plain"):
        ratio = counters["hedged_over_plain"]
        report.add(f"Hedged, never hedging (`async_http/hedged_paired`, median of the repetitions): "
                   f"a call under a policy whose hedge (1 s) is never due takes "
                   f"{fmt_ns(counters['hedged_us'] * 1e3)} where the same call under the same "
                   f"policy without `hedge` takes {fmt_ns(counters['plain_us'] * 1e3)}: "
                   f"{fmt_ratio(ratio)} (the hedged run's state, strand, timer and the attempt's "
                   f"own coroutine).")
        report.add()
        report.goal("HTTP on Asio", "a hedged call that never hedges <= 1.1x the same call "
                    "without `hedge`", f"{fmt_ratio(ratio)} paired", ratio <= HEDGED_CALL_GOAL_RATIO)


COMPILE_PROSE = """\
`bench/compile_bench.cpp` (target `rebound_compile_bench`) generates one service file (policies
with a realistic spread of fields and handler bindings), prints it as YAML and as the DSL with the
project's own emitters, and times `dsl::load_text` (parse, validate, compile to a `PolicySet`)
against yaml-cpp's bare `YAML::Load` of the same YAML bytes, the floor any YAML front end stands
on. Two sizes: about 1 MB and a small file.
"""


def section_compile(report, program):
    if not report.section("Compiling policy files against the bare parser",
                          program is not None, "rebound_compile_bench", COMPILE_PROSE):
        return
    rows = []
    for size in ("1MB", "Small"):
        bare = find_run(program, rf"^BM_YamlLoadBare_{size}")
        for kind in ("Yaml", "Dsl"):
            compiled = find_run(program, rf"^BM_Compile{kind}_{size}")
            if bare is None or compiled is None:
                continue
            rows.append([f"{kind.upper()} {size}", fmt_ns(median_ns(compiled)),
                         fmt_ns(median_ns(bare)), fmt_ratio(median_ns(compiled) / median_ns(bare)),
                         f"{fmt_cv(compiled)} / {fmt_cv(bare)}"])
    report.table(["file", "compile (load_text)", "bare YAML::Load of the YAML text", "ratio",
                  "cv compile / bare"], rows)
    report.add("No goal is set. For YAML the ratio says how much of the loading time is the "
               "project's own work beyond parsing YAML; the DSL does not go through yaml-cpp, so "
               "its row compares the two front ends on the same service.")
    report.add()


ODBC_PROSE = """\
`bench/odbc_bench.cpp` (target `rebound_odbc_bench`) runs one statement the server rejects per
iteration, on one reused statement handle: `odbc_failed_statement/bare` is `SQLExecDirect` plus
the `SQLGetDiagRec` loop into fixed buffers (the least any caller does to see the error);
`odbc_failed_statement/rebound_adapter` adds what the adapter does (owned diagnostic records,
classification with the shipped vendor maps, `decide()`); `odbc_adapter_only/classify_and_decide`
is the adapter's CPU part alone, without the round trip.
"""


def section_odbc(report, programs):
    goal = "{}: <= 1 µs and <= 5% more per failed statement"
    for database, program in programs.items():
        if program is None:
            # rebound_odbc_bench exits non-zero when it cannot connect: a failure, not a pass.
            report.goal("ODBC adapter", goal.format(database), "did not run (see the notes)",
                        False)
    if not report.section("ODBC adapter overhead",
                          any(programs.values()), "rebound_odbc_bench", ODBC_PROSE):
        return
    rows = []
    for database, program in programs.items():
        if program is None:
            continue
        bare = find_run(program, r"^odbc_failed_statement/bare")
        adapter = find_run(program, r"^odbc_failed_statement/rebound_adapter")
        cpu = find_run(program, r"^odbc_adapter_only/classify_and_decide")
        if bare is None or adapter is None:
            continue
        extra = median_ns(adapter) - median_ns(bare)
        share = extra / median_ns(bare)
        # The paired benchmark times both sides alternately in one loop: its difference is robust
        # to the load changes that make the two separate medians differ by more than the effect.
        paired = find_run(program, r"^odbc_failed_statement/paired")
        if paired is not None and "overhead_ns" in paired["counters"]:
            extra = paired["counters"]["overhead_ns"]
            share = paired["counters"]["overhead_percent"] / 100.0
        rows.append([database, fmt_ns(median_ns(bare)), fmt_ns(median_ns(adapter)), fmt_ns(extra),
                     f"{100 * share:+.1f}%", fmt_ns(median_ns(cpu)),
                     f"{fmt_cv(bare)} / {fmt_cv(adapter)}"])
        report.goal("ODBC adapter", goal.format(database),
                    f"{extra:+.0f} ns ({100 * share:+.1f}%)", extra <= 1000.0 and share <= 0.05)
    report.add("`difference` and `relative` come from `odbc_failed_statement/paired` when it ran "
               "(both sides alternately in one loop), else from the two separate medians.")
    report.add()
    report.table(["database", "bare", "adapter", "difference", "relative", "adapter CPU part",
                  "cv bare / adapter"], rows)


QUEUE_PROSE = """\
`bench/queue_bench.cpp` (target `rebound_queue_bench`, run by `bench/queue_bench.sh` against a
throw-away PostgreSQL 15 on loopback) drains ready messages with no-op handlers
(3 iterations, wall time from the moment the messages are committed until the last one is done,
the workers already connected; `messages_per_second` is the figure):

- `queue_naive_for_update/workers:N`: the baseline, the naive claim every worker serialises on
  (`SELECT ... ORDER BY due_at, id LIMIT 1 FOR UPDATE` on the oldest row, `UPDATE ... done`,
  `COMMIT`, prepared once per connection like the pool's statements), 1, 2 and 4 threads;
- the scaling runs drain 5,000 messages, the others 2,000;
- `queue_skip_locked/workers:N/grouped:0`: a `WorkerPool` (batch 10) whose handler keeps the
  default completion, one transaction per message (the completion, then the handler's writes,
  then the commit), the mode that gives handlers that write through the connection an
  exactly-once effect;
- `queue_skip_locked/workers:N/grouped:1`: the same with `Completion::Grouped`, for handlers whose
  effect is not a write through the connection: the completions of a claim go in one statement
  that commits with the next claim (docs/queue.md, "Grouped completion");
- `queue_retry_lateness/grouped:G`: messages whose first attempt fails and whose retry is due
  50 ms later. Each repetition measures the maximum load (a pool of 4 workers finishing 4,000
  messages that one producer enqueues one by one as fast as it can, the producer's cost
  included), empties and analyzes the table and runs a CHECKPOINT, then a pool with the default
  options (poll interval 100 ms, batch 10) takes messages arriving at half that rate for 10 s; how
  late each retry's attempt starts after its `due_at` is reported as p50/p99, with the 1-minute
  load average before the run and the CPU pressure during it (`/proc/pressure/cpu`, `some
  avg10`: the share of time some runnable task waited for a CPU). `grouped:1` (five repetitions,
  the goal) registers the no-op handler with `Completion::Grouped`, the mode for handlers that
  write nothing through the connection; `grouped:0` (three) keeps one transaction per attempt,
  whose three or four round trips per attempt each wait for a CPU on a busy machine
  (docs/queue.md, "Lateness of due retries: where a late retry's time went");
- `queue_table_size/done_rows:D/delete_done:X`: one worker drains 2,000 messages beside D done
  rows kept in the table, or with done messages deleted: the claim must cost the same with a
  million done rows (the partial indexes hold no done row).

The database runs on the same 2 CPUs as the workers, so adding workers adds no CPU: the scaling
shown is what skipping locked rows and fewer round trips buy, not parallel hardware.

A durable queue is measured durable: the figures and the goals below come from a server with
`fsync=on` and `synchronous_commit=on` (every commit waits for the disk). The same runs against a
server with `fsync=off`, which is not durable, follow as a second figure, for comparison only.
"""


def queue_durability(program):
    """`fsync=on, synchronous_commit=on (ext2/ext3)` from the run's context, as
    bench/queue_bench.sh records it; a run from before it recorded them had fsync=off."""
    context = program.get("context", {}) if program else {}
    if "postgresql_fsync" not in context:
        return "fsync=off (not recorded: a run from before the durable measure)"
    text = (f"fsync={context['postgresql_fsync']}, "
            f"synchronous_commit={context.get('postgresql_synchronous_commit', '?')}")
    if context.get("postgresql_filesystem"):
        text += f", data directory on {context['postgresql_filesystem']}"
    return text


def queue_rate_rows(program):
    def rate(pattern):
        run = find_run(program, pattern)
        return None if run is None else run["counters"].get("messages_per_second")

    rows = []
    for label, pattern in [("naive `FOR UPDATE`", r"^queue_naive_for_update/workers:{}/"),
                           ("`SKIP LOCKED`, one transaction per message",
                            r"^queue_skip_locked/workers:{}/grouped:0/"),
                           ("`SKIP LOCKED`, grouped completion",
                            r"^queue_skip_locked/workers:{}/grouped:1/")]:
        values = [rate(pattern.format(n)) for n in (1, 2, 4)]
        rows.append([label] + ["-" if v is None else f"{v:,.0f}" for v in values])
    return rows


def section_queue(report, program, fsync_off=None):
    goals = [("retry queue", "4 workers >= 3x the naive claim with 4 workers"),
             ("retry queue", ">= 2,000 messages/s"),
             ("retry queue", "p99 lateness of due retries <= 100 ms at half the maximum load")]
    if program is None:
        for area, goal in goals:
            report.goal(area, goal, "did not run (see the notes)", False)
    if not report.section("Retry queue on PostgreSQL", program is not None,
                          "rebound_queue_bench", QUEUE_PROSE):
        return

    def rate(pattern):
        run = find_run(program, pattern)
        return None if run is None else run["counters"].get("messages_per_second")

    report.add(f"Messages per second (medians of the iterations' wall time; server: "
               f"{queue_durability(program)}):")
    report.add()
    report.table(["claim", "1 worker", "2 workers", "4 workers"], queue_rate_rows(program))
    if fsync_off is not None:
        report.add(f"The same against a server that is not durable ({queue_durability(fsync_off)};"
                   " for comparison only, no goal is judged on it):")
        report.add()
        report.table(["claim", "1 worker", "2 workers", "4 workers"], queue_rate_rows(fsync_off))
    naive4 = rate(r"^queue_naive_for_update/workers:4/")
    grouped4 = rate(r"^queue_skip_locked/workers:4/grouped:1/")
    single4 = rate(r"^queue_skip_locked/workers:4/grouped:0/")
    if naive4 and grouped4:
        ratio = grouped4 / naive4
        single = f"; one transaction per message {single4 / naive4:.2f}x" if single4 else ""
        report.goal("retry queue", goals[0][1],
                    f"grouped completion {ratio:.2f}x ({grouped4:,.0f} / {naive4:,.0f} msg/s)"
                    + single, ratio >= 3.0)
    else:
        report.goal("retry queue", goals[0][1], "not measured", None)
    best = max([r for r in (grouped4, single4) if r] or [0])
    report.goal("retry queue", goals[1][1], f"{best:,.0f} messages/s with 4 workers",
                best >= 2000 if best else None)
    # The goal is measured with the no-op handler grouped (`grouped:1`); the default completion
    # (`grouped:0`) is shown beside it. A run without the argument predates the split: one
    # transaction per attempt.
    lateness_runs = []
    for completion, pattern in [("grouped", r"^queue_retry_lateness/grouped:1/"),
                                ("one transaction per attempt",
                                 r"^queue_retry_lateness/(grouped:0/|iterations)")]:
        run = find_run(program, pattern)
        if run is not None:
            lateness_runs.append(
                (completion, run.get("repetitions") or [run["counters"]]))
    if lateness_runs:
        report.add("Retry lateness at half the maximum load, each repetition (the goal is "
                   "measured with the no-op handler grouped):")
        report.add()
        report.table(["completion", "load average", "CPU pressure", "maximum (msg/s)",
                      "offered (msg/s)", "retries", "p50", "p99"],
                     [[completion, f"{r.get('load_average', 0):.1f}",
                       f"{r['cpu_pressure_percent']:.0f}%" if r.get("cpu_pressure_percent", -1) >= 0
                       else "-",
                       f"{r.get('max_messages_per_second', 0):,.0f}",
                       f"{r.get('offered_messages_per_second', 0):,.0f}",
                       f"{r.get('retries_measured', 0):,.0f}",
                       f"{r.get('lateness_p50_ms', 0):.1f} ms",
                       f"{r.get('lateness_p99_ms', 0):.1f} ms"]
                      for completion, repetitions in lateness_runs for r in repetitions])
    completion, repetitions = lateness_runs[0] if lateness_runs else ("", [])
    p99s = [r["lateness_p99_ms"] for r in repetitions if "lateness_p99_ms" in r]
    if p99s:
        worst = max(p99s)
        report.goal("retry queue", goals[2][1],
                    completion + ": p99 " + " / ".join(f"{p:.1f}" for p in p99s) + " ms"
                    + (f" in {len(p99s)} runs" if len(p99s) > 1 else ""), worst <= 100.0)
    else:
        report.goal("retry queue", goals[2][1], "not measured", None)
    size_rows = []
    for done_rows, delete in [(0, 0), (100000, 0), (1000000, 0), (1000000, 1)]:
        run = find_run(program, rf"^queue_table_size/done_rows:{done_rows}/delete_done:{delete}/")
        us = None if run is None else run["counters"].get("us_per_message")
        size_rows.append([f"{done_rows:,} done rows " + ("deleted" if delete else "kept"),
                          "-" if us is None else f"{us * 1e6:,.0f} µs"])
    report.add("Cost per message as the table grows (one worker, one transaction per message):")
    report.add()
    report.table(["table", "per message"], size_rows)


def section_lint(report, text):
    report.add("## Lint throughput")
    report.add()
    if text is None:
        report.add("Skipped: the `rebound` binary was not built.")
        report.add()
        return
    report.add("`bench/lint_throughput.sh BINARY 1000` generates 1,000 service files (three YAML "
               "files in four, one in the DSL; with `extends`, `defaults`, handler bindings and "
               "lint findings) and times `rebound lint --format json --fail-on never DIR` "
               "(the median of 10 runs with hyperfine when installed, else of 5 runs of bash "
               "`time`). Linting is sequential.")
    report.add()
    seconds = None
    match = re.search(r"median of \d+: ([0-9.]+)s", text)
    if match:
        seconds = float(match.group(1))
    report.add("```")
    report.add(text.strip())
    report.add("```")
    report.add()
    report.goal("lint", "1,000 files in under 2 s", "–" if seconds is None else f"{seconds:.2f} s",
                None if seconds is None else seconds < 2.0)


# (run name, what the size counts, the largest size within the limits, the limit that bounds it
# as docs/policy-format.md names it)
HOSTILE_LINT_SHAPES = [
    ("chain", "policies, each extending the one before", 32, "extends depth 32"),
    ("aliases", "policies aliasing one 900-item list", 111, "100,000 values"),
    ("wide_list", "items in one retry_on", 1000, "1,000 items of one list"),
    ("many_policies", "policies", 1000, "1,000 policies"),
]
HOSTILE_LINT_LIMIT_S = 2.0
HOSTILE_LINT_LIMIT_MB = 512.0
HOSTILE_LINT_SLOPE = 1.2  # a linear cost has slope 1 in log-log; a quadratic one 2


def hostile_lint_points(programs):
    """{shape: [(size, bytes, median seconds, peak MB)]}, sorted by size."""
    points = {}
    for shape, _, _, _ in HOSTILE_LINT_SHAPES:
        program = programs.get(shape)
        if not program:
            continue
        rows = []
        for name, run in program["runs"].items():
            match = re.fullmatch(rf"{shape}/(\d+)", name)
            if match and run.get("median_real") is not None:
                rows.append((int(match.group(1)), run["counters"].get("bytes", 0.0),
                             run["median_real"] / 1e9, run["counters"].get("peak_MB", 0.0)))
        points[shape] = sorted(rows)
    return points


def growth_slope(rows, limit):
    """The log-log slope of time against size over the sizes within `limit`, from the second
    smallest on (the smallest is mostly the fixed cost of a lint). The size counts what the work
    grows with: policies, or items, or (aliases) policies that each expand 900 values; the file's
    bytes would not do for aliases, which add values without adding bytes."""
    inside = [(size, seconds) for size, _, seconds, _ in rows if size <= limit and seconds > 0]
    if len(inside) < 3:
        return None
    (first_size, first_time), (last_size, last_time) = inside[1], inside[-1]
    return math.log(last_time / first_time) / math.log(last_size / first_size)


def hostile_lint_svg(points, path):
    """One log-log panel: lint time against file size, a line per shape, the 2 s goal dashed."""
    width, height, left, right, top, bottom = 640, 380, 70, 150, 40, 50
    plot_w, plot_h = width - left - right, height - top - bottom
    all_rows = [row for rows in points.values() for row in rows]
    x_lo = math.floor(math.log10(min(size for size, _, _, _ in all_rows)))
    x_hi = math.ceil(math.log10(max(size for size, _, _, _ in all_rows)))
    y_lo = math.floor(math.log10(min(t for _, _, t, _ in all_rows)))
    y_hi = max(math.ceil(math.log10(max(t for _, _, t, _ in all_rows))), 1)

    def x_of(value):
        return left + plot_w * (math.log10(value) - x_lo) / (x_hi - x_lo)

    def y_of(value):
        return top + plot_h * (1 - (math.log10(value) - y_lo) / (y_hi - y_lo))

    colors = ["#4c72b0", "#55a868", "#c44e52", "#8172b2"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{left + plot_w / 2}" y="20" text-anchor="middle" font-size="14">'
             'rebound lint: time against size (log-log)</text>',
             f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" '
             'stroke="black"/>']
    for exponent in range(x_lo, x_hi + 1):
        x = x_of(10 ** exponent)
        label = f"{10 ** exponent:,}"
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{top + plot_h}" '
                     'stroke="#dddddd"/>')
        parts.append(f'<text x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle">{label}</text>')
    for exponent in range(y_lo, y_hi + 1):
        y = y_of(10 ** exponent)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" '
                     'stroke="#dddddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">'
                     f'{10 ** exponent * 1000:g} ms</text>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{height - 10}" text-anchor="middle">'
                 'size: policies (wide_list: items in one list)</text>')
    goal_y = y_of(HOSTILE_LINT_LIMIT_S)
    parts.append(f'<line x1="{left}" y1="{goal_y:.1f}" x2="{left + plot_w}" y2="{goal_y:.1f}" '
                 'stroke="#c44e52" stroke-dasharray="5,4"/>')
    parts.append(f'<text x="{left + plot_w - 4}" y="{goal_y - 4:.1f}" text-anchor="end" '
                 'fill="#c44e52">goal: 2 s</text>')
    for index, (shape, rows) in enumerate(points.items()):
        color = colors[index % len(colors)]
        line = " ".join(f"{x_of(size):.1f},{y_of(t):.1f}" for size, _, t, _ in rows)
        parts.append(f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="2"/>')
        for size, _, t, _ in rows:
            parts.append(f'<circle cx="{x_of(size):.1f}" cy="{y_of(t):.1f}" r="3" fill="{color}"/>')
        legend_y = top + 16 + 18 * index
        parts.append(f'<line x1="{left + plot_w + 12}" y1="{legend_y - 4}" '
                     f'x2="{left + plot_w + 32}" y2="{legend_y - 4}" stroke="{color}" '
                     'stroke-width="2"/>')
        parts.append(f'<text x="{left + plot_w + 36}" y="{legend_y}">{shape}</text>')
    parts.append("</svg>")
    with open(path, "w") as handle:
        handle.write("\n".join(parts) + "\n")


def section_hostile_lint(report, programs, markdown_path):
    points = {shape: rows for shape, rows in hostile_lint_points(programs).items() if rows}
    if not report.section("Lint time against size for hostile files", bool(points),
                          "rebound_hostile_lint_bench", HOSTILE_LINT_PROSE):
        return
    rows, slowest_inside, slowest_past, worst_memory, steepest = [], 0.0, 0.0, 0.0, None
    for shape, what, limit, limit_name in HOSTILE_LINT_SHAPES:
        shape_rows = points.get(shape, [])
        for size, size_bytes, seconds, peak in shape_rows:
            past = size > limit
            rows.append([f"`{shape}`",
                         f"{size:,} {what}" + (f" (past the limit: {limit_name})" if past else ""),
                         f"{size_bytes / 1024:,.1f} KB", fmt_ns(seconds * 1e9),
                         f"{seconds * 1e6 / max(size_bytes / 1024, 1e-9):,.2f} µs",
                         f"{peak:,.0f} MB"])
            if past:
                slowest_past = max(slowest_past, seconds)
            else:
                slowest_inside = max(slowest_inside, seconds)
            worst_memory = max(worst_memory, peak)
        slope = growth_slope(shape_rows, limit)
        if slope is not None and (steepest is None or slope > steepest[0]):
            steepest = (slope, shape)
    report.table(["shape", "size", "file", "lint time", "per KB", "peak memory"], rows,
                 numeric_from=2)
    report.goal("lint", "a hostile file at or below the documented limits lints in at most 2 s",
                f"slowest {slowest_inside * 1e3:,.0f} ms (past the limits, where loading stops "
                f"early: {slowest_past * 1e3:,.0f} ms)", slowest_inside <= HOSTILE_LINT_LIMIT_S)
    report.goal("lint", "peak memory at most 512 MB for any of those files, past the limits too",
                f"{worst_memory:,.0f} MB", worst_memory <= HOSTILE_LINT_LIMIT_MB)
    if steepest is not None:
        report.goal("lint", "time grows linearly with size up to the limits (log-log slope at "
                    f"most {HOSTILE_LINT_SLOPE})", f"steepest {steepest[0]:.2f} (`{steepest[1]}`)",
                    steepest[0] <= HOSTILE_LINT_SLOPE)
    svg = os.path.join(os.path.dirname(markdown_path), "performance-hostile-lint.svg")
    hostile_lint_svg(points, svg)
    report.add(f"![lint time against size]({os.path.basename(svg)})")
    report.add()


HOSTILE_LINT_PROSE = """\
`bench/hostile_lint_bench.cpp` (target `rebound_hostile_lint_bench`) lints generated files of
the shapes that once made loading blow up, from about 1 KB to the documented limits
(docs/policy-format.md, "Limits") and past them, where loading stops early with RB112: `extends`
chains, one list anchored once and aliased into many policies, one wide `retry_on` list, and
many policies. Each shape runs in a process of its own, so its peak memory (the process's
`ru_maxrss`, a high-water mark) is its own. The growth is judged against what the work grows
with (policies; items; for aliases, policies that each expand the 900 aliased values, which adds
values but hardly any bytes): a log-log slope near 1 from the second size to the limit means
linear growth, a slope of 2 quadratic.
"""


CONTENTION_PROSE = """\
16 connections each run 200 read-modify-write transactions on one hot row at SERIALIZABLE on
PostgreSQL 15 (a throw-away server from `tests/odbc/database-server.sh`: `fsync=off`,
`deadlock_timeout=100ms`):

```sql
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT value FROM rebound_hot WHERE id = 1;
UPDATE rebound_hot SET value = <value + 1> WHERE id = 1;
COMMIT;
```

- **Baseline**: `pgbench --max-tries` with the same transaction (`bench/contention.pgbench.sql`,
  16 clients, 2 pgbench threads, simple protocol). pgbench retries serialization failures and
  deadlocks at once, with no delay. Attempts = processed + failed + "total number of retries";
  wall time = processed / tps, pgbench's own duration without the connection time.
- **rebound**: `bench/contention_bench.cpp` (target `rebound_contention_bench`), 16 threads, each
  with its own ODBC connection (psqlODBC), through `rebound::odbc::TransactionalRunner` with a
  policy that retries `serialization_failure` and `deadlock`: `immediate` (no backoff, the
  pgbench discipline through the runner), then exponential backoff with no jitter, full, equal
  and decorrelated jitter. Wall time runs from the moment all 16 threads are connected to the
  last commit. Every attempt rolls back before deciding, as the runner always does. The program
  checks that the row's final value equals the committed count (no lost update).

Both sides allow the same number of tries per transaction. Every strategy starts from a fresh
row. The table shows the median of the rounds; attempts and wall time are compared with the
pgbench baseline of the same run.
"""


def svg_chart(strategies, path, goal_attempts, goal_wall):
    """Two bar panels: attempts and wall time per strategy, with the goal lines."""
    panel_width, gap, top, bottom, left = 360, 60, 50, 90, 50
    width, height = left + 2 * panel_width + gap + 30, 360
    bar_area = height - top - bottom
    colors = ["#888888", "#b0b0b0", "#4c72b0", "#55a868", "#c44e52", "#8172b2", "#ccb974"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="14">'
             'Hot-row contention on PostgreSQL: 16 connections x 200 transactions, SERIALIZABLE'
             '</text>']
    for index, (key, title, goal, unit) in enumerate(
            [("attempts", "Total attempts", goal_attempts, ""),
             ("wall_seconds", "Wall time (s)", goal_wall, "s")]):
        x0 = left + index * (panel_width + gap)
        values = [s[key] for s in strategies]
        top_value = max(values + [goal or 0]) * 1.15 or 1
        parts.append(f'<text x="{x0 + panel_width / 2}" y="{top - 14}" text-anchor="middle" '
                     f'font-size="12">{title}</text>')
        parts.append(f'<line x1="{x0}" y1="{top + bar_area}" x2="{x0 + panel_width}" '
                     f'y2="{top + bar_area}" stroke="black"/>')
        slot = panel_width / len(strategies)
        for i, (strategy, value) in enumerate(zip(strategies, values)):
            bar_height = bar_area * value / top_value
            x = x0 + i * slot + slot * 0.15
            y = top + bar_area - bar_height
            label = f"{value:,.0f}" if key == "attempts" else f"{value:.2f}{unit}"
            parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{slot * 0.7:.1f}" '
                         f'height="{bar_height:.1f}" fill="{colors[i % len(colors)]}"/>')
            parts.append(f'<text x="{x + slot * 0.35:.1f}" y="{y - 4:.1f}" '
                         f'text-anchor="middle">{label}</text>')
            name = strategy["name"].replace("rebound ", "").replace(" --max-tries", "")
            parts.append(f'<text transform="translate({x + slot * 0.35:.1f},'
                         f'{top + bar_area + 12}) rotate(35)" font-size="10">{name}</text>')
        if goal:
            y = top + bar_area - bar_area * goal / top_value
            parts.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + panel_width}" y2="{y:.1f}" '
                         'stroke="#c44e52" stroke-dasharray="5,4"/>')
            text = "goal: 70% of pgbench" if key == "attempts" else "goal: 1.2x pgbench"
            parts.append(f'<text x="{x0 + panel_width - 2}" y="{y - 4:.1f}" text-anchor="end" '
                         f'fill="#c44e52">{text}</text>')
    parts.append("</svg>")
    with open(path, "w") as handle:
        handle.write("\n".join(parts) + "\n")


def section_contention(report, results, svg_path, markdown_path):
    report.add("## Real database contention")
    report.add()
    rounds, settings = load_contention(results)
    if not rounds:
        report.add("Skipped: PostgreSQL, pgbench or `rebound_contention_bench` was not available.")
        report.add()
        return
    report.add(CONTENTION_PROSE)
    if settings:
        report.add(f"Settings: {settings['threads']} threads x {settings['transactions_per_thread']} "
                   f"transactions, at most {settings['max_attempts']} attempts per transaction "
                   f"(pgbench `--max-tries` the same); backoff exponential from "
                   f"{settings['initial_us'] / 1000:g} ms, x2, capped at "
                   f"{settings['max_us'] / 1000:g} ms.")
        report.add()
    baseline = rounds.get("pgbench --max-tries")
    base_attempts = median_of(baseline, "attempts") if baseline else None
    base_wall = median_of(baseline, "wall_seconds") if baseline else None
    strategies, rows = [], []
    for name, entries in rounds.items():
        committed = median_of(entries, "committed")
        attempts = median_of(entries, "attempts")
        exhausted = median_of(entries, "exhausted")
        wall = median_of(entries, "wall_seconds")
        walls = ", ".join(f"{e['wall_seconds']:.2f}" for e in entries)
        attempt_list = ", ".join(f"{e['attempts']}" for e in entries)
        vs_attempts = "–" if not base_attempts else f"{100 * (attempts / base_attempts - 1):+.0f}%"
        vs_wall = "–" if not base_wall else fmt_ratio(wall / base_wall)
        rows.append([name, f"{committed:g}", f"{attempts:g}", f"{exhausted:g}", f"{wall:.2f} s",
                     vs_attempts, vs_wall, attempt_list, walls])
        strategies.append({"name": name, "attempts": attempts, "wall_seconds": wall,
                           "committed": committed, "exhausted": exhausted})
    report.table(["strategy", "committed", "attempts", "exhausted", "wall", "attempts vs pgbench",
                  "wall vs pgbench", "attempts per round", "wall per round (s)"], rows)
    total = (settings.get("threads", 16) * settings.get("transactions_per_thread", 200)
             if settings else 3200)
    if base_attempts and base_wall:
        best = None
        for s in strategies:
            if s["name"] not in ("rebound full", "rebound equal", "rebound decorrelated"):
                continue
            ok = (s["committed"] == total and s["attempts"] <= 0.7 * base_attempts
                  and s["wall_seconds"] <= 1.2 * base_wall)
            figure = (f"{s['name']}: {s['committed']:g}/{total} committed, attempts "
                      f"{100 * (s['attempts'] / base_attempts - 1):+.0f}%, wall "
                      f"{s['wall_seconds'] / base_wall:.2f}x")
            if best is None or (ok and not best[1]) or (
                    ok == best[1] and s["attempts"] < best[2]["attempts"]):
                best = (figure, ok, s)
        if best:
            report.goal("contention", "a jittered policy commits all with >= 30% fewer attempts "
                        "than pgbench at <= 1.2x its wall time", best[0], best[1])
        immediate = next((s for s in strategies if s["name"] == "rebound immediate"), None)
        if immediate:
            attempts_ratio = immediate["attempts"] / base_attempts
            wall_ratio = immediate["wall_seconds"] / base_wall
            report.goal("contention", "rebound immediate (like for like with pgbench): attempts "
                        "<= 1.15x and wall <= 1.3x pgbench's",
                        f"attempts {attempts_ratio:.2f}x, wall {wall_ratio:.2f}x",
                        attempts_ratio <= 1.15 and wall_ratio <= 1.3)
            report.add(
                "`rebound immediate` retries at once, as `pgbench --max-tries` does: the two rows "
                "compare like for like. " + round_trips_sentence(results) + " The runner still "
                "goes through ODBC per statement (a statement handle, parameters bound, the "
                "extended protocol), with 16 client threads in one process where pgbench "
                "multiplexes 16 connections over 2 threads.")
            report.add()
        svg_chart(strategies, svg_path, 0.7 * base_attempts, 1.2 * base_wall)
        relative = os.path.relpath(svg_path, os.path.dirname(markdown_path))
        report.add(f"![attempts and wall time per strategy]({relative})")
        report.add()
        report.add(CONTENTION_CAUSES_PROSE)


# Measured by hand (two series of three rounds with the machine to itself), not by bench/run.sh:
# kept as written when the report is regenerated.
CONTENTION_CAUSES_PROSE = """\
### Where the extra attempts and the wall time come from

Measured alone on 2026-11-29 at 20:10 UTC (every other build on the machine paused), three rounds
of the like-for-like pair: `pgbench -c 16 -j 2 -t 200 --max-tries=100 -f
bench/contention.pgbench.sql` then `rebound_contention_bench --threads 16 --transactions 200
--max-attempts 100 --strategies immediate` on a fresh row each, each under `/usr/bin/time`:

| | attempts (3 rounds) | median | wall (3 rounds) | median | client CPU per round |
|---|---|---:|---|---:|---:|
| pgbench `-j 2` | 19947, 20247, 21862 | 20247 | 1.67, 1.67, 1.79 s | 1.67 s | 0.66 s |
| rebound immediate, 16 threads | 25561, 27392, 25160 | 25561 (1.26x) | 3.15, 3.13, 3.03 s | 3.13 s (1.87x) | 2.13 s |

A second series, pgbench alone with 2 and with 16 threads, alternated three times:

| | attempts (3 rounds) | median | wall (3 rounds) | median | client CPU per round |
|---|---|---:|---|---:|---:|
| pgbench `-j 2` | 21226, 20153, 20462 | 20462 | 1.84, 1.87, 1.77 s | 1.84 s | 0.69 s |
| pgbench `-j 16` | 22177, 22639, 22341 | 22341 (1.09x) | 2.11, 2.14, 2.32 s | 2.14 s (1.16x) | 0.96 s |

Every commit ends every attempt whose snapshot is older than it, so attempts per commit grow with
the time a transaction holds its snapshot and its row lock. Two causes lengthen it here, both in
the client, not in the retry discipline:

- **One thread per connection.** The runner is blocking: 16 connections need 16 threads, which on 2
  cores wait for a CPU behind 16 server backends before they send the next statement. pgbench
  alone, moved from 2 threads to 16 (the second series), makes 9% more attempts and takes 1.16x
  the wall time: about a third of the attempts gap and a fifth of the wall-time gap.
- **CPU per attempt.** The client spends 83 us of CPU per attempt against pgbench's 33 us, on a
  machine where the server needs the same two cores. A `perf record -e cpu-clock -g` profile of a
  round: the kernel 43% (mostly `poll` and the context switches of 16 threads), psqlODBC, the
  unixODBC driver manager and libpq 26%, the C library 18% (malloc and free, string handling,
  `vfprintf`/`vfscanf` inside the driver), exception unwinding 5% (each failed attempt throws a
  `DatabaseError` that the runner catches), the C++ library 3% and Rebound's own code, the runner
  and the engine together, under 4%.

Round trips are not the cause: the runner needs 3 per attempt, pgbench 4 (above). So the goal
(attempts <= 1.15x, wall <= 1.3x) stays missed with a blocking ODBC client; reaching it needs
fewer client threads than connections (an asynchronous driver: libpq's pipeline mode, which ODBC
does not offer) and a driver that spends less CPU per statement, not a different retry loop.
"""


BROWNOUT_PROSE = """\
The brownout of [simulate.md](simulate.md#brownout), against a real server. `bench/brownout_server.py`
(Python, loopback only) serves C requests/s with a fixed pool of workers and a FIFO queue that
holds at most Q requests; when the queue is full it sheds at once with `503` and
`Retry-After: 1`. It keeps connections open between requests (HTTP/1.1 keep-alive). A queued request whose client has given up is still served: that is the work
a retry storm wastes. On command (`/control/brownout`) its capacity drops to 0.4 C for 10 s.
`bench/brownout_experiment.cpp` sends requests open-loop at 0.8 C (evenly spaced, handed to a pool
of client threads sized for the longest request) through `rebound::curl`'s `HttpClient`, each
request under one strategy: a handler of `simulation/policies/brownout.yaml`, the file that
`rebound simulate --scenario brownout` runs too (both load it through `brownout_builtins`), with
the policy's `attempt_timeout` as the client timeout. Each strategy gets a fresh server and a
fresh copy of its policy (its own budget and breaker: the driver is one client process). As in
the simulation, a request whose attempt the breaker refuses fails at once.

Per second it counts arrivals, attempts sent (attempts started, less those the breaker refused,
which send nothing) and goodput (requests that succeeded); the simulation's own
`summarize_brownout` turns the counts into the figures. **Peak amplification** is the largest,
over the seconds that start inside the brownout, of the attempts sent in that second divided by
the requests that arrived in it: the load on the server relative to what no retries would send,
in 1 s buckets (a retry counts in the second it is sent, not in the second its request arrived).
**Recovery** is the time from the capacity's return to the start of the first second from which
goodput stays within 5% of arrivals for 3 seconds.

The simulated columns are `rebound simulate`'s model run by the same program with the same
settings and policies; its queue has no bound and never sheds, so its backlog (and its no-retry
recovery) is longer than the real server's, whose queue caps the wait at Q / (0.4 C). So that
"never" means metastable there too, and not a backlog still draining when the run ends, the model
runs for at least 80 s (its chart shows the longer run).
"""

# The strategies whose goals the report checks: the policy file's recommended budget and breaker
# and both together. backoff.default-budget is there for comparison.
GUARDED_STRATEGIES = ("backoff.budget", "backoff.breaker", "backoff.budget.breaker")


def load_json(path):
    try:
        with open(path) as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def fmt_recovery(value):
    return "never (metastable)" if value is None else f"{value:.1f} s"


def recovered_within(value, limit):
    return value is not None and limit is not None and value <= limit


def fmt_policy(policy):
    """The strategy's policy in a few words, from the experiment's summary."""
    if not policy:
        return "–"
    attempts = policy["max_attempts"]
    parts = [f"{attempts} attempt" + ("s" if attempts != 1 else "")]
    first = policy.get("first_backoff_ms")
    if attempts > 1:
        parts.append("no wait" if not first else f"backoff from {first:g} ms")
    budget = policy.get("budget")
    if budget:
        parts.append(f"budget {budget['max_tokens']} tokens, ratio {budget['token_ratio']:g}")
    breaker = policy.get("breaker")
    if breaker:
        if "failure_ratio" in breaker:
            rule = (f"breaker {breaker['failure_ratio'] * 100:g}% of {breaker['minimum_calls']} "
                    f"calls in {breaker['window_ms'] / 1000:g} s")
        else:
            rule = f"breaker after {breaker['consecutive_failures']} failures in a row"
        if breaker.get("slow_call_ms") is not None:
            rule += f", slow call {breaker['slow_call_ms']:g} ms"
        rule += (f", open {breaker['open_for_ms'] / 1000:g} s (max "
                 f"{breaker['max_open_for_ms'] / 1000:g} s)")
        parts.append(rule)
    return "; ".join(parts)


def section_brownout(report, results, markdown_path):
    report.add("## Brownout, measured")
    report.add()
    summary = load_json(os.path.join(results, "brownout.json"))
    if not summary:
        report.add("Skipped: `rebound_brownout_experiment` was not built or did not run.")
        report.add()
        return
    report.add(BROWNOUT_PROSE)
    report.add(f"Settings: C = {summary['capacity']:g} requests/s, arrivals "
               f"{summary['arrival_rate']:g}/s, brownout to {summary['brownout_capacity']:g}/s "
               f"from {summary['brownout_start_ms'] / 1000:g} s for "
               f"{summary['brownout_ms'] / 1000:g} s, run {summary['run_ms'] / 1000:g} s per "
               f"strategy; queue Q = {summary['queue']}, {summary['workers']} server workers; "
               f"client timeout {summary['timeout_ms']} ms. The strategies:")
    report.add()
    simulated = {s["strategy"]: s for s in summary.get("simulated", [])}
    measured = {s["strategy"]: s for s in summary["strategies"]}
    report.table(["strategy", f"policy ({summary.get('policy_file', 'the policy file')})"],
                 [[s["strategy"], fmt_policy(s.get("policy"))] for s in summary["strategies"]],
                 numeric_from=2)
    rows = []
    for s in summary["strategies"]:
        sim = simulated.get(s["strategy"], {})
        whole = s.get("brownout_amplification")
        rows.append([s["strategy"], fmt_recovery(s["recovery_s"]),
                     fmt_recovery(sim.get("recovery_s")) if sim else "–",
                     f"{s['peak_amplification']:.2f}x",
                     f"{sim['peak_amplification']:.2f}x" if sim else "–",
                     "–" if whole is None else f"{whole:.2f}x",
                     s.get("brownout_retries", "–"),
                     s["largest_queue"], s["server_received"], s["server_shed"],
                     s.get("server_connections", "–"), s["late_arrivals"]])
    report.table(["strategy", "recovery, measured", "recovery, simulated",
                  "peak amplification, measured", "peak amplification, simulated",
                  "amplification over the brownout", "retries sent in the brownout",
                  "largest queue", "attempts received", "shed (503)", "connections",
                  "late arrivals"], rows)
    report.add("Amplification over the brownout is the attempts sent in its 10 s divided by the "
               "requests that arrived in them. The retries sent in the brownout bound the peak of "
               "any 1 s window, wherever it starts: at most 1 + retries / (arrivals per second), "
               "so the 1 s buckets cannot hide a burst that straddles two of them. Connections are "
               "those the server accepted: the client keeps its connections between calls "
               "(docs/protocols.md, \"Connections\") and opens a new one when an attempt timed out "
               "or when it has more calls in flight than open connections. Late arrivals "
               "are requests that waited more than 20 ms for a client thread (the open loop held "
               "when it is 0).")
    report.add()

    rate = summary["arrival_rate"]
    for name, s in measured.items():
        budget = (s.get("policy") or {}).get("budget")
        if not budget or (s.get("policy") or {}).get("breaker"):
            continue
        burst = budget["max_tokens"] / 2
        report.add(
            f"{name}: a budget lets about max_tokens / 2 = {burst:g} retries through before it "
            f"throttles, and they fall in the first second of the failures: at most 1 + "
            f"{burst:g} / {rate:g} = {1 + burst / rate:.2f}x for that second at {rate:g} "
            f"requests/s, then about 1 + token_ratio x the successes. Measured: "
            f"{s['peak_amplification']:.2f}x.")
        report.add()

    for name, s in measured.items():
        breaker = (s.get("policy") or {}).get("breaker")
        if not breaker:
            continue
        retries = s.get("brownout_retries")
        rule = (f"{breaker['window_ms'] / 1000:g} s" if "window_ms" in breaker
                else "consecutive calls")
        slow = breaker.get("slow_call_ms")
        opened = ("it opened before the first retry" if retries == 0
                  else f"it let {retries} retries through before it opened")
        report.add(
            f"{name}: {retries if retries is not None else '–'} retries sent in the brownout, "
            f"{s.get('brownout_amplification', 0):.2f}x the arrivals over it. Its breaker judges "
            f"the calls of the last {rule}" +
            ("" if slow is None else f", counting answers slower than {slow:g} ms as failures") +
            f"; {opened}. [scaling.md](scaling.md#a-breaker-for-an-overloaded-dependency) says "
            "why the window and the slow-call rule decide this.")
        report.add()

    baseline = measured.get("none", {}).get("recovery_s")
    limit = None if baseline is None else 1.5 * baseline
    guarded = [(name, measured[name]) for name in GUARDED_STRATEGIES if name in measured]
    for name, s in guarded:
        report.goal("brownout", f"{name}: peak amplification during the brownout <= 1.3x",
                    f"{s['peak_amplification']:.2f}x", s["peak_amplification"] <= 1.3)
        report.goal("brownout", f"{name}: recovery <= 1.5x the no-retry recovery",
                    f"{fmt_recovery(s['recovery_s'])} against {fmt_recovery(baseline)} "
                    "without retries", recovered_within(s["recovery_s"], limit))
    guard_peak = max((s["peak_amplification"] for _, s in guarded), default=None)
    for name in ("immediate", "backoff"):
        s = measured.get(name)
        if not s or guard_peak is None:
            continue
        worse_peak = s["peak_amplification"] >= 1.2 * guard_peak
        worse_recovery = not recovered_within(s["recovery_s"], limit)
        report.goal("brownout", f"{name} (no budget, no breaker): measurably worse on both, peak "
                    "amplification >= 1.2x the guarded strategies' and recovery beyond 1.5x the "
                    "no-retry recovery",
                    f"{s['peak_amplification']:.2f}x against at most {guard_peak:.2f}x; "
                    f"recovery {fmt_recovery(s['recovery_s'])}", worse_peak and worse_recovery)

    directory = os.path.dirname(markdown_path)
    for name, caption in (("brownout.svg", "goodput and offered load, measured"),
                          ("brownout-simulated.svg", "the same, simulated")):
        source = os.path.join(results, name)
        if os.path.exists(source):
            target = os.path.join(directory, "performance-" + name)
            shutil.copyfile(source, target)
            report.add(f"![{caption}]({os.path.basename(target)})")
            report.add()


HEDGING_PROSE = """\
Hedging against a dependency with a slow tail ([hedging.md](hedging.md#measured)).
`bench/brownout_server.py --latency` (Python, loopback only) answers each request 1 ms after it
read it, or 50 ms for 2% of them, drawn per request; `/control/slow` makes every request take
50 ms for a while (a dependency slow for everyone). `bench/hedging_experiment.cpp` sends GETs
open-loop (evenly spaced) through `rebound::curl::AsyncHttpClient::call_hedged` on one Asio
thread, under three strategies in turn, each with a fresh client, executor and latency
recorders and a policy of two attempts (`max_extra_load` 5%, `burst` 10): no hedge; a hedge
after the learned p95 (`within 2ms..250ms`, window 30 s, warmup 100); a hedge after 10 ms. Per
strategy: 600 requests to warm up, 5,000 counted ones, then the slowdown: 2 s as before, 4 s of
every request slow, 3 s after. `bench/hedging_experiment.py` runs it three times; each figure
is the median of the runs, and each ratio is taken within a run (no hedge and the learned hedge
side by side) before its median. Extra requests are the server's count of requests received
over the requests sent. Latencies include this shared VM's scheduling noise, which on a loaded
machine stretches the 1 ms answers to several ms at p90: the learned p95 then sits on that
noise, and its hedges spend their tokens on it.
"""


def section_hedging(report, results, markdown_path):
    runs = load_json(os.path.join(results, "hedging.json"))
    if not report.section("Hedging, measured", bool(runs), "rebound_hedging_experiment",
                          HEDGING_PROSE):
        return
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import hedging_experiment  # pylint: disable=import-outside-toplevel
    figures, goals = hedging_experiment.summarize(runs)
    report.table(["strategy", "p50", "p90", "p99", "p99.9", "hedges / request",
                  "extra requests (server)"],
                 [[name, *(f"{m:.1f} ms" for m in medians[:4]), f"{medians[4]:.1%}",
                   f"{medians[5]:.1%}"] for name, medians in figures])
    report.table(["goal", "median", "per run", "limit"],
                 [[name, f"{median:.2f}", ", ".join(f"{v:.2f}" for v in values), f"<= {limit}"]
                  for name, median, values, limit, _ in goals])
    for name, median, _, limit, ok in goals:
        report.goal("hedging", f"{name} <= {limit}", f"{median:.2f} (median of {len(runs)} runs)",
                    ok)
    source = os.path.join(results, "hedging.svg")
    if os.path.exists(source):
        target = os.path.join(os.path.dirname(os.path.abspath(markdown_path)),
                              "performance-hedging.svg")
        shutil.copyfile(source, target)
        report.add("![requests and hedges started during the slowdown](performance-hedging.svg)")
        report.add()


RUNNING_PROSE = """\
## Running one part

```sh
BUILD/bench/rebound_decision_bench --benchmark_filter='rules64_hit/'   # one case, every side
REBOUND_BENCH_DSN='Driver={PostgreSQL Unicode};...' BUILD/bench/rebound_odbc_bench
BUILD/bench/rebound_contention_bench --dsn '...' --strategies equal --transactions 50
REBOUND_BENCH_REPETITIONS=3 REBOUND_CONTENTION_ROUNDS=1 bench/run.sh BUILD   # a quicker full run
```

If Google Benchmark is not installed, configuring prints `rebound: Google Benchmark not found,
skipping the benchmarks in bench/` and builds everything else; `bench/run.sh` then skips the
missing programs and says so under "Machine and noise".
"""


# ---------------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--svg", required=True)
    args = parser.parse_args()

    with open(os.path.join(args.results, "machine.json")) as handle:
        machine = json.load(handle)
    commands = read_text(os.path.join(args.results, "commands.txt")) or ""
    notes = (read_text(os.path.join(args.results, "notes.txt")) or "").strip()
    program = lambda name: load_benchmarks(os.path.join(args.results, name + ".json"))
    decision = program("rebound_decision_bench")
    executor = program("rebound_executor_bench")
    compile_ = program("rebound_compile_bench")
    protocols = program("rebound_protocols_bench")
    breaker = program("rebound_breaker_bench")
    odbc = {"SQLite": program("rebound_odbc_bench"),
            "PostgreSQL": program("rebound_odbc_bench-postgresql")}

    body = Report()
    section_decision(body, decision, read_decision_instructions(
        os.path.join(args.results, "decision_instructions.txt")))
    section_executor(body, executor,
                     read_text(os.path.join(args.results, "executor_instructions.txt")))
    section_breaker(body, breaker)
    section_async(body, program("rebound_async_bench"),
                  {case: program("rebound_async_bench-" + case)
                   for case in ("hand_loop", "executor_run", "executor_run_value",
                                "executor_run_stop_token")})
    section_compile(body, compile_)
    section_latency_recorder(body, program("rebound_latency_recorder_bench"))
    section_protocols(body, protocols)
    section_http_client(body, program("rebound_http_client_bench"))
    section_async_http(body, program("rebound_async_http_bench"))
    section_odbc(body, odbc)
    section_lint(body, read_text(os.path.join(args.results, "lint.txt")))
    section_hostile_lint(body, {shape: program("rebound_hostile_lint_bench-" + shape)
                                for shape, _, _, _ in HOSTILE_LINT_SHAPES}, args.output)
    section_contention(body, args.results, args.svg, args.output)
    section_queue(body, program("queue"), program("queue-fsync-off"))
    section_brownout(body, args.results, args.output)
    section_hedging(body, args.results, args.output)

    head = Report()
    head.add("# Performance")
    head.add()
    head.add("Generated by `bench/run.sh` (raw results in the build directory, this file by "
             f"`bench/report.py`) on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC. Every "
             "benchmark runs next to its baselines in the same run. Do not edit by hand: change "
             "the prose in `bench/report.py` and run `bench/run.sh` again.")
    head.add()
    head.add("## Goals")
    head.add()
    head.table(["area", "goal", "measured", "status"],
               [[a, g, f, verdict(ok)] for a, g, f, ok in body.goals], numeric_from=4)
    head.add("## Machine and noise")
    head.add()
    head.add(f"- CPU: `{machine.get('cpu_model')}`, {machine.get('cpus')} CPUs "
             f"({machine.get('threads_per_core')} thread(s) per core); kernel "
             f"{machine.get('kernel')}.")
    head.add(f"- Compiler: {machine.get('compiler')}; build type `{machine.get('build_type')}` "
             f"(`{machine.get('cxx_flags')}`), no `-march`, no LTO.")
    context = (decision or executor or compile_ or {}).get("context", {}) if (decision or executor or compile_) else {}
    if context:
        head.add(f"- Google Benchmark {machine.get('benchmark_version', '?')} "
                 f"(library built as {context.get('library_build_type', '?')}: Debian's "
                 f"`libbenchmark-dev` is built without `NDEBUG`, which affects the framework "
                 f"between runs, not the timed loops); {context.get('mhz_per_cpu', '?')} MHz "
                 f"reported.")
    head.add(f"- Google Benchmark programs: {machine.get('repetitions')} repetitions of at least "
             f"{machine.get('min_time')} s each; tables show medians. Contention: "
             f"{machine.get('contention_rounds')} rounds, medians. Fewer repetitions than a "
             f"quiet lab would use, to keep the whole run under about 10 minutes.")
    samples = machine.get("load_by_phase", [])
    phases = [sample for sample in samples if sample[0] != "start"]
    if phases:
        head.add("- 1-minute load average after each phase: " + ", ".join(
            f"{sample[0]} {sample[1]}" for sample in phases) + ". The contention experiment "
            "itself runs 16 client threads and 16 PostgreSQL backends, which raises the load "
            "average it is followed by.")
    steal = steal_by_phase(samples)
    if steal:
        head.add("- CPU time the hypervisor gave to other guests (steal) in each phase: " +
                 ", ".join(f"{phase} {share:.1f}%" for phase, share in steal) + ". A busy host "
                 "shows here when it holds the virtual CPUs off; another guest on the same "
                 "physical core (the other hardware thread) does not, and shows only as slower "
                 "baselines.")
    before = " / ".join(machine.get("load_before", []))
    after = " / ".join(machine.get("load_after", []))
    head.add(f"- Load average (1 / 5 / 15 min) before the run: {before}; after: {after} "
             f"({machine.get('cpus')} CPUs). Load from other processes slows real time; the "
             "coefficients of variation (cv) in the tables show how much each benchmark moved.")
    cvs = []
    for prog in [decision, executor, compile_] + list(odbc.values()):
        if prog:
            cvs += [(run.get("cv_real"), name) for name, run in prog["runs"].items()
                    if run.get("cv_real") is not None]
    if cvs:
        cvs.sort()
        values = [v for v, _ in cvs]
        head.add(f"- cv over all {len(values)} benchmarks: median "
                 f"{100 * statistics.median(values):.1f}%, largest {100 * values[-1]:.1f}% "
                 f"(`{cvs[-1][1]}`).")
    if notes:
        for line in notes.splitlines():
            head.add(f"- Note: {line}")
    head.add()
    head.add("## Commands")
    head.add()
    head.add("```sh")
    build = machine.get("build_dir", "BUILD_DIR")
    head.add(f"cmake -S . -B {build} -G Ninja -DCMAKE_BUILD_TYPE=Release -DREBOUND_BUILD_TESTS=OFF "
             "-DREBOUND_BUILD_EXAMPLES=OFF")
    head.add(f"cmake --build {build} -j2 --target rebound_decision_bench rebound_compile_bench \\")
    head.add("    rebound_executor_bench rebound_odbc_bench rebound_contention_bench rebound_cli \\")
    head.add("    rebound_protocols_bench rebound_breaker_bench rebound_queue_bench \\")
    head.add("    rebound_http_client_bench rebound_async_http_bench rebound_async_bench \\")
    head.add("    rebound_hostile_lint_bench rebound_brownout_experiment rebound_hedging_experiment")
    head.add(f"bench/run.sh {build}")
    head.add("# which ran:")
    head.add(commands.strip())
    head.add("```")
    head.add()

    body.add(RUNNING_PROSE)

    with open(args.output, "w") as handle:
        handle.write("\n".join(head.lines + body.lines).rstrip() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
