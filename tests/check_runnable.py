#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_runnable.py: on-CPU time takes out the time a thread waited for a
CPU, not only the time it slept.

tests/fixtures/oncpu.c (spin: a fixed loop; doze: sleeps 5 ms; 4 calls
each) runs pinned to CPU 0 beside a busy loop pinned there too, so the
scheduler shares that CPU between them and spin is preempted again and
again.  Then, in the trace:
  - the calls equal the fixture's own counts;
  - the stats count switches, and the threads' state tracks hold Runnable
    slices (time waiting for the CPU) and Sleeping ones (doze);
  - spin's on-CPU self time is well below its wall self time (it ran about
    half the time it took: between 15% and 85% of it), while doze's self
    time is mostly off the CPU (at least its 4 x 5 ms of sleep, less 10%).
Python 3 standard library only.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_perfetto_rules import Checker, read_trace  # noqa: E402
from checklib import CheckFailed, verdict  # noqa: E402

COUNT_RE = re.compile(r"^COUNT (\d+) (\S+) (\d+)$")
SLEPT_NS = 4 * 5 * 1000 * 1000 * 9 // 10


def pin(cpu):
    return lambda: os.sched_setaffinity(0, {cpu})


def record(st, fixture, trace):
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"], preexec_fn=pin(0))
    try:
        p = subprocess.run([st, "record", "--quiet", "-o", trace, "--", fixture],
                           preexec_fn=pin(0), stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=120)
    finally:
        hog.kill()
        hog.wait()
    if p.returncode:
        raise CheckFailed("record exited %d:\n%s" % (p.returncode, p.stderr))
    return {m.group(2): int(m.group(3)) for m in map(COUNT_RE.match, p.stdout.splitlines()) if m}


def state_names(trace):
    with open(trace, "rb") as f:
        c = read_trace(Checker(), f.read())
    return [n for st in c.states.values() for n in st.names]


def check(st, fixture):
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.pftrace")
        counts = record(st, fixture, trace)
        if counts != {"main": 1, "spin": 4, "doze": 4}:
            raise CheckFailed("the fixture counted %s" % counts)
        doc = json.loads(subprocess.run([st, "report", "--format=json", "--times=raw", trace],
                                        check=True, capture_output=True, text=True).stdout)
        rows = {r["function"]: r for r in doc["rows"]}
        if {f: r["calls"] for f, r in rows.items()} != counts:
            raise CheckFailed("trace calls %s, the fixture counted %s"
                              % ({f: r["calls"] for f, r in rows.items()}, counts))
        names = state_names(trace)
        if doc["stats"]["switches"] <= 0 or "Runnable" not in names or "Sleeping" not in names:
            raise CheckFailed("switches %d, states %s: no Runnable or Sleeping"
                              % (doc["stats"]["switches"], sorted(set(names))))
        spin, doze = rows["spin"], rows["doze"]
        share = spin["cpu_self_ns"] / spin["self_ns"]
        if not 0.15 <= share <= 0.85:
            raise CheckFailed("spin shared its CPU with a busy loop, yet ran %.0f%% of its "
                              "self time: %s" % (100 * share, spin))
        if doze["self_ns"] - doze["cpu_self_ns"] < SLEPT_NS:
            raise CheckFailed("doze slept 4 x 5 ms, off the CPU only %d ns: %s"
                              % (doze["self_ns"] - doze["cpu_self_ns"], doze))
        print("spin ran %.0f%% of its %.1f ms self time, %d Runnable slices; doze waited "
              "%.1f ms" % (100 * share, spin["self_ns"] / 1e6, names.count("Runnable"),
                           (doze["self_ns"] - doze["cpu_self_ns"]) / 1e6))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("fixture")
    args = ap.parse_args()
    return verdict(check, args.sledtrace, args.fixture, fail_to=sys.stdout, passed=None)


if __name__ == "__main__":
    sys.exit(main())
