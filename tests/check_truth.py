#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_truth.py: sledtrace's times against the times a program measured itself.

The selftimed fixture times each traced call caller-side (clock_gettime
around it, from code without sleds) and prints per function
`REAL f total_ns N self_ns S calls C`, the traced calls made inside f's
calls (`INNER f g n`), the full cost of one traced call's probes as it
measured it (`PROBE pair_ns P`: calls of a traced function against its
uninstrumented twin, least of 41 blocks each) and the cost of a clock reading
(`CLOCK read_ns K`).  This runs it untraced, then under `sledtrace record`
in one mode, and compares `report --format=json` with what the same run
measured: load stretches both alike, so no retry and no constant tuned to
one machine's trap cost.

Model (per function f of the traced run; every figure is measured):
  P        full cost of one probed call's entry and exit hits (PROBE
           pair_ns of this run, or of a run with every probe when a budget
           left probe_ref unprobed);
  I(f)     probed calls inside f's calls, f's own included (INNER lines,
           for the functions the report shows: the probed ones);
  U(f)     the untraced time of f's calls = REAL(f) - I(f) x P: what f
           took less the probes it ran into; likewise U_self(f) = REAL
           self(f) - calls(f) x P when f is probed;
  noise(f) REL x U(f) + 2 x K per timed call + WARM(f) + the off-CPU
           time the trace saw inside f and in the self time of f's callers
           (a preemption due during one of f's probe hits happens on the
           way back to user: outside f's timestamps, inside REAL(f)).
  Warm-up: the fixture calls every function once per thread, doing
  nothing, before the timed calls, and prints their durations (WARM f):
  the one-time cost of a sled's first hit (its rewrite, a thread's first
  uprobe; up to ms) is in them, so REAL(f) above stands for the timed and
  warm-up calls together, and WARM(f) is allowed as noise.
Checks:
  counts   every function the report shows has exactly the fixture's
           count; a function it does not show must be one a budget left
           unprobed (stats budget_unprobed > 0), never a function that ran
           probed;
  raw      timestamps are taken inside the probes: REAL(f) - calls(f) x P
           - noise <= raw total(f) <= REAL(f) + noise;
  comp     |compensated total - U(f)| <= UNCERTAINTY x I(f) x P + noise
           (and self, truth REAL less the time of f's probed callees
           (EDGE lines), the same way with f's own calls and its direct
           probed callees' in place of I(f)): compensation takes out some of each hit's cost,
           never more than all of it (UNCERTAINTY = 1: the run's
           calibration sees only the part of a hit between its
           timestamps; the rest stays in the callers);
           where descendants were probed, compensated is closer to U than
           raw is;
  say      every report format says which times it shows;
  label    where rows carry `probe_ns`: a row whose compensated error,
           less the noise (and below U, less the raw figure's own
           shortfall), is over 10% of U(f) carries probe_ns >= half of it;
  budget   a function probed whose callees were all left unprobed has its
           compensated total within 10% of U(f) (+ noise); the probes kept
           cost (probed calls x P) at most the budget (+ NOISE_PTS) of the
           untraced program's median wall time.

Usage: check_truth.py --sledtrace PATH --mode rewrite|mixed|threads|budget FIXTURE
Python 3 standard library only.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

REL = 0.05          # relative noise allowed on every comparison
UNCERTAINTY = 1.0   # share of the probes' cost compensation may leave or overtake
BUDGET_TOL = 0.10   # a budget-kept function with unprobed callees: within 10%
NOISE_PTS = 0.05    # budget slowdown: percentage points of noise
UNTRACED_RUNS = 5
THREADS = "3"
BUDGET = "5%"

failures = []


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check(ok, msg):
    if not ok:
        failures.append(msg)
        print("  FAIL: " + msg)


def parse(out):
    """The fixture's output: counts, REAL rows, INNER table, P, K."""
    counts, real, inner = {}, {}, {}
    for m in re.finditer(r"^COUNT \d+ (\S+) (\d+)$", out, re.M):
        counts[m[1]] = counts.get(m[1], 0) + int(m[2])
    for m in re.finditer(r"^REAL (\S+) total_ns (\d+) self_ns (\d+) calls (\d+)$", out, re.M):
        real[m[1]] = {"total": int(m[2]), "self": int(m[3]), "calls": int(m[4])}
    for m in re.finditer(r"^WARM (\S+) total_ns (\d+)$", out, re.M):
        real[m[1]]["warm"] = int(m[2])
    edge = {}
    for m in re.finditer(r"^EDGE (\S+) (\S+) total_ns (\d+)$", out, re.M):
        edge.setdefault(m[1], {})[m[2]] = int(m[3])
    for m in re.finditer(r"^INNER (\S+) (\S+) (\d+)$", out, re.M):
        inner.setdefault(m[1], {})[m[2]] = int(m[3])
    pair = re.search(r"^PROBE pair_ns (-?\d+) ", out, re.M)
    clock = re.search(r"^CLOCK read_ns (\d+)$", out, re.M)
    if not (counts and real and pair and clock):
        fail("fixture output lacks COUNT/REAL/PROBE/CLOCK lines:\n" + out)
    return {"counts": counts, "real": real, "inner": inner, "edge": edge, "pair": max(0, int(pair[1])),
            "clock": int(clock[1])}


def untraced(fixture, args):
    """UNTRACED_RUNS plain runs: their outputs and the median wall time."""
    runs, walls = [], []
    for _ in range(UNTRACED_RUNS):
        t0 = time.monotonic()
        out = subprocess.run([fixture] + args, capture_output=True, text=True, timeout=60)
        walls.append(time.monotonic() - t0)
        if out.returncode:
            fail("untraced run: %s" % out.stderr.strip())
        runs.append(parse(out.stdout))
    return runs, statistics.median(walls) * 1e9


def record(st, opts, trace, fixture, args):
    run = subprocess.run([st, "record", "-q", "-o", trace] + opts + ["--", fixture] + args,
                         capture_output=True, text=True, timeout=300)
    if run.returncode:
        fail("record %s: %s" % (" ".join(opts), run.stderr.strip()))
    return parse(run.stdout)


def report(st, trace, times):
    out = subprocess.run([st, "report", "--times=" + times, "--format=json", trace],
                         capture_output=True, text=True, timeout=60)
    if out.returncode:
        fail("report --times=%s: %s" % (times, out.stderr.strip()))
    js = json.loads(out.stdout)
    if js.get("times") != times:
        fail("JSON says times=%r, asked %s" % (js.get("times"), times))
    for fmt, say in (("table", "\ntimes: %s"), ("tsv", " times=%s\n"), ("csv", " times=%s\n")):
        text = subprocess.run([st, "report", "--times=" + times, "--format=" + fmt, trace],
                              capture_output=True, text=True, timeout=60).stdout
        check(say % times in text, "report --format=%s does not say times=%s" % (fmt, times))
    return {r["function"]: r for r in js["rows"]}, js["stats"]


def check_counts(fx, rows, stats):
    """Exact counts for every row; absent only when a budget left it out."""
    for f, n in sorted(fx["counts"].items()):
        if f in rows:
            check(rows[f]["calls"] == n, "%s: report counts %d calls, fixture %d"
                  % (f, rows[f]["calls"], n))
        else:
            check(stats.get("budget_unprobed", 0) > 0,
                  "%s (%d calls) missing from the report, and no budget left anything unprobed"
                  % (f, n))
    for f in rows:
        check(f in fx["counts"], "%s in the report, never called" % f)
    absent = [f for f in fx["counts"] if f not in rows]
    check(len(absent) <= stats.get("budget_unprobed", 0),
          "%d functions missing from the report (%s), the budget left %d unprobed"
          % (len(absent), " ".join(absent), stats.get("budget_unprobed", 0)))


def probed_inner(fx, f, rows):
    return sum(n for g, n in fx["inner"].get(f, {}).items() if g in rows)


def children(fx, f, rows):
    """Probed calls made directly by f in the trace."""
    return sum(fx["inner"][f][g] for g in direct(fx, f, rows))


def direct(fx, f, rows):
    """The probed functions that f calls directly in the trace: those
    inside f's calls that no other probed function inside f holds."""
    inner = fx["inner"].get(f, {})
    return [g for g in inner if g != f and g in rows and all(
        g not in fx["inner"].get(h, {}) for h in inner if h not in (f, g) and h in rows)]


def wait_noise(fx, f, raw):
    """Off-CPU time that may sit in REAL(f) and not in the trace's f, or
    the reverse: what the trace saw inside f's calls, and in the self
    time of its callers, where a preemption due at the return from one of
    f's probe hits lands (the kernel preempts on the way back to user)."""
    def wait(h, total, cpu):
        return max(0, raw[h][total] - raw[h].get(cpu, raw[h][total])) if h in raw else 0
    callers = [h for h in fx["inner"] if f in direct(fx, h, raw)]
    return wait(f, "total_ns", "cpu_total_ns") + sum(
        wait(h, "self_ns", "cpu_self_ns") for h in callers)


def compare(fx, pair, p_in, comp, raw, mode):
    """Every REAL function of one traced run against the report."""
    K = fx["clock"]
    print("  P=%d ns per probed call (this run: %d), clock read %d ns" % (pair, fx["pair"], K))
    print("  %-7s %6s %7s %11s %11s %8s %8s %11s %11s %11s" % (
        "func", "calls", "inner", "REAL", "U", "raw err", "comp err", "bound", "self err",
        "self bound"))
    for f, r in sorted(fx["real"].items()):
        if f not in comp:
            print("  %-7s unprobed" % f)
            continue
        row, rrow = comp[f], raw[f]
        # the report holds the warm-up calls too: one call of f, no callee
        warm = fx["counts"][f] - r["calls"]
        real = r["total"] + r["warm"]
        inner = probed_inner(fx, f, comp) + warm
        own = (r["calls"] + warm) * pair
        u = real - inner * pair
        wait = wait_noise(fx, f, raw) + r["warm"]
        noise = REL * max(u, 0) + 2 * K * (inner + r["calls"]) + wait
        err = row["total_ns"] - u
        bound = UNCERTAINTY * inner * pair + noise
        kids = children(fx, f, comp)
        # the callees the report shows are out of f's self time, the
        # unprobed ones' time in it (their probed callees are not looked for)
        u_self = real - own - sum(t for g, t in fx["edge"].get(f, {}).items() if g in comp)
        self_err = row["self_ns"] - u_self
        self_bound = UNCERTAINTY * (kids + r["calls"] + warm) * pair + REL * max(u_self, 0) + \
            2 * K * (kids + r["calls"]) + wait
        print("  %-7s %6d %7d %11d %11d %+7.0f%% %+7.0f%% %11d %11d %11d" % (
            f, r["calls"], inner, real, u, 100.0 * (rrow["total_ns"] - u) / max(u, 1),
            100.0 * err / max(u, 1), bound, self_err, self_bound))
        # raw: the same run's wall clock, less at most f's own hits' outside parts
        check(rrow["total_ns"] <= real + noise,
              "%s: raw total %d above the measured %d (+%d noise)"
              % (f, rrow["total_ns"], real, noise))
        check(rrow["total_ns"] >= real - UNCERTAINTY * own - noise,
              "%s: raw total %d below the measured %d less its own probes %d (+%d noise)"
              % (f, rrow["total_ns"], real, own, noise))
        check(abs(err) <= bound, "%s: compensated total %d, truth %d: error %d beyond %d"
              % (f, row["total_ns"], u, err, bound))
        check(abs(self_err) <= self_bound,
              "%s: compensated self %d, truth %d: error %d beyond %d"
              % (f, row["self_ns"], u_self, self_err, self_bound))
        if inner - r["calls"] > 0 and abs(rrow["total_ns"] - u) > noise:
            check(abs(err) < abs(rrow["total_ns"] - u),
                  "%s: compensation does not bring the total closer (raw %d, comp %d, truth %d)"
                  % (f, rrow["total_ns"], row["total_ns"], u))
        # The label answers for the error the probes can make, beyond the
        # noise: below the truth, not the part by which even the raw figure
        # is below it (preemption inside a probe's trap counts in the
        # fixture's clock and in neither timestamp of the call).
        excess = abs(err) - noise - (max(0, u - rrow["total_ns"]) if err < 0 else 0)
        if "probe_ns" in row and excess > 0.10 * max(u, 1):
            check(row["probe_ns"] >= excess / 2,
                  "%s: compensated error %d (%.0f%% of %d) but probe_ns %d"
                  % (f, err, 100.0 * err / max(u, 1), u, row["probe_ns"]))
        if mode == "budget" and inner == fx["counts"][f]:
            check(abs(err) <= BUDGET_TOL * u + noise,
                  "%s: kept by the budget, callees unprobed: total %d, truth %d: beyond %d%%"
                  % (f, row["total_ns"], u, 100 * BUDGET_TOL))


def run_mode(a, d, opts, args, pair_fallback=None, mode=""):
    trace = os.path.join(d, "t.pftrace")
    fx = record(a.sledtrace, opts, trace, a.fixture, args)
    comp, stats = report(a.sledtrace, trace, "compensated")
    raw, _ = report(a.sledtrace, trace, "raw")
    print("record %s: probe_cost_ns %d%s" % (" ".join(opts) or "(default)",
                                              stats.get("probe_cost_ns", 0),
                                              "".join(" %s %s" % (k, stats[k]) for k in (
                                                  "probe_entry_ns", "probe_exit_ns",
                                                  "budget_ppm", "budget_unprobed")
                                                  if k in stats)))
    check_counts(fx, comp, stats)
    pair = fx["pair"] if "probe_ref" in comp else pair_fallback
    if pair is None:
        fail("probe_ref unprobed and no other run measured the probes' cost")
    compare(fx, pair, stats.get("probe_cost_ns", 0), comp, raw, mode)
    return fx, comp, trace


def budget(a, d, wall):
    """--budget: check the help lists it (else fail), then both plannings."""
    helptext = subprocess.run([a.sledtrace, "record", "--help"], capture_output=True,
                              text=True).stdout
    if "--budget" not in helptext:
        fail("sledtrace record --help lists no --budget: record --budget=PCT "
             "(issue 24) is not built yet, so this test cannot pass")
    full, _, trace = run_mode(a, d, [], [])
    kept = os.path.join(d, "full.pftrace")
    os.rename(trace, kept)
    pct = float(BUDGET.rstrip("%")) / 100
    for opts in (["--budget=" + BUDGET], ["--budget=" + BUDGET, "--budget-from=" + kept]):
        fx, comp, _ = run_mode(a, d, opts, [], full["pair"], "budget")
        check("work" in comp, "the budget left work() unprobed: 4 calls of ~1 ms")
        probes = sum(n for f, n in fx["counts"].items() if f in comp) * full["pair"]
        print("  probes kept cost %d ns: %.1f%% of the untraced run's %d ns (budget %s)"
              % (probes, 100.0 * probes / wall, wall, BUDGET))
        check(probes <= (pct + NOISE_PTS) * wall,
              "probes kept cost %.1f%% of the program's time, budget %s"
              % (100.0 * probes / wall, BUDGET))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--mode", required=True, choices=["rewrite", "mixed", "threads", "budget"])
    ap.add_argument("fixture")
    a = ap.parse_args()
    args = ["threads", THREADS] if a.mode == "threads" else []
    base, wall = untraced(a.fixture, args)
    for r in base:
        check(r["pair"] <= 10 * r["clock"] + 50,
              "untraced, a traced call costs %d ns more than its twin" % r["pair"])
    print("untraced (%d runs, median wall %.1f ms): %s" % (
        UNTRACED_RUNS, wall / 1e6, ", ".join(
            "%s %.2f ms" % (f, statistics.median(r["real"][f]["total"] for r in base) / 1e6)
            for f in sorted(base[0]["real"]))))
    with tempfile.TemporaryDirectory() as d:
        if a.mode == "budget":
            budget(a, d, wall)
        else:
            opts = {"rewrite": ["--exit=rewrite"], "mixed": ["--exit=mixed"],
                    "threads": []}[a.mode]
            run_mode(a, d, opts, args)
    if failures:
        fail("%d check(s) failed" % len(failures))
    print("ok")


if __name__ == "__main__":
    main()
