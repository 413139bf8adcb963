#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_tree.py: records a fixture and checks the shape of its calls, not
just their counts: the folded call paths (`sledtrace convert --to=folded
--weight=calls`) must equal an expected file exactly, so a tail call that
came out nested, or a frame a longjmp or exception skipped that swallowed
its siblings, fails.  Also requires no unmatched exit: a traced run that
starts at exec sees every frame's entry."""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_counts import get_stats  # noqa: E402  (one stats parser)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--exit", default="auto")
    ap.add_argument("--attach", default="auto")
    ap.add_argument("--expected", required=True)
    ap.add_argument("fixture", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.fixture[1:] if a.fixture and a.fixture[0] == "--" else a.fixture
    st = os.path.abspath(a.sledtrace)
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.pftrace")
        rec = subprocess.run([st, "record", "--quiet", "--exit=" + a.exit,
                              "--attach=" + a.attach, "-o", trace, "--"] + cmd,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             timeout=300)
        if not os.path.exists(trace):
            sys.exit("record wrote no trace (status %d): %s" % (rec.returncode, rec.stderr))
        folded = subprocess.run([st, "convert", "--to=folded", "--weight=calls", trace],
                                capture_output=True, text=True, check=True).stdout
        stats, _ = get_stats(st, trace, 120)
    got = sorted(folded.splitlines())
    with open(a.expected) as f:
        want = sorted(f.read().splitlines())
    ok = True
    if got != want:
        ok = False
        print("call paths differ from %s:" % a.expected)
        for line in sorted(set(want) - set(got)):
            print("  missing: " + line)
        for line in sorted(set(got) - set(want)):
            print("  extra:   " + line)
    if stats["unmatched_exits"] != 0:
        ok = False
        print("expected unmatched_exits=0, the trace has %d" % stats["unmatched_exits"])
    if not ok:
        sys.exit(1)
    print("%d call paths as expected" % len(got))


if __name__ == "__main__":
    main()
