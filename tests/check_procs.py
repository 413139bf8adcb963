#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_procs.py: `sledtrace record -- CMD` traces CMD's whole process tree.

Runs tests/fixtures/tree.sh (a shell script: XRay fixtures in sequence, in
parallel, under `sh -c`, a fork without exec and a vfork + exec) under
sledtrace, while an untraced run of the loop fixture - the same binary the
tree runs - goes on beside it.  Every process of the tree prints its own
`COUNT <tid> <function> <n>` lines; the trace must hold exactly those calls
per thread, and nothing of the process outside the tree (which still hits
the probes: they are attached to the file for every process).

A function name that several traced objects share carries its object in
the trace (`main [calltree]`); the fixtures cannot know which one was
seen first, so names are compared without that suffix, summed per thread.

Usage: check_procs.py SLEDTRACE TREE.SH FIXTURE_DIR [RECORD_OPTION...]
       check_procs.py --no-sleds SLEDTRACE NOSLEDS_BINARY
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_counts  # noqa: E402

SUFFIX = re.compile(r" \[[^\]]+\]$")


def counts_of(stdout):
    out = collections.Counter()
    for line in stdout.splitlines():
        m = check_counts.COUNT_RE.match(line)
        if m:
            out[(int(m.group(1)), m.group(2))] += int(m.group(3))
    return out


def no_sleds(sledtrace, cmd):
    """A tree that never maps an object with sleds: the command runs as
    usual and one line says so."""
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([sledtrace, "record", "-q", "-o", os.path.join(tmp, "t.pftrace"),
                            "--", cmd], capture_output=True, text=True, timeout=60)
    want = ("sledtrace: no process of the tree mapped an object with sleds "
            "(build with clang -fxray-instrument)\n")
    untraced = subprocess.run([cmd], capture_output=True, text=True).stdout
    print("status %d, stdout %r, stderr %r" % (r.returncode, r.stdout, r.stderr))
    sys.exit(0 if (r.returncode, r.stdout, r.stderr) == (0, untraced, want) else 1)


def main():
    if sys.argv[1] == "--no-sleds":
        no_sleds(os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]))
    sledtrace, script, fixdir = (os.path.abspath(a) for a in sys.argv[1:4])
    extra = sys.argv[4:]  # e.g. --exit=sled
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.pftrace")
        go = os.path.join(tmp, "go")
        rec = subprocess.Popen([sledtrace, "record", "-o", trace] + extra
                               + ["--", script, fixdir, go],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        before = []
        for line in rec.stdout:
            if line.strip() == "WAITING":
                break
            before.append(line)
        # Started once the tree's loop has been probed, so it runs into
        # the probes; the tree waits for it (the go file) and runs the
        # same binary again.
        outsider = subprocess.Popen([os.path.join(fixdir, "loop"), "3000000"],
                                    stdout=subprocess.PIPE, text=True)
        open(go, "w").close()
        out = []
        for line in rec.stdout:  # up to the tree's last line
            if line.strip() == "TREE-END":
                break
            out.append(line)
        out = "".join(out)
        overlapped = outsider.poll() is None
        err = rec.communicate(timeout=300)[1]
        outsider_out = outsider.communicate(timeout=300)[0]
        rec.stdout, rec.stderr = "".join(before) + out, err
        if rec.returncode != 0:
            sys.exit("sledtrace exited %d:\n%s" % (rec.returncode, rec.stderr))
        if not overlapped:
            problems.append("the outside process ended before the tree: nothing shown")
        if outsider.returncode != 0:
            problems.append("the outside process failed")
        expected = counts_of(rec.stdout)
        rows, _ = check_counts.get_report(sledtrace, trace, 60, exact_names=True)
        got = collections.Counter()
        for (tid, func), (calls, _, _) in rows.items():
            got[(tid, SUFFIX.sub("", func))] += calls
        problems += check_counts.compare_counts(dict(expected), {k: (v, 0, 0) for k, v in got.items()})
        outside = {tid for tid, _ in counts_of(outsider_out)}
        seen = {tid for tid, _ in got if tid in outside}
        if seen:
            problems.append("the process outside the tree is in the trace: %s" % seen)
        pids = {tid for tid, _ in expected}
        print("%d threads, %d (thread, function) counts compared" % (len(pids), len(expected)))
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
