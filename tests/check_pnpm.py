#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_pnpm.py: `sledtrace record -- pnpm test` on a pnpm workspace.

tests/pnpm/ holds a workspace of two packages whose `pnpm test` runs node's
test runner over two files each; node runs every file in a process of its
own, and each file loads a Node-API addon built with clang XRay
(tests/pnpm/addon/addon.c), which counts its own calls and writes them at
exit.  The trace must hold exactly those calls in each of the four node
processes that ran a test file, and nothing else: node and pnpm have no
sleds and are left alone.  Nothing is downloaded: pnpm and the headers
come from scripts/bootstrap, the workspace has no dependencies.

With -v among the record options, record must also say once that the
addon's rewritten copy is bound for the node processes that load it later.

Usage: check_pnpm.py SLEDTRACE WORKSPACE ADDON PNPM [RECORD_OPTION...]
"""
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_counts  # noqa: E402

ADDON_FUNCS = {"sum_squares", "square", "fib_rec"}
TEST_FILES = 4


def prepare(tmp, workspace, addon, pnpm, env=None):
    """A copy of the workspace in tmp, where the counters go, and the
    environment its tests need (env, or ours, plus what the tests read):
    (workspace copy, counts dir, env)."""
    ws = os.path.join(tmp, "ws")
    shutil.copytree(workspace, ws)
    counts_dir = os.path.join(tmp, "counts")
    os.mkdir(counts_dir)
    env = dict(env or os.environ)
    env.update(SLEDTRACE_ADDON=addon, SLEDTRACE_COUNTS=counts_dir,
               PATH=os.path.dirname(pnpm) + ":" + env.get("PATH", ""))
    return ws, counts_dir, env


def check_trace(sledtrace, trace, counts_dir, stdout, uncounted=None):
    """Problems with a recording of `pnpm test`: both packages' test runs
    passed, four node processes wrote counts, and the trace holds exactly
    those calls and nothing else outside the functions matching the regex
    `uncounted` (the addon's NAPI_MODULE functions have sleds but no
    counters).  Returns (problems, a one-line summary, the counts the node
    processes wrote: {(pid, function): calls})."""
    problems = []
    passed = [l for l in stdout.splitlines() if l.startswith("# pass ")]
    if passed != ["# pass 4", "# pass 4"]:
        problems.append("the test runs reported %s, expected two '# pass 4'" % passed)
    expected = collections.Counter()
    files = glob.glob(os.path.join(counts_dir, "*.txt"))
    for name in files:
        with open(name) as f:
            expected.update(check_counts.parse_counts(f.read(), name)[0])
    if len(files) != TEST_FILES:
        problems.append("%d node processes wrote counts, expected %d" % (len(files), TEST_FILES))
    rows, _ = check_counts.get_report(sledtrace, trace, 60)
    rows = {k: v for k, v in rows.items() if not (uncounted and re.search(uncounted, k[1]))}
    problems += check_counts.compare_counts(dict(expected), rows)
    others = sorted({f for _, f in rows} - ADDON_FUNCS)
    if others:
        problems.append("functions outside the addon in the trace: %s" % others)
    summary = "%d node processes, %d (process, function) counts compared" % (
        len(files), len(expected))
    return problems, summary, dict(expected)


def main():
    sledtrace, workspace, addon, pnpm = (os.path.abspath(a) for a in sys.argv[1:5])
    extra = sys.argv[5:]
    with tempfile.TemporaryDirectory() as tmp:
        ws, counts_dir, env = prepare(tmp, workspace, addon, pnpm)
        trace = os.path.join(tmp, "t.pftrace")
        r = subprocess.run([sledtrace, "record", "-o", trace] + extra + ["--", pnpm, "test"],
                           cwd=ws, env=env, capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            sys.exit("sledtrace record -- pnpm test exited %d\n--- stdout ---\n%s\n"
                     "--- stderr ---\n%s" % (r.returncode, r.stdout[-3000:], r.stderr))
        problems, summary, _ = check_trace(sledtrace, trace, counts_dir, r.stdout)
        if "-v" in extra:
            # The first node process maps the addon at a hold; its copy is
            # bound for the later ones (record/copies.h).
            bound = [l for l in r.stderr.splitlines() if "sledtrace_addon.node: rewritten copy "
                     "bound in the command's namespace" in l]
            if len(bound) != 1:
                problems.append("record -v says %d times that the addon's copy is bound, "
                                "expected once" % len(bound))
        print("%s; %s" % (summary, r.stderr.strip().splitlines()[-1]))
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
