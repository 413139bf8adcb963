#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_coverage.py: a window without probes is made on purpose, and said.

Records tests/fixtures/solib_main.c, which waits before it dlopens an XRay
library and again after it has called into it.  sledtrace is frozen
(SIGSTOP) so it cannot answer the hold, the fixture is released and held
at its dlopen (state T), and then resumed by a SIGCONT that is not
sledtrace's, as job control would: it calls into the library before any
probe is on it.  Once sledtrace runs again (and has probed the library) the trace must
say so: record warns of one coverage gap naming the process and the
library, with the window up to the probes, the summary
line counts it, `report` lists it and its stats say coverage_gaps=1, and
with --strict record exits 3 although the fixture exited 0; without
--strict it exits 0.  The calls made before the dlopen are still exact.

Usage: check_coverage.py SLEDTRACE SOLIB_MAIN LIBSL_B
"""
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_counts  # noqa: E402
from check_hold import hold_frozen, wait_for  # noqa: E402

BEFORE_DLOPEN = {"main", "m_work", "a_entry", "a_leaf"}
STOP_WAIT_MS = 300


def record(sledtrace, fixture, lib, tmp, strict):
    trace = os.path.join(tmp, "t%d.pftrace" % strict)
    out_path = os.path.join(tmp, "out%d" % strict)
    argv = [sledtrace, "record", "-o", trace] + (["--strict"] if strict else [])
    # The held process is not stopped any more: sledtrace waits this long
    # for it to stop before it probes the library anyway.
    env = dict(os.environ, SLEDTRACE_STOP_WAIT_MS=str(STOP_WAIT_MS))
    with open(out_path, "w") as out:
        rec = subprocess.Popen(argv + ["--", fixture, lib, "wait", "wait"], stdout=out,
                               stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
                               env=env)
    target = hold_frozen(rec, out_path)
    os.kill(target, signal.SIGCONT)  # not sledtrace's resume: the window
    wait_for(lambda: "DONE" in open(out_path).read(), 10, "the fixture to run the library")
    rec.send_signal(signal.SIGCONT)
    time.sleep(3 * STOP_WAIT_MS / 1000)
    os.kill(target, signal.SIGUSR1)
    err = rec.communicate(timeout=60)[1]
    with open(out_path) as f:
        expected, _ = check_counts.parse_counts(f.read(), "solib_main")
    return rec.returncode, err, trace, expected, target


def check(sledtrace, fixture, lib, tmp, strict):
    status, err, trace, expected, target = record(sledtrace, fixture, lib, tmp, strict)
    fail = []
    want = 3 if strict else 0
    if status != want:
        fail.append("record%s exited %d, expected %d" % (" --strict" * strict, status, want))
    gap = "coverage gap: process %d may have run %s unprobed" % (target, os.path.abspath(lib))
    warned = [l for l in err.splitlines() if gap in l]
    if len(warned) != 1:
        fail.append("record warned %d times of %r" % (len(warned), gap))
    if "1 coverage gap (calls may be missing)" not in err:
        fail.append("the summary line does not count the gap")
    if strict and "--strict: the trace is not exact" not in err:
        fail.append("--strict did not say why it failed")
    report = subprocess.run([sledtrace, "report", trace], capture_output=True, text=True)
    if report.returncode != 0 or gap not in report.stdout:
        fail.append("report does not list the gap:\n" + report.stdout + report.stderr)
    stats, _ = check_counts.get_stats(sledtrace, trace, 60)
    if stats.get("coverage_gaps") != 1:
        fail.append("stats say coverage_gaps=%s, expected 1" % stats.get("coverage_gaps"))
    rows, _ = check_counts.get_report(sledtrace, trace, 60)
    before = {k: n for k, n in expected.items() if k[1] in BEFORE_DLOPEN}
    fail += check_counts.compare_counts(before, {k: v for k, v in rows.items()
                                                 if k[1] in BEFORE_DLOPEN})
    if fail:
        fail.insert(0, "--- record's stderr ---\n" + err)
    return fail


def main():
    sledtrace, fixture, lib = (os.path.abspath(a) for a in sys.argv[1:4])
    fail = []
    with tempfile.TemporaryDirectory() as tmp:
        for strict in (True, False):
            fail += check(sledtrace, fixture, lib, tmp, strict)
    for f in fail:
        print(f)
    if not fail:
        print("a foreign SIGCONT of a held process is a coverage gap: warned, counted, "
              "reported, and --strict exits 3")
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
