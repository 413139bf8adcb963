#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_names_distinct.py: two functions that would show the same name
(static `helper` in two files) must get distinct names in the trace, told
apart by file:line, with each one's own call count."""
import os
import subprocess
import sys
import tempfile

sledtrace, fixture = map(os.path.abspath, sys.argv[1:3])
with tempfile.TemporaryDirectory() as tmp:
    trace = os.path.join(tmp, "t.pftrace")
    subprocess.run([sledtrace, "record", "-q", "-o", trace, "--", fixture], check=True)
    tsv = subprocess.run([sledtrace, "report", "--format=tsv", trace], check=True,
                         capture_output=True, text=True).stdout
calls = {line.split("\t")[1]: int(line.split("\t")[2]) for line in tsv.splitlines()[1:]
         if not line.startswith("#")}
want = {"helper (samename_a.c:6)": 1, "helper (samename_b.c:3)": 2, "run_b": 1, "main": 1}
if calls != want:
    sys.exit("expected %s, trace has %s" % (want, calls))
print("distinct names and counts as expected")
