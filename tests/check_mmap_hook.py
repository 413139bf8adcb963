#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_mmap_hook.py: both hooks that hold a traced process at a new
executable mapping keep a dlopen'ed library's counts exact.

sledtrace watches mmap through mmap's own syscall tracepoint and falls back
to the raw syscall exit tracepoint where there is none (no syscall
tracepoints, or no tracefs for libbpf to find its id in).  The fixture
dlopens a library with sleds after start; the run must say (with -vv)
which hook it used, and the trace must hold exactly the fixture's counts.
The fallback runs in a private mount namespace with tracefs unmounted
(the rest of the machine keeps it).

Usage: check_mmap_hook.py SLEDTRACE SOLIB_MAIN LIBRARY
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_counts import (CheckFailed, compare_counts, get_report,  # noqa: E402
                          parse_counts, run)

TIMEOUT = 60
HOOKS = {
    "mmap": "sledtrace: new mappings watched at the exit of mmap(2)",
    "every": "sledtrace: new mappings watched at every syscall exit (no mmap syscall tracepoint)",
}
UNMOUNT = ("for d in /sys/kernel/tracing /sys/kernel/debug/tracing /sys/kernel/debug; do "
           "umount \"$d\" 2>/dev/null; done; exec \"$@\"")


def one(sledtrace, cmd, tmp, hook):
    trace = os.path.join(tmp, hook + ".pftrace")
    argv = [sledtrace, "record", "-vv", "-o", trace, "--"] + cmd
    if hook == "every":
        argv = ["unshare", "-m", "--propagation", "private", "sh", "-c", UNMOUNT, "sh"] + argv
    status, out, err = run(argv, TIMEOUT, "sledtrace record (%s)" % hook)
    if status != 0:
        raise CheckFailed("record (%s) exited %d\n%s" % (hook, status, err))
    lines = err.splitlines()
    if HOOKS[hook] not in lines:
        raise CheckFailed("record (%s) did not say '%s':\n%s" % (hook, HOOKS[hook], err))
    expected, _ = parse_counts(out, "the fixture")
    rows, _ = get_report(sledtrace, trace, TIMEOUT)
    problems = compare_counts(expected, rows)
    if problems:
        raise CheckFailed("counts differ with the %s hook:\n%s" % (hook, "\n".join(problems)))
    print("%s hook: %d (thread, function) counts exact" % (hook, len(expected)))


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sledtrace, main_bin, lib = (os.path.abspath(a) for a in sys.argv[1:])
    try:
        with tempfile.TemporaryDirectory(prefix="sledtrace-mmap-hook-") as tmp:
            for hook in ("mmap", "every"):
                one(sledtrace, [main_bin, lib], tmp, hook)
    except CheckFailed as e:
        print("FAIL: %s" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
