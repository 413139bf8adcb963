#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_mmap_hook.py: both hooks that hold a traced process at a new
executable mapping keep a dlopen'ed library's counts exact, and the fast
one is used whether or not tracefs is mounted.

sledtrace holds at mmap's own syscall tracepoint, whose id it reads from
a tracefs its mount namespace has, else from a detached tracefs mount of
its own; where the kernel has no such tracepoint it falls back to the raw
syscall exit tracepoint.  The fixture dlopens a library with sleds after
start; each run must say (with -v) which hook it used, and the trace must
hold exactly the fixture's counts.  Three runs, none depending on what
the machine has mounted:
  fresh     in a private mount namespace with every tracefs unmounted:
            the mmap tracepoint, its id from a detached mount, and the
            namespace's mount table is the same after the run as before;
  mounted   in a private mount namespace whose only tracefs is mounted on
            a directory of the test's: the mmap tracepoint, its id from
            that tracefs;
  fallback  SLEDTRACE_NO_MMAP_TRACEPOINT=1 (record decides as on a kernel
            without syscall tracepoints): the raw syscall exit.

Usage: check_mmap_hook.py SLEDTRACE SOLIB_MAIN LIBRARY
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_counts import (CheckFailed, compare_counts, get_report,  # noqa: E402
                          parse_counts, run)
from checklib import verdict  # noqa: E402

TIMEOUT = 60
FAST = "sledtrace: holds: mmap syscall tracepoint (id from "
SLOW = "sledtrace: holds: raw syscall-exit fallback ("
# $1: a directory for the mount tables, $2: where to mount tracefs (or "").
# Exits 97 when tracefs cannot be unmounted or mounted as asked.
NAMESPACE = r"""
dir=$1 at=$2; shift 2
for m in $(awk '$3 == "tracefs" { print $2 }' /proc/self/mounts); do umount "$m" || exit 97; done
if awk '$3 == "tracefs"' /proc/self/mounts | grep -q .; then exit 97; fi
if [ -n "$at" ]; then mount -t tracefs tracefs "$at" || exit 97; fi
cat /proc/self/mountinfo > "$dir/before"
"$@"
status=$?
cat /proc/self/mountinfo > "$dir/after"
exit $status
"""


def hook_line(err, prefix):
    lines = [l for l in err.splitlines() if l.startswith("sledtrace: holds: ")]
    if len(lines) != 1 or not lines[0].startswith(prefix):
        raise CheckFailed("expected one line starting '%s', got %r:\n%s" % (prefix, lines, err))
    return lines[0]


def same_mounts(tmp, case):
    with open(os.path.join(tmp, "before")) as f:
        before = f.read()
    with open(os.path.join(tmp, "after")) as f:
        after = f.read()
    if before != after:
        raise CheckFailed("%s: the mount table changed during the run:\nbefore:\n%s\nafter:\n%s" %
                          (case, before, after))


def one(sledtrace, cmd, tmp, case):
    trace = os.path.join(tmp, case + ".pftrace")
    argv = [sledtrace, "record", "-v", "-o", trace, "--"] + cmd
    env = None
    mnt = os.path.join(tmp, "tracefs")
    if case == "fallback":
        env = dict(os.environ, SLEDTRACE_NO_MMAP_TRACEPOINT="1")
    else:
        os.makedirs(mnt, exist_ok=True)
        argv = ["unshare", "-m", "--propagation", "private", "sh", "-c", NAMESPACE, "sh",
                tmp, mnt if case == "mounted" else ""] + argv
    status, out, err = run(argv, TIMEOUT, "sledtrace record (%s)" % case, env=env)
    if status == 97:
        raise CheckFailed("%s: could not set up tracefs in the private namespace\n%s" % (case, err))
    if status != 0:
        raise CheckFailed("record (%s) exited %d\n%s" % (case, status, err))
    want = {"fresh": FAST + "a detached tracefs mount)",
            "mounted": FAST + "tracefs at %s)" % mnt,
            "fallback": SLOW + "SLEDTRACE_NO_MMAP_TRACEPOINT)"}[case]
    line = hook_line(err, FAST if case != "fallback" else SLOW)
    if line != want:
        raise CheckFailed("record (%s) said '%s', expected '%s'" % (case, line, want))
    if case == "fresh":
        same_mounts(tmp, case)
    expected, _ = parse_counts(out, "the fixture")
    rows, _ = get_report(sledtrace, trace, TIMEOUT)
    problems = compare_counts(expected, rows)
    if problems:
        raise CheckFailed("counts differ (%s):\n%s" % (case, "\n".join(problems)))
    print("%s: %s; %d (thread, function) counts exact" % (case, line, len(expected)))


def check(sledtrace, main_bin, lib, tmp):
    for case in ("fresh", "mounted", "fallback"):
        one(sledtrace, [main_bin, lib], tmp, case)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sledtrace, main_bin, lib = (os.path.abspath(a) for a in sys.argv[1:])
    with tempfile.TemporaryDirectory(prefix="sledtrace-mmap-hook-") as tmp:
        return verdict(check, sledtrace, main_bin, lib, tmp, fail_to=sys.stdout, passed=None)


if __name__ == "__main__":
    sys.exit(main())
