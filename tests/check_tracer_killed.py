#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_tracer_killed.py: a traced program is unharmed when sledtrace dies.
sledtrace is SIGKILLed while the target runs (with probes attached and, in
uretprobe modes, its return addresses hijacked); the target must go on,
print exactly what it prints untraced and exit 0, and no trace may appear
at the output path.  This process becomes a child subreaper so that it
can collect the orphaned target's exit status."""
import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import time

PR_SET_CHILD_SUBREAPER = 36


def main():
    sledtrace, loop, exit_mode = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    calls = 20000000
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("prctl(PR_SET_CHILD_SUBREAPER) failed")
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.pftrace")
        out_path = os.path.join(tmp, "target.out")
        with open(out_path, "w") as out:
            rec = subprocess.Popen([sledtrace, "record", "-q", "--exit=" + exit_mode, "-o", trace,
                                    "--", loop, str(calls)], stdout=out, stderr=subprocess.PIPE)
        time.sleep(1.0)
        if rec.poll() is not None:
            sys.exit("sledtrace ended before it could be killed: %s" % rec.stderr.read())
        rec.send_signal(signal.SIGKILL)
        rec.wait()
        # The target is ours now; wait for it (and only it) to finish.
        deadline = time.monotonic() + 120
        status = None
        while time.monotonic() < deadline:
            try:
                pid, st = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid:
                status = os.waitstatus_to_exitcode(st)
                continue
            time.sleep(0.05)
        with open(out_path) as f:
            lines = [l.split() for l in f.read().splitlines()]
        got = {l[2]: int(l[3]) for l in lines if len(l) == 4 and l[0] == "COUNT"}
        fail = []
        if status != 0:
            fail.append("target exit status %s, expected 0" % status)
        if got != {"main": 1, "tick": calls}:
            fail.append("target printed %s" % got)
        if os.path.exists(trace):
            fail.append("a trace appeared at the output path although sledtrace was killed")
        left = sorted(set(os.listdir(tmp)) - {"target.out"})
        if left:
            fail.append("sledtrace left files behind: %s" % left)
    for f in fail:
        print(f)
    if not fail:
        print("target finished on its own: status 0, counts %s" % got)
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
