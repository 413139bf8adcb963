#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_names.py: short-lived threads and processes keep their own names
and command lines.  Records a fixture (namedthreads or namedprocs), then
checks, with sledtrace's own report and a small walk of the Perfetto
file's process descriptors, that every thread or process the fixture
printed appears under its own name (and command line) with exactly the
calls it counted itself.  "follow" attaches with -p PID --follow to a
running namedprocs before it starts its children.
Usage: check_names.py SLEDTRACE threads|procs|follow FIXTURE"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_perfetto_rules import fields  # noqa: E402  (the independent wire walker)


def packets(trace):
    """Every TracePacket, compressed_packets (a zlib-deflated Trace) opened."""
    for num, _, pkt in fields(trace):
        if num != 1:
            continue
        yield pkt
        for pn, _, inner in fields(pkt):
            if pn == 50:
                yield from packets(zlib.decompress(inner))


def processes(path):
    """pid -> list of (name, cmdline) of every process track."""
    out = {}
    for pkt in packets(open(path, "rb").read()):
        for pn, _, td in fields(pkt):
            if pn != 60:  # TracePacket.track_descriptor
                continue
            for tn, _, pd in fields(td):
                if tn != 3:  # TrackDescriptor.process
                    continue
                pid, name, cmd = 0, "", []
                for f, _, v in fields(pd):
                    if f == 1:
                        pid = v
                    elif f == 2:
                        cmd.append(v.decode())
                    elif f == 6:
                        name = v.decode()
                out.setdefault(pid, []).append((name, " ".join(cmd)))
    return out


def report(sledtrace, trace, group):
    out = subprocess.run([sledtrace, "report", group, "--format", "json", trace],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    return json.loads(out)["rows"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check_threads(sledtrace, trace, printed):
    want = {}
    for line in printed.splitlines():
        name, thread_calls, work_calls = line.split("\t")
        want[name] = {"nt_thread": int(thread_calls), "nt_work": int(work_calls)}
    if len(want) != 1000:
        fail("fixture printed %d threads" % len(want))
    got = {}
    for r in report(sledtrace, trace, "--by-thread"):
        if r["function"] in ("nt_thread", "nt_work"):
            per = got.setdefault(r["thread"], {})
            if r["function"] in per:
                fail("two threads named %r" % r["thread"])
            per[r["function"]] = r["calls"]
    if got != want:
        bad = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
        fail("%d threads differ, e.g. %s: trace %s, fixture %s" %
             (len(bad), bad[0], got.get(bad[0]), want.get(bad[0])))
    print("ok: 1000 threads, each under its own name with exact counts")


def check_procs(sledtrace, trace, printed):
    want = {}
    for line in printed.splitlines():
        if line == "READY":
            continue
        pid, i, calls = line.split("\t")
        want[int(pid)] = (int(i), int(calls))
    if len(want) != 100:
        fail("fixture printed %d processes" % len(want))
    calls = {r["pid"]: r["calls"] for r in report(sledtrace, trace, "--by-process")
             if r["function"] == "np_work"}
    procs = processes(trace)
    for pid, (i, n) in want.items():
        if calls.get(pid) != n:
            fail("pid %d: %s np_work calls in the trace, %d counted" % (pid, calls.get(pid), n))
        expect = ("namedprocs", "namedprocs child %d tag-%d" % (i, i))
        if expect not in procs.get(pid, []):
            fail("pid %d: process tracks %s, expected %s" % (pid, procs.get(pid), expect))
    if len(calls) != 100:
        fail("%d processes called np_work in the trace" % len(calls))
    print("ok: 100 processes, each with its own command line and exact counts")


def record_follow(sledtrace, fixture, trace):
    """record -p PID --follow of a running namedprocs that starts its 100
    children only once the probes are in place: the trace must hold them
    all.  Returns the fixture's output."""
    fx = subprocess.Popen([fixture, "wait"], stdout=subprocess.PIPE, text=True)
    try:
        if fx.stdout.readline() != "READY\n":
            fail("fixture did not start")
        rec = subprocess.Popen([sledtrace, "record", "-p", str(fx.pid), "--follow", "-o", trace],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        err = rec.stderr.readline()
        if "attached" not in err:
            fail("record -p did not attach: " + err + rec.stderr.read())
        os.kill(fx.pid, signal.SIGUSR1)
        out = fx.stdout.read()
        if fx.wait(timeout=120):
            fail("fixture exited %d" % fx.returncode)
        err += rec.stderr.read()
        if rec.wait(timeout=120):
            fail("record exited %d: %s" % (rec.returncode, err))
        if "name" in err and "lost" in err:
            fail("names lost: " + err)
        return out
    finally:
        if fx.poll() is None:
            fx.kill()


def main():
    sledtrace, what, fixture = sys.argv[1], sys.argv[2], sys.argv[3]
    with tempfile.TemporaryDirectory() as d:
        trace = os.path.join(d, "t.pftrace")
        if what == "follow":
            check_procs(sledtrace, trace, record_follow(sledtrace, fixture, trace))
            return
        run = subprocess.run([sledtrace, "record", "-o", trace, "--", fixture],
                             capture_output=True, text=True, timeout=300)
        if run.returncode:
            fail("record exited %d: %s" % (run.returncode, run.stderr))
        if "name" in run.stderr and "lost" in run.stderr:
            fail("names lost: " + run.stderr)
        (check_threads if what == "threads" else check_procs)(sledtrace, trace, run.stdout)


if __name__ == "__main__":
    main()
