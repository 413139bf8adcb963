#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_hold.py: a process held at a new mapping is never left stopped.

Records tests/fixtures/solib_main.c, which waits before it dlopens an XRay
library.  sledtrace itself is then frozen (SIGSTOP), so it cannot answer,
and the fixture is released: its dlopen must leave it stopped (state T:
the hold works, no code of the library runs unprobed).  Then sledtrace is
SIGKILLed: its keeper must resume the fixture, which must finish with the
output of an untraced run and exit 0; no trace file may appear.
"""
import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import time

PR_SET_CHILD_SUBREAPER = 36


def state(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def wait_for(pred, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.01)
    sys.exit("timed out waiting for " + what)


def hold_frozen(rec, out_path):
    """The fixture under record `rec` waits before its dlopen: freeze
    sledtrace, release the fixture, and return its pid once it is held."""
    wait_for(lambda: "WAITING" in open(out_path).read(), 30, "the fixture to wait")
    target = int(subprocess.run(["pgrep", "-P", str(rec.pid), "-x", "solib_main"],
                                capture_output=True, text=True).stdout.split()[0])
    rec.send_signal(signal.SIGSTOP)
    os.kill(target, signal.SIGUSR1)
    wait_for(lambda: state(target) == "T", 10, "the fixture to be held at its dlopen")
    return target


def main():
    sledtrace, fixture, lib = (os.path.abspath(a) for a in sys.argv[1:4])
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("prctl(PR_SET_CHILD_SUBREAPER) failed")
    untraced = subprocess.run([fixture, lib], capture_output=True, text=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.pftrace")
        out_path = os.path.join(tmp, "out")
        with open(out_path, "w") as out:
            rec = subprocess.Popen([sledtrace, "record", "-q", "-o", trace, "--", fixture, lib,
                                    "wait"], stdout=out, stdin=subprocess.DEVNULL)
        target = hold_frozen(rec, out_path)
        time.sleep(0.2)
        fail = []
        if state(target) != "T":
            fail.append("the held fixture ran on: state %s" % state(target))
        rec.send_signal(signal.SIGKILL)
        rec.wait()
        status = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                pid, st = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == target:
                status = os.waitstatus_to_exitcode(st)
            if not pid:
                time.sleep(0.02)
        got = open(out_path).read().replace("WAITING\n", "")
        strip = lambda t: [l.split(None, 2)[2] if l.startswith("COUNT") else l
                           for l in t.splitlines()]
        if status != 0:
            fail.append("fixture exit status %s, expected 0" % status)
        if strip(got) != strip(untraced):
            fail.append("fixture printed %r, untraced %r" % (got, untraced))
        if os.path.exists(trace):
            fail.append("a trace appeared although sledtrace was killed")
    for f in fail:
        print(f)
    if not fail:
        print("held at dlopen while sledtrace was frozen, resumed after it was killed")
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
