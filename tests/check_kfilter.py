#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_kfilter.py: `record --min-duration` and `--max-depth` leave calls
out in the kernel, so what they drop never becomes an event.

  1. durations (naps of 50 ms) under --min-duration=25ms and depth_limit under --max-depth=N
     (exit sleds, no switch records: nothing else makes the kernel write a
     call early): the trace's `events` are exactly two per call the
     fixture counts as kept plus its thread's exit, where the run without
     the filter has two per call of either kind; the fixture's STAT count
     still matches.
  2. loop (1,000,000 calls of a short function) under --min-duration=1ms:
     under a hundredth of the unfiltered run's events, and sledtrace's own
     CPU time (its `timing: cpu` line) below the unfiltered run's.
  3. record -p on open_at_detach, detached while a call whose entry the
     kernel holds back is open: that call still reaches the trace's
     stats as the collector would have counted it (the fixture's STATs).
  4. tailcall (chains of tail calls, mutual and indirect tail recursion)
     under --min-duration=1s in every exit mode: every call is short, so
     the trace has its thread's exit alone (3 events under infer, whose
     inferred ends need the events that infer them), short_dropped is the
     fixture's count of calls and no exit is unmatched: tails are left out
     with their calls, and under uretprobes so are the chained returns
     they owe.

Usage: check_kfilter.py --sledtrace PATH --durations PATH --depth-limit PATH
         --loop PATH --open-at-detach PATH --tailcall PATH
"""

import argparse
import re
import signal
import subprocess
import sys
import tempfile
import time

from check_counts import CheckFailed, get_stats, parse_counts, parse_stats_lines, run
from checklib import verdict

CPU_RE = re.compile(r"timing: cpu ([0-9.]+) ms")


def record(args, extra, fixture, tmp, name):
    """Records fixture -> (its stdout, the trace's stats, sledtrace's CPU ms)."""
    trace = "%s/%s.pftrace" % (tmp, name)
    argv = [args.sledtrace, "record", "-v", "-o", trace] + extra + ["--"] + fixture
    status, out, err = run(argv, 120, "sledtrace record")
    if status != 0:
        raise CheckFailed("`%s` exited %d\n--- stderr ---\n%s" % (" ".join(argv), status, err))
    cpu = CPU_RE.search(err)
    if not cpu:
        raise CheckFailed("no `timing: cpu` line from `%s`:\n%s" % (" ".join(argv), err))
    stats, _ = get_stats(args.sledtrace, trace, 60)
    return out, stats, float(cpu.group(1))


def check_exact(args, tmp, name, fixture, filt, stat):
    """Case 1: events of the filtered run are the kept calls' alone."""
    base = ["--exit=sled", "--no-sched"]
    out, full, _ = record(args, base, fixture, tmp, name + "-all")
    counts, _ = parse_counts(out, name)
    kept = sum(counts.values())
    dropped = parse_stats_lines(out)[stat]
    out, filtered, _ = record(args, base + [filt], fixture, tmp, name + "-filtered")
    if full["events"] != 2 * (kept + dropped) + 1:
        raise CheckFailed("%s without %s: %d events, expected 2 * (%d + %d) + 1"
                          % (name, filt, full["events"], kept, dropped))
    if filtered["events"] != 2 * kept + 1 or filtered[stat] != dropped:
        raise CheckFailed("%s with %s: %d events and %s=%d, expected %d and %d"
                          % (name, filt, filtered["events"], stat, filtered[stat],
                             2 * kept + 1, dropped))
    print("%s %s: %d events (%d without), %s=%d"
          % (name, filt, filtered["events"], full["events"], stat, dropped))


def check_cpu(args, tmp):
    """Case 2: fewer events cost sledtrace less CPU."""
    fixture = [args.loop, "1000000"]
    _, full, full_cpu = record(args, [], fixture, tmp, "loop-all")
    _, filt, filt_cpu = record(args, ["--min-duration=1ms"], fixture, tmp,
                               "loop-filtered")
    print("loop: %d events, cpu %.1f ms without the filter; %d events, cpu %.1f ms with it"
          % (full["events"], full_cpu, filt["events"], filt_cpu))
    if filt["events"] * 100 > full["events"]:
        raise CheckFailed("loop: --min-duration left %d of %d events"
                          % (filt["events"], full["events"]))
    if filt_cpu >= full_cpu:
        raise CheckFailed("loop: sledtrace's CPU did not drop with its events")


def expect_line(stream, prefix, what):
    line = stream.readline()
    if not line.startswith(prefix):
        raise CheckFailed("%s said %r, expected %s" % (what, line, prefix))
    return line


def check_detach(args, tmp):
    """Case 3: what the kernel holds back at detach is handed over."""
    trace = tmp + "/detach.pftrace"
    target = subprocess.Popen([args.open_at_detach], stdout=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True)
    rec = None
    try:
        expect_line(target.stdout, "READY", "open_at_detach")
        rec = subprocess.Popen([args.sledtrace, "record", "--no-sched", "--min-duration=1ms",
                                "-o", trace, "-p", str(target.pid)], stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, text=True)
        while " attached to " not in expect_line(rec.stderr, "sledtrace:", "sledtrace record"):
            pass
        target.send_signal(signal.SIGUSR1)
        expect_line(target.stdout, "IN", "open_at_detach")
        time.sleep(0.05)
        rec.send_signal(signal.SIGINT)
        err = rec.stderr.read()
        if rec.wait(timeout=60) != 0:
            raise CheckFailed("sledtrace record -p exited %d:\n%s" % (rec.returncode, err))
        target.send_signal(signal.SIGTERM)
        out = target.stdout.read()
        if target.wait(timeout=30) != 0:
            raise CheckFailed("open_at_detach exited %d" % target.returncode)
    finally:
        for p in (target, rec):
            if p and p.poll() is None:
                p.kill()
                p.wait()
    want = parse_stats_lines(out)
    stats, table = get_stats(args.sledtrace, trace, 60)
    bad = ["%s: fixture %d, trace %s" % (k, v, stats.get(k)) for k, v in sorted(want.items())
           if stats.get(k) != v]
    if not want or bad:
        raise CheckFailed("open_at_detach: " + ("; ".join(bad) or "no STAT lines") + "\n" + table)
    print("open_at_detach: " + " ".join("%s=%d" % kv for kv in sorted(want.items())))


def check_tails(args, tmp):
    """Case 4: calls that end by a tail call are left out too."""
    for mode in ("auto", "sled", "uretprobe", "mixed", "infer"):
        out, stats, _ = record(args, ["--no-sched", "--exit=" + mode, "--min-duration=1s"],
                               [args.tailcall], tmp, "tailcall-" + mode)
        counts, _ = parse_counts(out, "tailcall")
        calls = sum(counts.values())
        most = 3 if mode == "infer" else 1
        if (stats["events"] > most or stats["short_dropped"] != calls
                or stats["unmatched_exits"]):
            raise CheckFailed("tailcall --exit=%s --min-duration=1s: events=%d (at most %d), "
                              "short_dropped=%d (the fixture made %d calls), "
                              "unmatched_exits=%d" % (mode, stats["events"], most,
                                                      stats["short_dropped"], calls,
                                                      stats["unmatched_exits"]))
        print("tailcall --exit=%s: %d events, short_dropped=%d" % (mode, stats["events"], calls))


def check(args):
    with tempfile.TemporaryDirectory(prefix="sledtrace-kfilter-") as tmp:
        check_exact(args, tmp, "durations", [args.durations, "50"], "--min-duration=25ms",
                    "short_dropped")
        for depth in ("1", "2", "50"):
            check_exact(args, tmp, "depth_limit-" + depth, [args.depth_limit, depth],
                        "--max-depth=" + depth, "max_depth_dropped")
        check_cpu(args, tmp)
        check_detach(args, tmp)
        check_tails(args, tmp)


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--sledtrace", "--durations", "--depth-limit", "--loop", "--open-at-detach",
                "--tailcall"):
        ap.add_argument(opt, required=True)
    args = ap.parse_args()
    return verdict(check, args, passed=None)


if __name__ == "__main__":
    sys.exit(main())
