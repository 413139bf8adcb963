#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_probecost.py: overhead-compensated times against a known truth.

Runs the probecost fixture under `sledtrace record --exit=MODE`, checks
the exact call counts it printed, and compares the self time `report`
gives outer(), raw and with --times=compensated, with the real self time
the fixture measured itself (`REAL outer_self_ns N`).  Compensation must
bring the figure closer to the real one, and within TOLERANCE of it;
every output must say which times it shows.

Usage: check_probecost.py --sledtrace PATH --exit MODE FIXTURE
Python 3 standard library only.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# The run's calibration misses the part of each probe hit outside its two
# timestamps (docs/DESIGN.md, "Probe cost"): compensated self time leans
# above the real one, measured
# at 1.1-1.7x of it on a 2-core VM against 2.1-2.7x raw.
TOLERANCE = 1.0
ATTEMPTS = 3


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def report(st, trace, times, fmt):
    out = subprocess.run([st, "report", "--times=" + times, "--format=" + fmt, trace],
                         capture_output=True, text=True, timeout=60)
    if out.returncode:
        fail("report --times=%s: %s" % (times, out.stderr.strip()))
    return out.stdout


def attempt(a, d):
    """One recorded run: (real, raw, compensated, cost) for outer's self time."""
    trace = os.path.join(d, "t.pftrace")
    run = subprocess.run([a.sledtrace, "record", "--exit=" + a.exit, "-o", trace,
                          "--", a.fixture], capture_output=True, text=True, timeout=120)
    if run.returncode:
        fail("record: %s" % run.stderr.strip())
    counts = {m[1]: int(m[2]) for m in re.finditer(r"^COUNT \d+ (\S+) (\d+)$",
                                                   run.stdout, re.M)}
    real = int(re.search(r"^REAL outer_self_ns (\d+)$", run.stdout, re.M)[1])
    got = {}
    for times in ("raw", "compensated"):
        js = json.loads(report(a.sledtrace, trace, times, "json"))
        if js.get("times") != times:
            fail("JSON says times=%r, asked %s" % (js.get("times"), times))
        rows = {r["function"]: r for r in js["rows"]}
        calls = {f: rows[f]["calls"] for f in rows}
        if calls != counts:
            fail("%s: counts %s, fixture counted %s" % (times, calls, counts))
        if js["stats"]["probe_cost_ns"] <= 0:
            fail("no probe cost calibrated: %s" % js["stats"])
        got[times] = rows["outer"]["self_ns"]
        for fmt, say in (("table", "\ntimes: %s\n"), ("tsv", " times=%s\n"),
                         ("csv", " times=%s\n")):
            if say % times not in report(a.sledtrace, trace, times, fmt):
                fail("%s output does not say times=%s" % (fmt, times))
    return real, got["raw"], got["compensated"], js["stats"]["probe_cost_ns"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--exit", required=True)
    ap.add_argument("fixture")
    a = ap.parse_args()
    # A loaded machine stretches the traced calls of one run, not the
    # fixture's loops: up to ATTEMPTS runs, each checked in full.
    for _ in range(ATTEMPTS):
        with tempfile.TemporaryDirectory() as d:
            real, raw, comp, cost = attempt(a, d)
        print("exit=%s real %d ns; self raw %d ns (error %+.0f%%), compensated %d ns "
              "(error %+.0f%%); probe cost %d ns" %
              (a.exit, real, raw, 100.0 * (raw - real) / real, comp,
               100.0 * (comp - real) / real, cost))
        if not abs(comp - real) < abs(raw - real):
            fail("compensation does not bring outer's self time closer")
        if abs(comp - real) <= TOLERANCE * real:
            print("ok")
            return
    fail("compensated error beyond %.0f%% of the real self time in %d runs" %
         (100 * TOLERANCE, ATTEMPTS))


if __name__ == "__main__":
    main()
