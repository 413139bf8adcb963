#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_xray_runtime.py: record says when the target's own XRay runtime
patched the sleds.

The fixture is linked with LLVM's XRay runtime.  Run under
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic", the runtime rewrites
every sled before main and sledtrace's probes on them never fire: record
must still run the program unharmed (its exit status and output) and end
with one warning line naming patch_premain, even with --quiet.  Run without
XRAY_OPTIONS the same binary is traced with exact counts and no warning,
through rewritten sleds: a linked runtime that is not told to patch never
touches them.
Runs in a temporary directory: the runtime writes xray-log files into its
working directory.

Usage: check_xray_runtime.py SLEDTRACE FIXTURE
"""

import os
import subprocess
import sys
import tempfile

WARNING = "links LLVM's XRay runtime and XRAY_OPTIONS has patch_premain=true"


def record(st, fixture, work, env):
    trace = os.path.join(work, "t.pftrace")
    p = subprocess.run([st, "record", "-q", "-o", trace, "--", fixture], cwd=work,
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=120)
    counts = {}
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) == 4 and f[0] == "COUNT":
            counts[f[2]] = counts.get(f[2], 0) + int(f[3])
    rep = subprocess.run([st, "report", "--format=tsv", trace], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    traced = {}
    for line in rep.splitlines()[1:]:  # tid, function, calls, total_ns, self_ns
        f = line.split("\t")
        if len(f) >= 5 and f[2].isdigit():  # the first five columns are stable
            traced[f[1]] = traced.get(f[1], 0) + int(f[2])
    return p.returncode, counts, traced, [l for l in p.stderr.splitlines()
                                          if l.startswith("sledtrace: ")]


def main():
    st, fixture = map(os.path.abspath, sys.argv[1:3])
    problems = []
    with tempfile.TemporaryDirectory(prefix="sledtrace-xrt-") as work:
        env = dict(os.environ)
        env.pop("XRAY_OPTIONS", None)
        status, counts, traced, lines = record(st, fixture, work, env)
        print("without XRAY_OPTIONS: exit %d, fixture %s, trace %s, %s"
              % (status, counts, traced, lines))
        if status != 0 or not counts:
            problems.append("the fixture did not run cleanly without XRAY_OPTIONS")
        if any(traced.get(k) != v for k, v in counts.items()):
            problems.append("without XRAY_OPTIONS the counts differ: %s vs %s"
                            % (counts, traced))
        if lines:
            problems.append("unexpected lines without XRAY_OPTIONS: %s" % lines)
        v = subprocess.run([st, "record", "-v", "-o", "/dev/null", "--", fixture], cwd=work,
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True, timeout=120).stderr
        if "exits: rewritten sleds" not in v:
            problems.append("without XRAY_OPTIONS the sleds were not rewritten:\n" + v)
        env["XRAY_OPTIONS"] = "patch_premain=true xray_mode=xray-basic"
        status, counts2, traced, lines = record(st, fixture, work, env)
        print("patch_premain=true: exit %d, trace %s, %s" % (status, traced, lines))
        if status != 0 or counts2 != counts:
            problems.append("with patch_premain the fixture did not run as before: "
                            "exit %d, %s" % (status, counts2))
        if traced == counts:
            problems.append("test bug: the runtime did not patch (every call was traced)")
        warn = [l for l in lines if WARNING in l]
        if len(warn) != 1 or len(lines) != 1:
            problems.append("expected exactly one warning line with %r, got %s"
                            % (WARNING, lines))
    if problems:
        print("FAIL:\n  " + "\n  ".join(problems))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
