#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_oncpu.py: `sledtrace report`'s on-CPU columns on a real recording.

Records tests/fixtures/durations.c, whose nap() sleeps 3 ms on each of its
3 calls (from slow_parent, called 3 times by main; the fixture prints the
counts), once as `record` does by default (with the scheduler's switches
of the traced threads) and once with --no-sched.  Then:
  with switches     the stats count them; every row of every format has
                    cpu_total_ns <= total_ns and cpu_self_ns <= self_ns;
                    nap's self time less its on-CPU self time (WAIT) is
                    at least the 3 x 3 ms it slept (less 10% for the
                    clock), and so is the time main and slow_parent spent
                    off the CPU below them (total less cpu); --sort=wait
                    puts nap first; the table shows CPU, CPU-SELF and
                    WAIT; compensated on-CPU times are at most the raw
  --no-sched        no switches, on-CPU times equal to wall times in every
                    row, and the table without the on-CPU columns
  both              TSV and CSV have cpu_total_ns, cpu_self_ns as their
                    16th and 17th columns (later ones only ever added
                    after them), equal to the JSON's, and the calls equal
                    the fixture's
Python 3 standard library only.
"""

import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys
import tempfile

from checklib import CheckFailed, run, verdict

COUNT_RE = re.compile(r"^COUNT (\d+) (\S+) (\d+)$")
SLEEP_NS = 3 * 3000 * 1000 * 9 // 10  # nap's 3 sleeps of 3 ms, less 10%
CPU_COLS = ["cpu_total_ns", "cpu_self_ns"]


def record(st, fixture, trace, extra):
    out = run([st, "record", "--quiet", "-o", trace] + extra + ["--", fixture]).stdout
    counts = {m.group(2): int(m.group(3)) for m in map(COUNT_RE.match, out.splitlines()) if m}
    if counts != {"main": 1, "slow_parent": 3, "nap": 3}:
        raise CheckFailed("the fixture counted %s" % counts)
    return counts


def report(st, trace, *args):
    return run([st, "report"] + list(args) + [trace]).stdout


def json_rows(st, trace, *args):
    doc = json.loads(report(st, trace, "--format=json", *args))
    return {r["function"]: r for r in doc["rows"]}, doc["stats"]


def check_flat(st, trace, rows):
    """TSV and CSV: the columns after `elided`, equal to the JSON's."""
    for fmt in ("tsv", "csv"):
        text = report(st, trace, "--format=" + fmt)
        lines = [l for l in text.splitlines() if not l.startswith("#")]
        table = list(csv.reader(io.StringIO("\n".join(lines)),
                                delimiter="\t" if fmt == "tsv" else ","))
        if table[0][14:17] != ["elided"] + CPU_COLS:
            raise CheckFailed("%s header's columns 15-17: %s" % (fmt, table[0][14:17]))
        for r in table[1:]:
            got = dict(zip(table[0], r))
            want = rows[got["function"]]
            if [int(got[c]) for c in CPU_COLS] != [want[c] for c in CPU_COLS]:
                raise CheckFailed("%s row %s, JSON %s" % (fmt, got, want))


def check_with_switches(st, trace, counts):
    rows, stats = json_rows(st, trace, "--times=raw")
    if stats["switches"] <= 0:
        raise CheckFailed("a default recording counted no scheduler switches: %s" % stats)
    for f, n in counts.items():
        if rows[f]["calls"] != n:
            raise CheckFailed("%s: %d calls, the fixture counted %d" % (f, rows[f]["calls"], n))
    for r in rows.values():
        if not (r["cpu_total_ns"] <= r["total_ns"] and r["cpu_self_ns"] <= r["self_ns"]):
            raise CheckFailed("on-CPU time above wall time: %s" % r)
    nap = rows["nap"]
    if nap["self_ns"] - nap["cpu_self_ns"] < SLEEP_NS:
        raise CheckFailed("nap slept 3 x 3 ms, its self time off the CPU is %d ns: %s"
                          % (nap["self_ns"] - nap["cpu_self_ns"], nap))
    for f in ("main", "slow_parent"):
        if rows[f]["total_ns"] - rows[f]["cpu_total_ns"] < SLEEP_NS:
            raise CheckFailed("%s's total holds nap's sleeps, yet its on-CPU total is only "
                              "%d ns less: %s" % (f, rows[f]["total_ns"] - rows[f]["cpu_total_ns"],
                                                  rows[f]))
    comp, _ = json_rows(st, trace)
    for f, r in comp.items():
        if r["cpu_total_ns"] > rows[f]["cpu_total_ns"] or r["cpu_self_ns"] > rows[f]["cpu_self_ns"]:
            raise CheckFailed("compensated on-CPU times above the raw: %s vs %s" % (r, rows[f]))
    first, _ = json_rows(st, trace, "--sort=wait", "--top=1")
    if list(first) != ["nap"]:
        raise CheckFailed("--sort=wait puts %s first, not nap" % list(first))
    table = report(st, trace).splitlines()
    if not re.match(r"^ +CALLS +TOTAL +SELF +CPU +CPU-SELF +WAIT +MIN .* FUNCTION$", table[1]):
        raise CheckFailed("the table's header with switches:\n%s" % table[1])
    check_flat(st, trace, comp)
    print("with switches: nap waited %.1f ms of its %.1f ms self time"
          % ((nap["self_ns"] - nap["cpu_self_ns"]) / 1e6, nap["self_ns"] / 1e6))


def check_without(st, trace, counts):
    rows, stats = json_rows(st, trace)
    if stats["switches"] != 0:
        raise CheckFailed("--no-sched recorded %d switches" % stats["switches"])
    for r in rows.values():
        if (r["cpu_total_ns"], r["cpu_self_ns"]) != (r["total_ns"], r["self_ns"]):
            raise CheckFailed("without switches on-CPU time is wall time: %s" % r)
    if {f: rows[f]["calls"] for f in counts} != counts:
        raise CheckFailed("calls %s, the fixture counted %s" % (rows, counts))
    header = report(st, trace).splitlines()[1]
    if "CPU" in header or not re.match(r"^ +CALLS +TOTAL +SELF +MIN ", header):
        raise CheckFailed("the table's header without switches:\n%s" % header)
    check_flat(st, trace, rows)
    print("--no-sched: on-CPU times equal wall times, no on-CPU columns")


def check(st, fixture, tmp):
    with_sched = os.path.join(tmp, "sched.pftrace")
    check_with_switches(st, with_sched, record(st, fixture, with_sched, []))
    without = os.path.join(tmp, "nosched.pftrace")
    check_without(st, without, record(st, fixture, without, ["--no-sched"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("fixture", help="tests/fixtures/durations.c built")
    a = ap.parse_args()
    st = os.path.abspath(a.sledtrace)
    with tempfile.TemporaryDirectory(prefix="sledtrace-oncpu-") as tmp:
        return verdict(check, st, a.fixture, tmp, errors=(subprocess.SubprocessError,))


if __name__ == "__main__":
    sys.exit(main())
