#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_costs.py: record --costs (docs/DESIGN.md, "Costs") on fixtures
whose costs are known by construction: each prints, per thread and traced
function, what it did itself (COSTS lines: a number is exact, `-` not
controlled; `sys=` lists every system call by name, `none` is none), and
report --by-thread must say exactly that, self and inclusive, after the
trace went through the Perfetto file and its reader.

  --costs FIXTURE      tests/fixtures/costs.c: mallocs, glibc's other
                       allocators, frees, getppid, fresh pages, naps on
                       four threads; --runs times, every count exact every
                       time; report --syscalls agrees; a trace without
                       --costs has no cost fields and says costs=0
  --costs-cxx FIXTURE  tests/fixtures/costs_cxx.cc: new and delete
  --costs-rs FIXTURE   tests/fixtures/costs_rs.rs: a Vec's growth through
                       Rust's allocator (inclusive counts)
  --pool FIXTURE       tests/fixtures/costs_pool.c with --alloc-fn: an
                       allocator of the program's own, and a wrapper of
                       malloc that counts once; a forked child's own
  --pool -p            the same program already running: record -p
                       --follow attaches to it, then it works; its counts
                       and its forked child's are exact from the attach on
  bad input            --alloc-fn naming nothing, or without --costs: exit
                       2, one line, no trace written

Python 3 standard library only.
"""

import argparse
import functools
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

import checklib
from checklib import CheckFailed, expect, verdict

TIMEOUT = 120
COSTS_RE = re.compile(r"^COSTS tid=(\d+) fn=(\S+) scope=(self|incl) (.*)$")
# A fixture's key -> report's field (self; inclusive ones end in _total).
FIELDS = {"allocs": "allocs", "alloc_bytes": "alloc_bytes", "frees": "frees",
          "faults": "page_faults", "vcsw": "voluntary_switches"}

# The callers judge the exit status themselves; the commands keep the
# test's own stdin, as they always have here.
run = functools.partial(checklib.run, ok=None, timeout=TIMEOUT, stdin=None)


def record(st, trace, argv, extra=()):
    p = run([st, "record", "--costs", "-q", "-o", trace, *extra, "--", *argv])
    expect(p.returncode == 0, "record %s: exit %d: %s" % (argv[0], p.returncode, p.stderr))
    return p.stdout


def report_rows(st, trace, *extra):
    p = run([st, "report", "--by-thread", "--format=json", *extra, trace])
    expect(p.returncode == 0, "report: exit %d: %s" % (p.returncode, p.stderr))
    doc = json.loads(p.stdout)
    return {(r["tid"], r["function"]): r for r in doc["rows"]}, doc["stats"]


def expected_lines(out):
    """(tid, fn, scope) -> {key: value} of the fixture's COSTS lines."""
    want = {}
    for line in out.splitlines():
        m = COSTS_RE.match(line)
        if m:
            fields = dict(kv.split("=", 1) for kv in m.group(4).split())
            want[(int(m.group(1)), m.group(2), m.group(3))] = fields
    expect(want, "the fixture printed no COSTS lines")
    return want


def syscalls_of(text):
    if text == "none":
        return {}
    return {name: int(n) for name, n in (kv.split(":") for kv in text.split(","))}


def check_line(rows, key, fields, scope_filter):
    tid, fn, scope = key
    if scope not in scope_filter:
        return 0
    row = rows.get((tid, fn))
    if row is None:  # Rust's paths: costs_rs::grow_vec
        row = next((r for (t, name), r in rows.items()
                    if t == tid and name.endswith("::" + fn)), None)
    expect(row is not None, "no report row for %s on thread %d" % (fn, tid))
    where = "%s on thread %d (%s)" % (fn, tid, scope)
    expect(row["calls"] == int(fields["calls"]),
           "%s: %d calls, the fixture made %s" % (where, row["calls"], fields["calls"]))
    suffix = "" if scope == "self" else "_total"
    n = 0
    for k, name in FIELDS.items():
        if fields.get(k, "-") == "-":
            continue
        got = row[name + suffix]
        expect(got == int(fields[k]), "%s: %s %d, the fixture counted %s" %
               (where, name, got, fields[k]))
        n += 1
    if fields.get("sys", "-") != "-":
        want = syscalls_of(fields["sys"])
        expect(row["syscalls" + suffix] == sum(want.values()),
               "%s: %d syscalls, the fixture made %s" % (where, row["syscalls" + suffix],
                                                        fields["sys"]))
        if scope == "self":
            expect(row["syscalls_by_name"] == want, "%s: syscalls %s, the fixture made %s" %
                   (where, row["syscalls_by_name"], want))
        n += 1
    return n


def check_run(st, fixture, trace, scopes=("self", "incl"), extra=()):
    out = record(st, trace, [fixture], extra)
    rows, stats = report_rows(st, trace)
    expect(stats.get("costs") == 1, "stats do not say costs=1: %s" % stats.get("costs"))
    expect(stats.get("cost_drops") == 0, "cost records dropped: %s" % stats.get("cost_drops"))
    return sum(check_line(rows, k, f, scopes) for k, f in expected_lines(out).items())


def check_syscalls_report(st, trace, out_lines):
    """report --syscalls: each function's system calls by name, summed over
    threads, as the fixture's COSTS_TOTAL lines say."""
    p = run([st, "report", "--syscalls", "--format=json", trace])
    expect(p.returncode == 0, "report --syscalls: exit %d: %s" % (p.returncode, p.stderr))
    got = {}
    for r in json.loads(p.stdout)["rows"]:
        got.setdefault(r["function"], {})[r["syscall"]] = r["count"]
    for line in out_lines:
        m = re.match(r"^COSTS_TOTAL fn=(\S+) scope=self .*sys=(\S+)", line)
        if m and m.group(2) != "-":
            want = syscalls_of(m.group(2))
            expect(got.get(m.group(1), {}) == want, "report --syscalls: %s made %s, the "
                   "fixture %s" % (m.group(1), got.get(m.group(1)), want))


def check_costs_fixture(st, fixture, tmp, runs):
    n = 0
    for i in range(runs):
        trace = os.path.join(tmp, "costs-%d.pftrace" % i)
        n = check_run(st, fixture, trace)
    out = record(st, os.path.join(tmp, "sys.pftrace"), [fixture])
    check_syscalls_report(st, os.path.join(tmp, "sys.pftrace"), out.splitlines())
    # without --costs: no counts, and the trace says it has none
    plain = os.path.join(tmp, "plain.pftrace")
    p = run([st, "record", "-q", "-o", plain, "--", fixture])
    expect(p.returncode == 0, "record without --costs: %s" % p.stderr)
    doc = json.loads(run([st, "report", "--format=json", plain]).stdout)
    expect(doc["stats"].get("costs") == 0, "a trace without --costs says costs=%s" %
           doc["stats"].get("costs"))
    expect(all("allocs" not in r for r in doc["rows"]), "a trace without --costs has allocs")
    p = run([st, "report", "--syscalls", plain])
    expect(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1,
           "report --syscalls of a trace without costs: exit %d, %r" %
           (p.returncode, p.stderr))
    return n


def check_attached(st, fixture, tmp):
    """record -p --follow: the allocators of a running process, and of the
    child it forks, are probed from the attach on."""
    trace = os.path.join(tmp, "attached.pftrace")
    prog = subprocess.Popen([fixture, "--wait"], stdout=subprocess.PIPE, text=True)
    try:
        expect(prog.stdout.readline().strip() == "READY", "the fixture did not start")
        rec = subprocess.Popen([st, "record", "--costs", "--alloc-fn=pool_alloc",
                                "--alloc-fn=pool_malloc", "--follow", "-p",
                                str(prog.pid), "-o", trace],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        # record says "... attached to process N" once its probes are live
        said = []
        for line in rec.stderr:
            said.append(line)
            if "attached" in line:
                break
        expect(any("attached" in l for l in said), "record -p never attached: %s" % said)
        os.kill(prog.pid, signal.SIGUSR1)
        out = prog.stdout.read()
        prog.wait(timeout=TIMEOUT)
        _, err = rec.communicate(timeout=TIMEOUT)
        err = "".join(said) + err
        expect(rec.returncode == 0, "record -p: exit %d: %s" % (rec.returncode, err))
    finally:
        if prog.poll() is None:
            prog.kill()
    rows, stats = report_rows(st, trace)
    expect(stats.get("costs") == 1, "record -p: stats do not say costs=1")
    return sum(check_line(rows, k, f, ("self",)) for k, f in expected_lines(out).items())


def check_bad_input(st, fixture, tmp):
    trace = os.path.join(tmp, "bad.pftrace")
    for extra in (["--costs", "--alloc-fn=no_such_allocator"], ["--alloc-fn=malloc"]):
        p = run([st, "record", "-q", "-o", trace, *extra, "--", fixture])
        expect(p.returncode == 2, "record %s: exit %d, not 2" % (" ".join(extra), p.returncode))
        expect(len(p.stderr.strip().splitlines()) == 1, "record %s: not one line: %r" %
               (" ".join(extra), p.stderr))
        expect(not os.path.exists(trace), "record %s wrote a trace" % " ".join(extra))


def check(a):
    with tempfile.TemporaryDirectory() as tmp:
        if a.costs:
            n = check_costs_fixture(a.sledtrace, a.costs, tmp, a.runs)
            print("ok: %d runs of costs, %d counts exact each time; --syscalls agrees; "
                  "none without --costs" % (a.runs, n))
            check_bad_input(a.sledtrace, a.costs, tmp)
            print("ok: bad --alloc-fn: exit 2, one line, no trace")
        if a.costs_cxx:
            n = check_run(a.sledtrace, a.costs_cxx, os.path.join(tmp, "cxx.pftrace"))
            print("ok: C++ new and delete, %d counts exact" % n)
        if a.costs_rs:
            n = check_run(a.sledtrace, a.costs_rs, os.path.join(tmp, "rs.pftrace"),
                          scopes=("incl",))
            print("ok: a Rust Vec's growth, %d counts exact" % n)
        if a.pool:
            n = check_run(a.sledtrace, a.pool, os.path.join(tmp, "pool.pftrace"),
                          extra=("--alloc-fn=pool_alloc", "--alloc-fn=pool_malloc"))
            print("ok: --alloc-fn, %d counts exact (a wrapper of malloc counts once, a "
                  "forked child has its own)" % n)
            n = check_attached(a.sledtrace, a.pool, tmp)
            print("ok: record -p --follow: %d counts exact from the attach on, the forked "
                  "child's too" % n)
        if not (a.costs or a.costs_cxx or a.costs_rs or a.pool):
            raise CheckFailed("nothing to check")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--costs")
    ap.add_argument("--costs-cxx")
    ap.add_argument("--costs-rs")
    ap.add_argument("--pool")
    ap.add_argument("--runs", type=int, default=10)
    a = ap.parse_args()
    return verdict(check, a, errors=(subprocess.TimeoutExpired, KeyError, ValueError),
                   passed=None)


if __name__ == "__main__":
    sys.exit(main())
