#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench --budget --by-thread: the calls of threads that share a name add up.

bench takes calls from one run a side with every function probed and times
from budgeted runs.  Under --by-thread a function's row is keyed by thread
name, and the threads of tests/fixtures/threads.c are all named after the
program: their calls must be the sum over the threads, as the fixture
counts them itself (its COUNT lines, kept in base-calls.log), not the last
thread's.  The same for the call paths, which are not per thread.
"""
import argparse
import collections
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import expect, run, verdict  # noqa: E402


def fixture_counts(log):
    """function -> calls, summed over the fixture's threads."""
    calls = collections.Counter()
    for fn, n in re.findall(r"^COUNT \d+ (\S+) (\d+)$", open(log).read(), re.M):
        calls[fn] += int(n)
    return calls


def check(sledtrace, fixture, tmp, by):
    out = os.path.join(tmp, by)
    run([sledtrace, "bench", "--base", fixture, "--head", fixture, "-n", "1", "--" + by,
         "-o", out, "--fail-on=calls>0%"], timeout=240)
    doc = json.load(open(os.path.join(out, "diff.json")))
    groups = {r["group"] for r in doc["functions"]}
    expect(len(groups) == 1 and None not in groups,
           "bench --%s: rows of groups %s, expected one name" % (by, groups))
    for side in ("base", "head"):
        want = fixture_counts(os.path.join(out, side + "-calls.log"))
        got = {r["function"]: r["calls"][side]["median"] for r in doc["functions"]}
        expect(got == dict(want), "bench --%s, %s: calls %s, the fixture counted %s"
               % (by, side, got, dict(want)))
        edges = {(e["caller"], e["callee"]): e["calls"][side]["median"] for e in doc["edges"]}
        expect(edges.get(("t_branch", "t_leaf")) == want["t_branch"] * 2,
               "bench --%s, %s: t_branch -> t_leaf %s, expected %d"
               % (by, side, edges.get(("t_branch", "t_leaf")), want["t_branch"] * 2))


def check_all(a):
    with tempfile.TemporaryDirectory(prefix="sledtrace-bench-groups-") as tmp:
        for by in ("by-thread", "by-process"):
            check(a.sledtrace, a.threads, tmp, by)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--threads", required=True, help="tests/fixtures/threads built")
    return verdict(check_all, ap.parse_args(),
                   passed="PASS: bench --by-thread/--by-process: calls of one name's threads "
                          "add up")


if __name__ == "__main__":
    sys.exit(main())
