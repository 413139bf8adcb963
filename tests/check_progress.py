#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_progress.py: what record prints on a terminal.  Under a pseudo-
terminal a status line (events/s, total, drops) is redrawn while the target
runs and cleared before the one-line summary; --quiet prints neither; with
stderr not a terminal there is no status line, only the summary.  The
attach line's time is the measured one: above 0, the figure -v's timing
line gives, and within the start phase that holds it."""
import os
import pty
import re
import subprocess
import sys
import tempfile


def on_pty(argv):
    """Runs argv with stdin/stdout/stderr on a new pty; returns what it wrote."""
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(argv[0], argv)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode(errors="replace")


def check_attach_time(sledtrace, loop, trace):
    p = subprocess.run([sledtrace, "record", "-v", "-o", trace, "--", loop, "1000"],
                       capture_output=True, text=True)
    line = re.search(r"^sledtrace: 2 functions, \d+ sleds, (\d+) probes attached in "
                     r"([0-9.]+) ms \(", p.stderr, re.M)
    timing = re.search(r"^sledtrace: timing: attach ([0-9.]+) ms, detach", p.stderr, re.M)
    start = re.search(r"^sledtrace: timing: open [0-9.]+ ms, load [0-9.]+ ms, "
                      r"start ([0-9.]+) ms", p.stderr, re.M)
    if not line or not timing or not start:
        return ["record -v lacks the attach line or its timing lines:\n%s" % p.stderr]
    probes, ms = int(line.group(1)), float(line.group(2))
    if probes < 1 or ms <= 0:
        return ["%d probes attached in %s ms: not the measured time" % (probes, line.group(2))]
    if line.group(2) != timing.group(1) or ms > float(start.group(1)):
        return ["attach %s ms, -v timing says %s ms and start %s ms"
                % (line.group(2), timing.group(1), start.group(1))]
    return []


def main():
    sledtrace, loop = map(os.path.abspath, sys.argv[1:3])
    fail = []
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.pftrace")
        rc, out = on_pty([sledtrace, "record", "-o", trace, "--", loop, "3000000"])
        if rc != 0:
            fail.append("record on a pty exited %d:\n%s" % (rc, out))
        if not re.search(r"sledtrace: [0-9.]+[kMG]? events/s, [0-9.]+[kMG]? events, 0 dropped", out):
            fail.append("no status line on a terminal:\n%r" % out[-2000:])
        if "\r\033[K" not in out:
            fail.append("the status line is never cleared")
        if not re.search(r"sledtrace: 6000003 events, 2 of 2 functions hit, 0 dropped", out):
            fail.append("no summary line on a terminal:\n%r" % out[-2000:])
        rc, out = on_pty([sledtrace, "record", "--quiet", "-o", trace, "--", loop, "3000000"])
        if "sledtrace" in out:
            fail.append("--quiet still printed: %r" % out[-500:])
        p = subprocess.run([sledtrace, "record", "-o", trace, "--", loop, "1000"],
                           capture_output=True, text=True)
        if "events/s" in p.stderr or "\033[K" in p.stderr:
            fail.append("status line printed to a non-terminal: %r" % p.stderr)
        if not re.search(r"sledtrace: 2003 events", p.stderr):
            fail.append("no summary when stderr is not a terminal: %r" % p.stderr)
        fail += check_attach_time(sledtrace, loop, trace)
    for f in fail:
        print(f)
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
