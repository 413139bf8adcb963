#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_bmf.py: Bencher Metric Format (BMF) from `report --format=bmf` and
`bench --bmf=FILE`, validated against the format's schema by an independent
validator (Ajv, tests/npm/validate_json.mjs, with tests/bmf.schema.json) and
held to the numbers sledtrace prints elsewhere.

Cases (--case):
  report     records FIXTURE, whose COUNT lines are its own exact counts;
             report --format=bmf: a benchmark per function whose calls,
             total-time and self-time equal `report --format=json` (and the
             fixture's counts) exactly, with --times=raw too, on-CPU
             measures exactly when the trace has switches, no bounds (one
             trace); --by-thread and --by-process name "FN@THREAD" and
             "FN@PROCESS", rows of one name added up; --function and --top
             keep the rows the JSON keeps; --callers is refused; with
             --record-arg=--costs the measures allocs, alloc-bytes,
             syscalls and page-faults equal the JSON's self counts (and are
             absent from a trace recorded without --costs)
  bench      bench --bmf of diffwork's two builds (-n 3): the head side,
             value = the median diff.json shows for head, lower_value and
             upper_value = its min and max; calls exact (the fixture's own
             counts), without bounds under --budget (one run) and with them
             with --budget=off; a function the budget left unprobed has its
             calls only; the file is written when a rule fires (exit 1)
  bad-input  --bmf to a missing directory, a directory, a dangling symlink
             or '-': exit 2, one `sledtrace: ` line, before any run (no
             trace recorded), nothing created; runs that cannot be compared:
             exit 2 and an existing FILE left as it was (no half-written
             file)
Every document is also checked for what JSON Schema cannot say: strict
UTF-8, names of at most 1024 bytes, lower_value <= value <= upper_value.
Python 3 standard library, plus node for the validator.
"""

import argparse
import collections
import functools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

import checklib
from checklib import CheckFailed, verdict

COUNT_RE = re.compile(r"^COUNT (\d+) (\S+) (\d+)$")
TIMEOUT = 240

# The log shows every command and its exit status.
run = functools.partial(checklib.run, timeout=TIMEOUT, echo=200)


def counts_of(stdout):
    """The fixture's COUNT lines: {(tid, function): n}."""
    out = {}
    for line in stdout.splitlines():
        m = COUNT_RE.match(line)
        if m:
            out[(int(m.group(1)), m.group(2))] = int(m.group(3))
    if not out:
        raise CheckFailed("the fixture printed no COUNT lines")
    return out


# ---- validation --------------------------------------------------------------

def validate(args, paths):
    """Ajv against the schema, then what the schema cannot say."""
    p = run([args.node, os.path.join(args.node_dir, "validate_json.mjs"), args.schema] + paths,
            ok=None)
    if p.returncode != 0:
        raise CheckFailed("the schema validator rejects BMF (exit %d): %s%s"
                          % (p.returncode, p.stdout[:4000], p.stderr[:2000]))
    docs = []
    for path in paths:
        raw = open(path, "rb").read()
        doc = json.loads(raw.decode("utf-8", errors="strict"))
        for name, measures in doc.items():
            if not 1 <= len(name.encode("utf-8")) <= 1024:
                raise CheckFailed("%s: benchmark name of %d bytes" % (path, len(name.encode())))
            for slug, m in measures.items():
                lo, hi = m.get("lower_value", m["value"]), m.get("upper_value", m["value"])
                if not lo <= m["value"] <= hi:
                    raise CheckFailed("%s: %s %s: not lower <= value <= upper: %s"
                                      % (path, name, slug, m))
        docs.append(doc)
    print("schema: %d documents valid" % len(paths))
    return docs


def bmf_of(args, argv, tmp, name):
    """report ... --format=bmf, saved, validated, parsed."""
    out = run(argv).stdout
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(out)
    return validate(args, [path])[0]


# ---- report ------------------------------------------------------------------

def json_rows(args, trace, *extra):
    p = run([args.sledtrace, "report", "--format=json", trace] + list(extra))
    doc = json.loads(p.stdout)
    return doc["rows"], doc["stats"]


# record --costs: each measure, and the JSON row's field of the self count
COSTS = {"allocs": "allocs", "alloc-bytes": "alloc_bytes", "syscalls": "syscalls",
         "page-faults": "page_faults"}


def expect_report(bmf, rows, stats, key, what):
    """bmf = rows added up by key(row), measure by measure, exactly."""
    cpu, costs = stats["switches"] > 0, stats.get("costs", 0) > 0
    want = collections.defaultdict(collections.Counter)
    for r in rows:
        w = want[key(r)]
        w["calls"] += r["calls"]
        w["total-time"] += r["total_ns"]
        w["self-time"] += r["self_ns"]
        if cpu:
            w["cpu-total-time"] += r["cpu_total_ns"]
            w["cpu-self-time"] += r["cpu_self_ns"]
        for slug, field in COSTS.items() if costs else ():
            w[slug] += r[field]
    got = {name: {slug: m["value"] for slug, m in ms.items()} for name, ms in bmf.items()}
    if {k: dict(v) for k, v in want.items()} != got:
        raise CheckFailed("%s: BMF differs from report --format=json:\n  json %s\n  bmf  %s"
                          % (what, sorted((k, dict(v)) for k, v in want.items()),
                             sorted(got.items())))
    for name, ms in bmf.items():
        if any("lower_value" in m or "upper_value" in m for m in ms.values()):
            raise CheckFailed("%s: %s has bounds, but one trace has no spread" % (what, name))
    print("%s: %d benchmarks equal the JSON report%s%s"
          % (what, len(bmf), ", with on-CPU times" if cpu else "",
             ", with costs" if costs else ""))


def case_report(args, tmp):
    st, trace = args.sledtrace, os.path.join(tmp, "t.pftrace")
    p = run([st, "record", "-q", "-o", trace] + args.record_arg + ["--"] + args.fixture)
    counts = counts_of(p.stdout)
    if "--costs" in args.record_arg:
        rows, stats = json_rows(args, trace)
        spent = {slug: sum(r[field] for r in rows) for slug, field in COSTS.items()}
        if not stats["costs"] or not spent["syscalls"]:
            raise CheckFailed("record --costs: stats.costs %d, syscalls %d: nothing to compare"
                              % (stats["costs"], spent["syscalls"]))
        print("record --costs counted %s" % spent)
    for times in ([], ["--times=raw"]):
        rows, stats = json_rows(args, trace, *times)
        bmf = bmf_of(args, [st, "report", "--format=bmf", trace] + times, tmp, "fn.json")
        expect_report(bmf, rows, stats, lambda r: r["function"], "by function " + " ".join(times))
    # the fixture's own counts, per function over its threads
    per_fn = collections.Counter()
    for (_, fn), n in counts.items():
        per_fn[fn] += n
    got = {fn: bmf[fn]["calls"]["value"] for fn in per_fn}
    if got != dict(per_fn):
        raise CheckFailed("BMF calls %s, the fixture counted %s" % (got, dict(per_fn)))
    print("calls equal the fixture's own counts: %s" % sorted(per_fn.items()))

    rows, stats = json_rows(args, trace, "--by-thread")
    bmf = bmf_of(args, [st, "report", "--format=bmf", "--by-thread", trace], tmp, "thread.json")
    expect_report(bmf, rows, stats, lambda r: "%s@%s" % (r["function"], r["thread"]),
                  "--by-thread")
    thread = {r["tid"]: r["thread"] for r in rows}
    per_thread = collections.Counter()
    for (tid, fn), n in counts.items():
        per_thread["%s@%s" % (fn, thread[tid])] += n
    got = {k: bmf[k]["calls"]["value"] for k in per_thread}
    if got != dict(per_thread):
        raise CheckFailed("--by-thread BMF calls %s, the fixture counted %s"
                          % (got, dict(per_thread)))
    if len({r["tid"] for r in rows}) > len(set(thread.values())):
        print("threads that share a name are one benchmark: %d threads, %d names"
              % (len(thread), len(set(thread.values()))))

    rows, stats = json_rows(args, trace, "--by-process")
    bmf = bmf_of(args, [st, "report", "--format=bmf", "--by-process", trace], tmp, "proc.json")
    expect_report(bmf, rows, stats, lambda r: "%s@%s" % (r["function"], r["process"]),
                  "--by-process")

    fns = sorted(per_fn)
    sel = ["--function=^(%s)$" % "|".join(re.escape(f) for f in fns[:2]), "--top=1"]
    rows, stats = json_rows(args, trace, *sel)
    bmf = bmf_of(args, [st, "report", "--format=bmf", trace] + sel, tmp, "sel.json")
    if len(rows) != 1:
        raise CheckFailed("--top=1 kept %d JSON rows" % len(rows))
    expect_report(bmf, rows, stats, lambda r: r["function"], "--function --top=1")

    p = run([st, "report", "--format=bmf", "--callers=main", trace], ok=(2,))
    one_line(p, "--callers", "--format=bmf prints a benchmark per function")


# ---- bench -------------------------------------------------------------------

def sides(args, tmp):
    """diffwork's two builds under one file name, as two checkouts have it."""
    paths = []
    for side, built in (("base", args.base), ("head", args.head)):
        os.makedirs(os.path.join(tmp, side))
        paths.append(os.path.join(tmp, side, "diffwork"))
        shutil.copy2(built, paths[-1])
    return paths


def head_counts(out):
    """The head's calls per function from its run with every probe (or its
    first run), as the fixture counted them."""
    log = os.path.join(out, "head-calls.log")
    if not os.path.exists(log):
        log = os.path.join(out, "head-1.log")
    per_fn = collections.Counter()
    for (_, fn), n in counts_of(open(log).read()).items():
        per_fn[fn] += n
    return per_fn


def run_rows(args, trace):
    """{function: report --format=json row} of one run."""
    return {r["function"]: r for r in json_rows(args, trace)[0]}


def expect_bench(args, bmf, out, budget):
    """bmf = the head's runs, each read by `report --format=json`: per
    measure their median, and their min and max as the bounds; and what
    diff.json says of the head (which prints 6 digits)."""
    doc = json.load(open(os.path.join(out, "diff.json")))
    head_runs = doc["runs"]["head"]
    runs = [run_rows(args, r["path"]) for r in head_runs]
    cpu = all(r["stats"]["switches"] > 0 for r in head_runs)
    ranged = len(runs) >= 2
    fields = {"calls": "calls", "total-time": "total_ns", "self-time": "self_ns"}
    if cpu:
        fields.update({"cpu-total-time": "cpu_total_ns", "cpu-self-time": "cpu_self_ns"})
    calls = head_counts(out)
    unprobed = sorted(f["function"] for f in doc["functions"] if f["unprobed"])
    want = {}
    for fn in calls:
        ms = {}
        for slug, field in fields.items():
            if slug == "calls" and budget:  # from the one run with every probe
                ms[slug] = {"value": calls[fn]}
                continue
            if fn in unprobed:
                continue
            v = [r[fn][field] if fn in r else 0 for r in runs]
            ms[slug] = {"value": statistics.median(v)}
            if ranged:
                ms[slug].update({"lower_value": min(v), "upper_value": max(v)})
        want[fn] = ms
    if want != bmf:
        raise CheckFailed("bench --bmf differs from the head runs' reports:\n  reports %s\n"
                          "  bmf     %s" % (sorted(want.items()), sorted(bmf.items())))
    metric = {"calls": "calls", "total-time": "total", "self-time": "self",
              "cpu-total-time": "cpu", "cpu-self-time": "cpu-self"}
    for f in doc["functions"]:
        for slug, m in bmf.get(f["function"], {}).items():
            h = f[metric[slug]]["head"]
            for k, part in (("value", "median"), ("lower_value", "min"), ("upper_value", "max")):
                if k in m and abs(m[k] - h[part]) > 1e-5 * max(1, abs(h[part])):
                    raise CheckFailed("%s %s %s: bmf %s, diff.json's head %s %s"
                                      % (f["function"], slug, k, m[k], part, h[part]))
    print("bench --bmf%s: %d benchmarks = the head runs' medians, min and max (and diff.json's);"
          " calls exact; unprobed (calls only): %s" % (" --budget" if budget else "", len(bmf),
                                                       unprobed))
    return unprobed


def case_bench(args, tmp):
    st = args.sledtrace
    base, head = sides(args, tmp)
    out, bmf = os.path.join(tmp, "out"), os.path.join(tmp, "head.bmf.json")
    p = run([st, "bench", "--base", base, "--head", head, "-n", "3", "-o", out,
             "--bmf=" + bmf, "--fail-on=calls>0%"], ok=(1,))
    if "calls>0% fired on hot" not in p.stdout:
        raise CheckFailed("bench: the rule did not fire on hot\n" + p.stdout)
    unprobed = expect_bench(args, validate(args, [bmf])[0], out, budget=True)
    if not unprobed:
        raise CheckFailed("bench --budget left no function unprobed: the case is not covered")
    out2, bmf2 = os.path.join(tmp, "out2"), os.path.join(out, "bmf.json")
    run([st, "bench", "--base", base, "--head", head, "-n", "2", "--budget=off", "-o", out2,
         "--bmf=" + bmf2])
    expect_bench(args, validate(args, [bmf2])[0], out2, budget=False)


# ---- bad input ---------------------------------------------------------------

def one_line(p, what, want, status=2):
    errors = [l for l in p.stderr.splitlines() if l.startswith("sledtrace: ")]
    if p.returncode != status or len(errors) != 1 or want not in errors[0]:
        raise CheckFailed("%s: expected exit %d and one `sledtrace: ` line with %r; got exit %d,"
                          " stderr %r" % (what, status, want, p.returncode, p.stderr))
    print("%s: exit %d, %s" % (what, status, errors[0]))


def case_bad_input(args, tmp):
    st = args.sledtrace
    base, head = sides(args, tmp)
    os.symlink(os.path.join(tmp, "nowhere", "x.json"), os.path.join(tmp, "dangling"))
    bad = {
        "a missing directory": (os.path.join(tmp, "missing", "x.json"), "does not exist"),
        "a directory": (tmp, "it is a directory"),
        "a dangling symlink": (os.path.join(tmp, "dangling"), "a symlink to nothing"),
        "standard output": ("-", "--bmf wants a file"),
    }
    for i, (what, (path, want)) in enumerate(sorted(bad.items())):
        out = os.path.join(tmp, "out%d" % i)
        p = run([st, "bench", "--base", base, "--head", head, "-n", "1", "-o", out,
                 "--bmf=" + path], ok=None)
        one_line(p, "--bmf to " + what, want)
        traces = [f for f in os.listdir(out) if f.endswith(".pftrace")] \
            if os.path.isdir(out) else []
        if traces or re.search(r"^bench: ", p.stderr, re.M):
            raise CheckFailed("--bmf to %s: runs were recorded before the error: %s"
                              % (what, traces))
    if os.path.lexists(os.path.join(tmp, "nowhere")):
        raise CheckFailed("the dangling symlink's target was created")
    # the runs cannot be compared (another program): the existing file stays
    other = os.path.join(tmp, "other", "loop")
    os.makedirs(os.path.dirname(other))
    shutil.copy2(args.other, other)
    keep = os.path.join(tmp, "kept.json")
    with open(keep, "w") as f:
        f.write("{}\n")
    p = run([st, "bench", "--base", base, "--head", other, "-n", "1", "-o",
             os.path.join(tmp, "outx"), "--bmf=" + keep], ok=None)
    one_line(p, "runs of two programs", "share no object")
    if open(keep).read() != "{}\n" or [f for f in os.listdir(tmp) if f.startswith("kept.json.")]:
        raise CheckFailed("a failed comparison changed --bmf's file or left a temporary one")
    print("a failed comparison leaves --bmf's file as it was")


CASES = {"report": case_report, "bench": case_bench, "bad-input": case_bad_input}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--node", default="node")
    ap.add_argument("--node-dir", default=os.path.join(os.path.dirname(__file__), "npm"))
    ap.add_argument("--schema",
                    default=os.path.join(os.path.dirname(__file__), "bmf.schema.json"))
    ap.add_argument("--base", help="diffwork's base build")
    ap.add_argument("--head", help="diffwork's candidate build")
    ap.add_argument("--other", help="another program with sleds")
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    ap.add_argument("--record-arg", action="append", default=[],
                    help="report: an option for `sledtrace record` (repeatable)")
    ap.add_argument("fixture", nargs="*", help="report: the fixture's command line")
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    with tempfile.TemporaryDirectory(prefix="sledtrace-bmf-") as tmp:
        return verdict(CASES[args.case], args, tmp,
                       errors=(subprocess.SubprocessError, OSError, ValueError, KeyError))


if __name__ == "__main__":
    sys.exit(main())
