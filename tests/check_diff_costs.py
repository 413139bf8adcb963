#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_diff_costs.py: `sledtrace diff` and `bench` rules on the counts of
`record --costs` (allocs, alloc-bytes, syscalls, page-faults).

The fixture is tests/fixtures/costs.c: four threads run the same costly
functions, and each prints what it spent (COSTS_TOTAL lines: per function,
its own counts over all threads).  With --extra-alloc, alloc_small makes
one more malloc on each of its four threads, of 24+10s bytes (s = 1..4),
and nothing else changes in what the program allocates.

Cases (--case):
  diff   two runs recorded with --costs (A/A) and one with --extra-alloc
         (B): `allocs>0%` and `alloc-bytes>0%` pass A/A (exit 0) and fire on
         alloc_small alone A/B (exit 1), a self count, so its callers stay
         quiet; every function's allocs and alloc-bytes equal the fixture's
         own counts; cost counts that differ between the runs of a side
         (system calls of threads that wait on each other) are named in a
         note, and only those; the cost columns show in the table, the
         markdown, JSON and CSV of runs with costs, and the outputs of runs
         without them have none (no key, no column); a cost rule on traces
         recorded without --costs, on either side: exit 2, one line.
         The path rules `edge-allocs>0%` and `edge-alloc-bytes>0%` (a
         path's calls' counts, callees included) pass A/A and fire A/B on
         main -> alloc_small and worker -> alloc_small, by the fixture's
         +1 allocation of 24+10s bytes per set (main: set 0; worker: sets
         1..3), and on the thread roots above them ([root] -> main,
         [root] -> worker), whose calls hold the same allocations: on no
         other path; with `:-> alloc_small$` on the two paths alone
  bench  bench records the runs itself: --record-opt=--costs with
         --budget=off and one run a side fires on alloc_small alone, and so
         does the least budget (of 1%, 2%, 4%, ...) that probes anything,
         which leaves alloc_small unprobed in the timed runs (the counts
         come from the runs with every function probed);
         without --record-opt=--costs, exit 2 and one line that says what
         to add, before anything runs
  ci     the allocation gate of docs/ci.md (the block marked
         `<!-- check_diff_costs: allocs-gate -->`), run as written with bash
         -e, base/bench the fixture and head/bench the fixture with
         --extra-alloc: the step fails (exit 1), the job summary names
         alloc_small, and its directory holds one run a side
Python 3 standard library only.
"""

import argparse
import csv
import functools
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checklib  # noqa: E402
import doc_recipes  # noqa: E402
from checklib import expect, verdict  # noqa: E402

TOTAL_RE = re.compile(r"^COSTS_TOTAL fn=(\S+) scope=self (.*)$")
RULES = ["--fail-on=allocs>0%", "--fail-on=alloc-bytes>0%"]
EDGE_RULES = ["--fail-on=edge-allocs>0%", "--fail-on=edge-alloc-bytes>0%"]
COST_METRICS = ("allocs", "alloc-bytes", "syscalls", "page-faults")

# The cases judge each exit status themselves; the log shows every command.
run = functools.partial(checklib.run, ok=None, timeout=240, echo=300)


def own_counts(out):
    """{function: {"allocs": N, "alloc-bytes": N}} of the fixture's
    COSTS_TOTAL lines, where it controls the count."""
    want = {}
    for line in out.splitlines():
        m = TOTAL_RE.match(line)
        if not m:
            continue
        fields = dict(kv.split("=", 1) for kv in m.group(2).split())
        for key, metric in (("allocs", "allocs"), ("alloc_bytes", "alloc-bytes")):
            if fields[key] != "-":
                want.setdefault(m.group(1), {})[metric] = int(fields[key])
    expect(want.get("alloc_small"), "the fixture printed no COSTS_TOTAL lines")
    return want


class Env:
    def __init__(self, args, tmp):
        self.st = os.path.abspath(args.sledtrace)
        self.tmp = tmp
        self.source = args.source
        # one file name on both sides, as two builds would have
        os.makedirs(os.path.join(tmp, "bin"))
        self.fixture = os.path.join(tmp, "bin", "bench")
        shutil.copy2(args.costs, self.fixture)

    def record(self, name, extra_alloc=False, costs=True):
        trace = os.path.join(self.tmp, name + ".pftrace")
        argv = [self.st, "record", "--quiet", "-o", trace] + (["--costs"] if costs else [])
        argv += ["--", self.fixture] + (["--extra-alloc"] if extra_alloc else [])
        p = run(argv)
        expect(p.returncode == 0, "record exited %d:\n%s" % (p.returncode, p.stderr))
        return trace, own_counts(p.stdout)

    def diff(self, *args):
        return run([self.st, "diff"] + list(args))

    def diff_json(self, *args, status):
        p = self.diff("--format=json", *args)
        expect(p.returncode == status, "diff exited %d, expected %d:\n%s%s"
               % (p.returncode, status, p.stdout, p.stderr))
        return json.loads(p.stdout)


def fired(doc):
    return sorted((f["rule"], f["function"]) for f in doc["fired"])


def one_error_line(p, what, want):
    """Exit 2 with one `sledtrace: ` line naming want.  bench's progress
    lines (`bench: base run 1 of 1`) may come before it."""
    errors = [l for l in p.stderr.splitlines() if l.startswith("sledtrace: ")]
    other = [l for l in p.stderr.splitlines() if not l.startswith(("sledtrace: ", "bench: "))]
    expect(p.returncode == 2 and len(errors) == 1 and not other and want in errors[0],
           "%s: expected exit 2 and one `sledtrace: ` line with %r; got exit %d, stderr %r"
           % (what, want, p.returncode, p.stderr))


def check_own_counts(doc, side, want):
    """Every function's allocs and alloc-bytes are the fixture's counts."""
    rows = {r["function"]: r for r in doc["functions"]}
    for fn, counts in want.items():
        for metric, n in counts.items():
            got = rows[fn][metric][side]
            expect((got["median"], got["min"], got["max"]) == (n, n, n),
                   "%s: %s %s is %s, the fixture counted %d" % (fn, side, metric, got, n))


def check_bmf_counts(doc, want):
    """bench --bmf: the head's allocs and alloc-bytes, as the fixture counted."""
    for fn, counts in want.items():
        for metric, n in counts.items():
            got = doc.get(fn, {}).get(metric, {}).get("value")
            expect(got == n, "--bmf: %s %s is %s, the fixture counted %d" %
                   (fn, metric, got, n))


def expect_alloc_small(doc, a, b, what):
    """Both rules fired on alloc_small alone, by the fixture's change."""
    want = [(rule.split("=", 1)[1], "alloc_small") for rule in RULES]
    expect(fired(doc) == sorted(want), "%s: fired %s, expected %s"
           % (what, fired(doc), sorted(want)))
    small = next(r for r in doc["functions"] if r["function"] == "alloc_small")
    for metric in ("allocs", "alloc-bytes"):
        change = b["alloc_small"][metric] - a["alloc_small"][metric]
        expect(small[metric]["change"] == change and change > 0,
               "%s: alloc_small's %s changed by %s, the fixture by %d"
               % (what, metric, small[metric]["change"], change))
    expect(small["status"] == "changed", "%s: alloc_small is %s" % (what, small["status"]))


# ---- diff -------------------------------------------------------------------

def edge_changes(a, b):
    """{path: (allocs, alloc-bytes)}: what --extra-alloc adds to each path
    whose calls make the extra malloc, from the fixture's rule (set 0 on
    main, sets 1..3 on the workers, 24+10s bytes with s = set + 1), checked
    against the fixture's own totals."""
    sets = {"main": [0], "worker": [1, 2, 3]}
    per = {caller: (len(v), sum(24 + 10 * (set + 1) for set in v)) for caller, v in sets.items()}
    total = tuple(b["alloc_small"][m] - a["alloc_small"][m] for m in ("allocs", "alloc-bytes"))
    expect(tuple(map(sum, zip(*per.values()))) == total,
           "the fixture's change %s is not the documented %s" % (total, per))
    want = {}
    for caller, change in per.items():
        want[caller + " -> alloc_small"] = change
        want["[root] -> " + caller] = change
    return want


def check_edges(env, a1, a2, b, want_a, want_b):
    doc = env.diff_json(a1, a2, *EDGE_RULES, status=0)
    expect(doc["verdict"] == "pass" and not doc["fired"] and not doc["inconclusive"],
           "A/A edge rules: %s, fired %s" % (doc["verdict"], doc["fired"]))
    want = edge_changes(want_a, want_b)
    doc = env.diff_json(a1, b, *EDGE_RULES, status=1)
    got = sorted((f["metric"], f["target"]) for f in doc["fired"])
    expect(got == sorted((m, p) for m in ("edge-allocs", "edge-alloc-bytes") for p in want),
           "A/B edge rules fired on %s, expected %s" % (got, sorted(want)))
    edges = {"%s -> %s" % (e["caller"], e["callee"]): e for e in doc["edges"]}
    for path, e in edges.items():
        change = (e["allocs"]["change"], e["alloc-bytes"]["change"])
        expect(change == want.get(path, (0, 0)), "%s: allocs, alloc-bytes changed by %s, the "
               "fixture by %s" % (path, change, want.get(path, (0, 0))))
    for path in want:
        expect(edges[path]["status"] == "changed", "%s is %s" % (path, edges[path]["status"]))
    doc = env.diff_json(a1, b, "--fail-on=edge-allocs>0%:-> alloc_small$", status=1)
    got = sorted(f["target"] for f in doc["fired"])
    expect(got == ["main -> alloc_small", "worker -> alloc_small"],
           "edge-allocs>0%%:-> alloc_small$ fired on %s" % got)

def check_notes(doc):
    """A note per cost count whose runs of a side differ, naming the
    functions; none for a count every side agrees on."""
    for metric in COST_METRICS:
        differ = sorted((r["function"], side) for r in doc["functions"] for side in ("base", "head")
                        if r[metric][side]["min"] != r[metric][side]["max"])
        notes = [n for n in doc["notes"] if n.startswith(metric + " differ between the runs")]
        if not differ:
            expect(not notes, "a note on %s, whose runs agree: %s" % (metric, notes))
            continue
        expect(len(notes) == 1 and "not deterministic" in notes[0],
               "%s of %s differ between runs, but the notes are %s"
               % (metric, differ, doc["notes"]))
        first = "%s in %s: " % differ[0] if len(differ) == 1 else None
        expect(first is None or first in notes[0], "the note %r lacks %r" % (notes[0], first))


def check_outputs(env, a, b, plain):
    """The cost columns with costs, none without."""
    table = env.diff(a, b)
    expect(table.returncode == 0 and "ALLOCS base" in table.stdout and
           "PAGE-FAULTS base" in table.stdout, "the table lacks the cost columns:\n" +
           table.stdout)
    md = env.diff("--format=markdown", a, b).stdout
    expect("| allocs base | allocs head | Δ allocs |" in md and
           "| syscalls base |" in md, "the markdown lacks the cost columns:\n" + md)
    header = next(csv.reader(io.StringIO(env.diff("--format=csv", a, b).stdout)))
    for metric in COST_METRICS:
        expect(metric + "_base" in header and metric + "_head_mad" in header,
               "the CSV header lacks %s's columns: %s" % (metric, header))
    # runs with and without costs: shown, with a note that says so
    doc = env.diff_json(plain, a, status=0)
    expect([n for n in doc["notes"] if n.startswith("1 of the 2 runs were recorded without "
                                                    "--costs")],
           "no note on the run without costs: %s" % doc["notes"])
    # without costs: no column, no key
    table = env.diff(plain, plain).stdout
    expect("ALLOCS" not in table and "SYSCALLS" not in table,
           "the table of runs without costs has cost columns:\n" + table)
    md = env.diff("--format=markdown", plain, plain).stdout
    expect("allocs" not in md, "the markdown of runs without costs has cost columns")
    header = next(csv.reader(io.StringIO(env.diff("--format=csv", plain, plain).stdout)))
    expect(not [h for h in header if h.split("_")[0] in COST_METRICS],
           "the CSV of runs without costs has cost columns: %s" % header)
    expect(header[-2:] == ["times", "uncleared"], "the CSV header ends in %s" % header[-2:])
    doc = env.diff_json(plain, plain, status=0)
    keys = set(doc["functions"][0])
    expect(not keys & set(COST_METRICS), "the JSON of runs without costs has %s"
           % sorted(keys & set(COST_METRICS)))
    keys = set(k for e in doc["edges"] for k in e)
    expect(doc["edges"] and not keys & set(COST_METRICS),
           "the JSON edges of runs without costs have %s" % sorted(keys & set(COST_METRICS)))
    doc = env.diff_json(a, b, status=0)
    expect(doc["edges"] and all(set(COST_METRICS) <= set(e) for e in doc["edges"]),
           "the JSON edges of runs with costs lack the cost fields")


def case_diff(env):
    a1, want_a = env.record("a1")
    a2, want_a2 = env.record("a2")
    a3, _ = env.record("a3")
    b, want_b = env.record("b", extra_alloc=True)
    plain, _ = env.record("plain", costs=False)
    expect(want_a == want_a2, "the fixture's allocations differ between runs: %s vs %s"
           % (want_a, want_a2))

    doc = env.diff_json(a1, a2, *RULES, status=0)
    expect(doc["verdict"] == "pass" and not doc["fired"] and not doc["inconclusive"],
           "A/A: %s, fired %s" % (doc["verdict"], fired(doc)))
    check_own_counts(doc, "base", want_a)
    print("A/A: no cost rule fires; every count is the fixture's")

    doc = env.diff_json(a1, b, *RULES, status=1)
    expect_alloc_small(doc, want_a, want_b, "A/B")
    check_own_counts(doc, "base", want_a)
    check_own_counts(doc, "head", want_b)
    one = env.diff_json(a1, b, RULES[0], status=1)
    expect(fired(one) == [("allocs>0%", "alloc_small")], "allocs>0%% alone fired %s"
           % fired(one))
    print("A/B: allocs>0% and alloc-bytes>0% fire on alloc_small alone")
    check_edges(env, a1, a2, b, want_a, want_b)
    print("edge-allocs, edge-alloc-bytes: pass A/A; A/B fire on the paths into alloc_small "
          "and the thread roots above them, by the fixture's change")

    # several runs a side: counts that differ between them are noted
    doc = env.diff_json("--base", a1, "--base", a2, "--base", a3, "--head", b, *RULES,
                        status=1)
    expect_alloc_small(doc, want_a, want_b, "3 runs against 1")
    check_notes(doc)
    print("cost counts that differ within a side are noted, and only those")

    check_outputs(env, a1, b, plain)
    print("cost columns with costs, none without (table, markdown, CSV, JSON)")

    for rule in ("allocs>0%", "alloc-bytes>10", "syscalls>0%", "page-faults<0%:^touch",
                 "edge-allocs>0%", "edge-page-faults>1:-> touch_pages$"):
        one_error_line(env.diff(plain, a1, "--fail-on=" + rule), "%s, base without --costs"
                       % rule, "plain.pftrace was recorded without --costs")
        one_error_line(env.diff(a1, plain, "--fail-on=" + rule), "%s, head without --costs"
                       % rule, "plain.pftrace was recorded without --costs")
    for p in (env.diff(plain, plain, *RULES), env.diff(plain, plain, "--format=json", *RULES)):
        one_error_line(p, "runs without --costs", "needs traces recorded with --costs")
        expect(not p.stdout, "output before the error: %r" % p.stdout)
    print("a cost rule on a run without --costs: exit 2, one line")


# ---- bench ------------------------------------------------------------------

def bench(env, name, *args):
    out = os.path.join(env.tmp, name)
    argv = [env.st, "bench", "--base", env.fixture, "--head", env.fixture + " --extra-alloc",
            "-o", out] + list(args) + RULES
    return run(argv), out


def bench_least_budget(env):
    """bench with the least of a doubling series of budgets that probes
    anything: the plan probes the fewest-called functions first while their
    probes fit in the share, so the least budget that fits one probes main
    (1 call) and at most a few more, and leaves the functions called once a
    set, alloc_small among them, unprobed.  Which share that is follows from
    this machine's cost of a probed call against the fixture's 2-3 ms, so
    it is found, not fixed: a budget that fits nothing exits 2 and says so."""
    for share in (1, 2, 4, 8, 16, 32, 64, 100):
        p, out = bench(env, "budget-%d" % share, "-n", "2", "--budget=%d%%" % share,
                       "--record-opt=--costs")
        log = os.path.join(out, "base-1.log")
        if p.returncode != 2 or not os.path.exists(log) or \
                "leaves every function unprobed" not in open(log).read():
            return p, out, share
    raise checklib.CheckFailed("no budget up to 100% probes any function of the fixture")


def case_bench(env):
    _, want_a = env.record("a")
    _, want_b = env.record("b", extra_alloc=True)
    bmf = os.path.join(env.tmp, "head.bmf.json")
    p, out = bench(env, "off", "-n", "1", "--budget=off", "--record-opt=--costs",
                   "--bmf=" + bmf)
    expect(p.returncode == 1, "bench --budget=off exited %d:\n%s%s"
           % (p.returncode, p.stdout, p.stderr))
    doc = json.load(open(os.path.join(out, "diff.json")))
    expect_alloc_small(doc, want_a, want_b, "bench --budget=off")
    check_own_counts(doc, "base", want_a)
    check_own_counts(doc, "head", want_b)
    check_bmf_counts(json.load(open(bmf)), want_b)
    print("bench -n 1 --budget=off --record-opt=--costs: fires on alloc_small alone; "
          "--bmf has the head's counts")

    # A budget that leaves alloc_small unprobed, whose allocations the
    # timed runs charge to its callers: the counts must come from the runs
    # with every probe.
    p, out, share = bench_least_budget(env)
    expect(p.returncode == 1, "bench with a budget exited %d:\n%s%s"
           % (p.returncode, p.stdout, p.stderr))
    doc = json.load(open(os.path.join(out, "diff.json")))
    unprobed = sorted(r["function"] for r in doc["functions"]
                      if r["unprobed"] and want_a.get(r["function"], {}).get("allocs"))
    expect(unprobed, "--budget=%d%% probed every function that allocates: this case shows "
           "nothing" % share)
    expect_alloc_small(doc, want_a, want_b, "bench --budget=%d%%" % share)
    check_own_counts(doc, "base", want_a)
    check_own_counts(doc, "head", want_b)
    print("bench --budget=%d%%, which left %s unprobed: the counts of the runs with every "
          "probe, exact" % (share, ", ".join(unprobed)))

    # said before anything runs: no progress line, no directory
    p, out = bench(env, "nocosts", "-n", "1", "--budget=off")
    one_error_line(p, "bench without --record-opt=--costs", "needs --record-opt=--costs")
    expect(len(p.stderr.splitlines()) == 1 and not os.path.exists(out),
           "bench without --record-opt=--costs ran before it failed:\n" + p.stderr)
    print("bench without --record-opt=--costs: exit 2, one line, before any run")


# ---- docs/ci.md -------------------------------------------------------------

def step_script(block):
    """The `run: |` body of the one step in the block."""
    m = re.search(r"^( *)run: \|\n((?:\1  .*\n|\s*\n)+)", block, re.M)
    expect(m, "the marked block has no `run: |` step:\n" + block)
    indent = len(m.group(1)) + 2
    return "\n".join(l[indent:] for l in m.group(2).splitlines())


def case_ci(env):
    block = doc_recipes.block(os.path.join(env.source, "docs", "ci.md"), "check_diff_costs",
                              "allocs-gate")
    script = step_script(block)
    # head/bench stands for the candidate build: the fixture with one more
    # allocation (a build would differ in its code, not its arguments)
    expect(re.search(r"--head head/bench\b", script), "the step has no `--head head/bench`")
    script = re.sub(r"--head head/bench\b", "--head 'head/bench --extra-alloc'", script)
    ws = os.path.join(env.tmp, "ws")
    for side in ("base", "head"):
        os.makedirs(os.path.join(ws, side))
        shutil.copy2(env.fixture, os.path.join(ws, side, "bench"))
    os.makedirs(os.path.join(ws, "sledtrace", "build"))
    os.symlink(env.st, os.path.join(ws, "sledtrace", "build", "sledtrace"))
    bindir = os.path.join(env.tmp, "stand-ins")
    os.makedirs(bindir)
    with open(os.path.join(bindir, "sudo"), "w") as f:
        f.write('#!/bin/sh\nexec "$@"\n')  # the tests run as root
    os.chmod(os.path.join(bindir, "sudo"), 0o755)
    summary = os.path.join(env.tmp, "step_summary.md")
    open(summary, "w").close()
    envv = doc_recipes.env_with_path([bindir])
    envv["GITHUB_STEP_SUMMARY"] = summary
    p = subprocess.run(["bash", "-e", "-c", script], cwd=ws, env=envv, capture_output=True,
                       text=True, timeout=240)
    print("$ %s\n  -> exit %d" % (script.strip().replace("\n", "\n  "), p.returncode))
    expect(p.returncode == 1, "the step exited %d, expected 1 (a rule fired):\n%s%s"
           % (p.returncode, p.stdout, p.stderr))
    text = open(summary).read()
    expect(re.search(r"^### ❌ sledtrace diff: \d of \d rules fired$", text, re.M) and
           "| `allocs>0%` | `alloc_small` |" in text, "the job summary is:\n" + text)
    out = re.search(r"-o (\S+)", script).group(1)
    traces = sorted(n for n in os.listdir(os.path.join(ws, out)) if n.endswith(".pftrace"))
    expect(traces == ["base-1.pftrace", "head-1.pftrace"], "%s holds %s" % (out, traces))
    print("the allocation gate of docs/ci.md fails on alloc_small and writes the summary")


CASES = {"diff": case_diff, "bench": case_bench, "ci": case_ci}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--costs", required=True, help="tests/fixtures/costs.c built")
    ap.add_argument("--source", required=True, help="the source tree (docs/ci.md)")
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("SKIP: needs root")
        return 77
    tmp = tempfile.mkdtemp(prefix="sledtrace-diff-costs-")
    try:
        return verdict(CASES[args.case], Env(args, tmp), errors=(subprocess.TimeoutExpired,),
                       fail_to=sys.stdout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
