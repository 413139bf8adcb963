#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_storm.py: many processes map the same new XRay object at once.

tests/fixtures/storm.c (no sleds of its own) forks N children held at a
pipe and releases them together: they dlopen the same XRay object, exec
the same XRay binary (which dlopens it too), or both at once.  Each child
counts its own calls.  Every recording must be exact, every time: each
child's calls are in the trace with the counts it printed, no gap and no
drop is reported, and record exits as the fixture did.  The recording is
repeated --runs times; that is not a retry: any run that is not exact
fails the test.

With --attach the tree is recorded with `record -p PID --follow`: the
fixture waits for SIGUSR1 before it forks, so every child starts after the
attach and must be exact too.

Usage: check_storm.py SLEDTRACE --runs N [--attach] [--record-arg=ARG]...
         -- STORM MODE N EXE-OR-LIB [LIB]
"""
import argparse
import collections
import os
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_counts  # noqa: E402
from check_hold import wait_for  # noqa: E402


def record_launched(args, trace, out_path):
    argv = [args.sledtrace, "record", "-o", trace] + args.record_arg + ["--"] + args.cmd
    with open(out_path, "w") as out:
        r = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE, text=True,
                           stdin=subprocess.DEVNULL, timeout=300)
    return r.returncode, r.stderr


def record_attached(args, trace, out_path):
    """-p --follow on the fixture while it waits, then release it."""
    with open(out_path, "w") as out:
        fx = subprocess.Popen(args.cmd + ["wait"], stdout=out, stdin=subprocess.DEVNULL)
    try:
        wait_for(lambda: "WAITING" in open(out_path).read(), 30, "the fixture to wait")
        rec = subprocess.Popen([args.sledtrace, "record", "-p", str(fx.pid), "--follow", "-o",
                                trace] + args.record_arg, stderr=subprocess.PIPE, text=True,
                               stdin=subprocess.DEVNULL)
        # record says it attached on stderr; read it without blocking the end.
        line = rec.stderr.readline()
        if "attached" not in line:
            rec.kill()
            raise check_counts.CheckFailed("record -p did not attach: %r" % line)
        fx.send_signal(signal.SIGUSR1)
        status = fx.wait(timeout=300)
        err = line + rec.communicate(timeout=300)[1]
        if rec.returncode != 0:
            raise check_counts.CheckFailed("record -p exited %d\n%s" % (rec.returncode, err))
        return status, err
    finally:
        if fx.poll() is None:
            fx.kill()
            fx.wait()


def one_run(args, tmp, i):
    trace = os.path.join(tmp, "t%d.pftrace" % i)
    out_path = os.path.join(tmp, "out%d" % i)
    rec = record_attached if args.attach else record_launched
    status, err = rec(args, trace, out_path)
    if status != 0:
        raise check_counts.CheckFailed("run %d: exit status %d\n%s" % (i, status, err))
    with open(out_path) as f:
        expected, _ = check_counts.parse_counts(f.read(), "the fixture")
    pids = {tid for tid, _ in expected}
    if len(pids) < args.children:
        raise check_counts.CheckFailed("run %d: %d children printed counts, expected %d"
                                       % (i, len(pids), args.children))
    rows, _ = check_counts.get_report(args.sledtrace, trace, 120)
    problems = check_counts.compare_counts(expected, rows)
    stats, _ = check_counts.get_stats(args.sledtrace, trace, 120)
    for name in ("ringbuf_drops", "coverage_gaps"):
        if stats.get(name):
            problems.append("  %s=%d" % (name, stats[name]))
    if "warning" in err:
        problems.append("  record warned:\n" + err)
    if problems:
        missing = collections.Counter(tid for (tid, f), n in expected.items()
                                      if rows.get((tid, f), (0,))[0] != n)
        raise check_counts.CheckFailed("run %d not exact (%d of %d children differ):\n%s"
                                       % (i, len(missing), len(pids), "\n".join(problems)))
    return sum(expected.values())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sledtrace")
    ap.add_argument("--runs", type=int, required=True)
    ap.add_argument("--attach", action="store_true")
    ap.add_argument("--record-arg", action="append", default=[])
    ap.add_argument("cmd", nargs="+")
    args = ap.parse_args()
    args.children = int(args.cmd[2])
    calls = 0
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for i in range(args.runs):
                calls += one_run(args, tmp, i)
    except check_counts.CheckFailed as e:
        print(e)
        return 1
    print("%d recordings of %s exact (%d calls in all)" % (args.runs, " ".join(args.cmd[1:3]),
                                                          calls))
    return 0


if __name__ == "__main__":
    sys.exit(main())
