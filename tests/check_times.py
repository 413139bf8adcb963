#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_times.py: raw and compensated times, in the report and in every
export that sums times, recomputed call by call from the trace itself.

Records FIXTURE once (its COUNT lines must equal the report exactly, as in
check_exports.py) and walks its slices with check_perfetto_rules.py's
independent reader: per call its duration, its self time (less its direct
children's durations) and the probes inside each (model/probe_comp.h:
with n the traced calls in its subtree and k its direct children, its
total holds I + (n - 1) C, its self I + k (C - I)).  I is the trace's
probe_cost_ns (must be > 0), C its probe_entry_ns + probe_exit_ns, or 2I
when it has none; a call's compensated figure is raw less that, clamped at
0, each call on its own.  A shortest leaf over 20 us measures work, not
probes (no probe kind costs that much): then nothing is taken out,
compensated equals raw, and the report says so.  --no-empty-leaf: FIXTURE has no call that does next
to nothing (every function spins), so its trace must be such a one.
  report   per function, in both kinds and exactly: total sums the figures
           of the outermost calls, self the self figures, min/max and
           p50/p99 are over the figures (p50/p99: the histogram's bucket
           midpoint, clamped into [min, max]), avg = total / calls;
           --callees edges sum their calls' figures; every row of every
           grouping (--by-thread, --by-process) and format (json, tsv,
           csv) is of one kind: avg x calls = total (to within calls, the
           division's rounding), min <= p50 <= p99 <= max, <= total for raw
           times (compensated, recursion can break it: check_rows_add_up); and
           every format says which kind
  folded   self weights per path = its calls' self figures summed
  pprof    `go tool pprof` reads both; flat wall = report self in either
           kind, compensated cum = the folded paths through the function,
           and -comments says which
  svg, dot say which times; chrome says raw (a timeline keeps its real
           timestamps) and refuses --times, as do pola, perfetto and cgr
Python 3 standard library only (plus go tool pprof).
"""

import argparse
import collections
import csv
import io
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_counts import CheckFailed  # noqa: E402
from check_exports import Ctx, convert, pprof, record, sh, top_table  # noqa: E402
from check_perfetto_rules import BEGIN, END, Checker, read_trace  # noqa: E402

Call = collections.namedtuple("Call", "path caller raw hits self_raw self_hits outermost")


class Calls(Checker):
    """Every slice of the trace as a Call, as the reader's frames see it."""

    def __init__(self):
        super().__init__()
        self.frames = collections.defaultdict(list)  # by track
        self.calls = []

    def event(self, seq_id, seq, ev, ts):
        track = ev.get(11, [seq.default_track])[0]
        kind = ev.get(9, [0])[0]
        if track in self.states:  # a thread's state, not a call
            return super().event(seq_id, seq, ev, ts)
        stack = self.frames[track]
        if kind == BEGIN:
            stack.append({"name": seq.names.get(ev.get(10, [0])[0]), "begin": seq.time,
                          "child": 0, "below": 0, "children": 0})
        elif kind == END and stack:
            f = stack.pop()
            raw = max(0, seq.time - f["begin"])
            hits = 1 + f["below"]
            names = tuple(g["name"] for g in stack)
            self.calls.append(Call(names + (f["name"],), names[-1] if names else "[root]", raw,
                                   hits, raw - min(f["child"], raw), 1 + f["children"],
                                   f["name"] not in names))
            if stack:
                stack[-1]["child"] += raw
                stack[-1]["below"] += 1 + hits
                stack[-1]["children"] += 1
        super().event(seq_id, seq, ev, ts)


def walk(trace):
    with open(trace, "rb") as f:
        return read_trace(Calls(), f.read()).calls


def figure(raw, hits, cost, self=False):
    """raw less the probes inside it; hits: 2n - 1 in total, 1 + k in self
    (C = 2I makes that cost x hits); cost (I, C) or None (raw)."""
    if cost is None or not cost[0]:
        return raw
    inside, call = cost
    probe = inside + (hits - 1) * (call - inside) if self else inside + (hits - 1) // 2 * call
    return max(0, raw - probe)


def bucket(v):
    if v < 8:
        return v
    e = v.bit_length() - 1
    return 8 + (e - 3) * 8 + ((v >> (e - 3)) & 7)


def midpoint(b):
    if b < 8:
        return b
    e, sub = (b - 8) // 8 + 3, (b - 8) % 8
    width = 1 << (e - 3)
    return (8 + sub) * width + width // 2


def quantile(values, q):
    rank = max(1, math.ceil(q * len(values)))
    return min(max(midpoint(bucket(values[rank - 1])), values[0]), values[-1])


def expected_rows(calls, cost, rows):
    """{function: {column: value}} as the report must print it; rows (the
    report's own) give the calls, elided ones included."""
    figs, want = collections.defaultdict(list), {}
    total, self_ = collections.Counter(), collections.Counter()
    for c in calls:
        fn, fig = c.path[-1], figure(c.raw, c.hits, cost)
        figs[fn].append(fig)
        self_[fn] += figure(c.self_raw, c.self_hits, cost, True)
        if c.outermost:
            total[fn] += fig
    for fn, v in figs.items():
        v.sort()
        n = rows[fn]["calls"]
        if n - rows[fn]["elided"] != len(v):
            raise CheckFailed("%s: the report times %d calls, the trace has %d slices"
                              % (fn, n - rows[fn]["elided"], len(v)))
        want[fn] = {"calls": n, "total_ns": total[fn], "self_ns": self_[fn], "min_ns": v[0],
                    "avg_ns": total[fn] // n, "p50_ns": quantile(v, 0.50),
                    "p99_ns": quantile(v, 0.99), "max_ns": v[-1]}
    return want


def report(ctx, *args):
    out, _ = sh([ctx.sledtrace, "report"] + list(args) + [ctx.trace], "report")
    return out


def check_rows_add_up(what, rows, compensated=False):
    """One kind per row: the columns add up whatever the grouping.  A
    recursive function's total is its outermost calls' figures, and a
    compensated figure is the call's raw time less C per traced call below
    it: an outer call takes out C for every call its inner one does, and
    more, so when C exceeds what those probes really cost (the calibration
    is an estimate), an inner call's figure can exceed the outermost's.
    max <= total holds for raw times always, compensated only without
    recursion, which the rows do not say: it is checked for raw."""
    for r in rows:
        calls, total = int(r["calls"]), int(r["total_ns"])
        mn, p50, p99, mx = (int(r[k]) for k in ("min_ns", "p50_ns", "p99_ns", "max_ns"))
        if calls and not int(r["avg_ns"]) * calls <= total < (int(r["avg_ns"]) + 1) * calls:
            raise CheckFailed("%s: avg x calls is not total: %r" % (what, r))
        if not mn <= p50 <= p99 <= mx or (not compensated and mx > total):
            raise CheckFailed("%s: not min <= p50 <= p99 <= max <= total: %r" % (what, r))


def check_report(ctx, calls):
    cols = ["calls", "total_ns", "self_ns", "min_ns", "avg_ns", "p50_ns", "p99_ns", "max_ns"]
    got = {}
    for kind, cost in (("raw", None), ("compensated", ctx.cost)):
        doc = json.loads(report(ctx, "--format=json", "--times=" + kind))
        if doc["times"] != kind:
            raise CheckFailed("report JSON with --times=%s says %r" % (kind, doc["times"]))
        rows = {r["function"]: r for r in doc["rows"]}
        want = expected_rows(calls, cost, rows)
        for fn, w in want.items():
            g = {c: rows[fn][c] for c in cols}
            if g != w:
                raise CheckFailed("report %s, %s:\n  got  %s\n  want %s (recomputed from the "
                                  "trace, probe costs I, C %s ns)" % (kind, fn, g, w, ctx.cost))
        check_edges(ctx, calls, kind, cost, rows)
        for group in ([], ["--by-thread"], ["--by-process"]):
            opts = ["--times=" + kind] + group
            check_rows_add_up("json " + " ".join(opts),
                              json.loads(report(ctx, "--format=json", *opts))["rows"],
                              kind == "compensated")
            for fmt, sep in (("tsv", "\t"), ("csv", ",")):
                text = "".join(l for l in io.StringIO(report(ctx, "--format=" + fmt, *opts))
                               if not l.startswith("#"))
                check_rows_add_up(fmt + " " + " ".join(opts),
                                  list(csv.DictReader(io.StringIO(text), delimiter=sep)),
                                  kind == "compensated")
        check_says(ctx, kind)
        got[kind] = rows
    print("report: %d functions, every column = the calls' figures recomputed from the trace "
          "(probe costs I, C %s ns), raw and compensated; every grouping and format adds up"
          % (len(got["raw"]), ctx.cost))
    return got["raw"], got["compensated"]


def check_edges(ctx, calls, kind, cost, functions):
    """--callees: an edge's total is its calls' figures, avg total / calls."""
    want = collections.defaultdict(lambda: [0, 0])
    for c in calls:
        w = want[(c.caller, c.path[-1])]
        w[0] += 1
        w[1] += figure(c.raw, c.hits, cost)
    for f in functions:
        doc = json.loads(report(ctx, "--format=json", "--times=" + kind, "--callees=" + f))
        if doc["times"] != kind:
            raise CheckFailed("--callees JSON says times %r, asked %s" % (doc["times"], kind))
        for e in doc["edges"]:
            calls_, total = want[(e["caller"], e["callee"])]
            got = (e["calls"], e["total_ns"], e["avg_ns"])
            if got != (calls_, total, total // calls_ if calls_ else 0):
                raise CheckFailed("edge %s -> %s (%s): calls, total, avg %s; recomputed %s"
                                  % (e["caller"], e["callee"], kind, got,
                                     (calls_, total, total // max(calls_, 1))))


# The most any probe kind costs a hit (model/probe_comp.h).
MAX_PROBE_COST_NS = 20000
NOTHING_TAKEN_OUT = ("times: compensated, but no traced call was short enough to measure the "
                     "probe cost: nothing taken out\n")


def check_says(ctx, kind):
    first = {"raw": "times: raw, as the timestamps say\n",
             "compensated": NOTHING_TAKEN_OUT if not ctx.cost[0] else
             "times: compensated, each call less %d ns per probe hit\n" % ctx.cost[0]
             if ctx.cost[1] == 2 * ctx.cost[0] else
             "times: compensated, each call less %d ns of its own probes and %d ns per traced "
             "call inside it\n" % ctx.cost}
    fn = sorted(ctx.calls)[0]
    for args in ([], ["--by-thread"], ["--callers=" + fn]):
        if not report(ctx, "--times=" + kind, *args).startswith(first[kind]):
            raise CheckFailed("report --times=%s %s does not start with %r"
                              % (kind, " ".join(args), first[kind]))
    for fmt, say in (("tsv", " times=%s\n"), ("csv", " times=%s\n"), ("table", "\ntimes: %s\n")):
        if say % kind not in report(ctx, "--format=" + fmt, "--times=" + kind):
            raise CheckFailed("report --format=%s does not say %r" % (fmt, (say % kind).strip()))


def folded(ctx, name, *extra):
    """{path tuple: value} of a folded export; the elided pseudo-paths
    (calls the writer never timed) are left out."""
    path = convert(ctx, "folded", os.path.join(ctx.tmp, name), *extra)
    out = {}
    with open(path) as f:
        for line in f:
            stack, n = line.rstrip("\n").rsplit(" ", 1)
            frames = tuple(stack.split(";"))
            if not frames[0].startswith("["):
                out[frames] = int(n)
    return out


def check_folded(ctx, calls, comp_rows):
    got = {}
    for kind, cost, extra in (("raw", None, ["--times=raw"]), ("compensated", ctx.cost, [])):
        want = collections.Counter()
        for c in calls:
            want[c.path] += figure(c.self_raw, c.self_hits, cost, True)
        got[kind] = folded(ctx, kind + ".folded", *extra)
        # a path whose self weight is 0 has no line
        if {p: w for p, w in got[kind].items() if w} != {p: w for p, w in want.items() if w}:
            diff = sorted((p, want.get(p, 0), got[kind].get(p, 0)) for p in set(want) | set(got[kind])
                          if want.get(p, 0) != got[kind].get(p, 0))
            raise CheckFailed("folded %s self weights differ from the recomputed paths "
                              "(path, want, got): %s" % (kind, diff[:10]))
    per_fn = collections.Counter()
    for p, w in got["compensated"].items():
        per_fn[p[-1]] += w
    for f, r in comp_rows.items():
        if per_fn[f] != r["self_ns"] and not f.startswith("["):
            raise CheckFailed("folded %s: compensated self weights sum to %d, report says %d"
                              % (f, per_fn[f], r["self_ns"]))
    print("folded: %d paths, raw and compensated self weights = their calls' figures; per "
          "function = the report's self" % len(got["raw"]))
    return got["compensated"]


def check_pprof(ctx, raw, comp, comp_paths):
    top = ("-top", "-nodecount=1000000", "-nodefraction=0", "-edgefraction=0",
           "-sample_index=wall", "-unit=ns")
    for kind, rows, extra in (("raw", raw, ["--times=raw"]), ("compensated", comp, [])):
        ctx.pb = convert(ctx, "pprof", os.path.join(ctx.tmp, kind + ".pb.gz"), *extra)
        if "times=" + kind not in pprof(ctx, "-comments"):
            raise CheckFailed("pprof -comments does not say times=%s" % kind)
        table = top_table(pprof(ctx, *top))
        flat = {f: v[0] for f, v in table.items()}
        want = {f: r["self_ns"] for f, r in rows.items() if r["self_ns"] or f in flat}
        if flat != want:
            raise CheckFailed("pprof %s flat wall differs from report --times=%s:\n%s\n%s"
                              % (kind, kind, sorted(want.items()), sorted(flat.items())))
    # cum: every path through a function once, as the folded weights say
    cum = collections.Counter()
    for p, w in comp_paths.items():
        for f in set(p):
            cum[f] += w
    got = {f: v[1] for f, v in table.items()}
    if got != {f: cum[f] for f in got}:
        raise CheckFailed("pprof compensated cum wall differs from the folded paths through "
                          "each function:\n%s\n%s" % (sorted(got.items()), sorted(cum.items())))
    print("pprof: flat wall = report self, raw and compensated; cum = the compensated paths "
          "through each function; -comments say which")


def check_labels(ctx):
    for kind, extra in (("raw", ["--times=raw"]), ("compensated", [])):
        with open(convert(ctx, "svg", os.path.join(ctx.tmp, "t.svg"), *extra)) as f:
            if "times=%s)</text>" % kind not in f.read():
                raise CheckFailed("the svg title does not say times=%s" % kind)
        with open(convert(ctx, "dot", os.path.join(ctx.tmp, "t.dot"), *extra)) as f:
            if "\n  // times=%s\n" % kind not in f.read():
                raise CheckFailed("the dot graph does not say times=%s" % kind)
    with open(convert(ctx, "chrome", os.path.join(ctx.tmp, "t.json"))) as f:
        if json.load(f)["otherData"].get("times") != "raw":
            raise CheckFailed("chrome JSON otherData does not say times raw")
    for to, extra in (("chrome", []), ("pola", []), ("perfetto", []),
                      ("folded", ["--weight=calls"]), ("cgr", ["--repo-root=/"])):
        out = os.path.join(ctx.tmp, "refused." + to)
        argv = [ctx.sledtrace, "convert", "--to=" + to, "--times=raw", ctx.trace, "-o", out]
        p = subprocess.run(argv + extra, capture_output=True, text=True, timeout=60)
        lines = p.stderr.splitlines()
        if p.returncode != 2 or len(lines) != 1 or "--times is for" not in lines[0] \
                or os.path.exists(out):
            raise CheckFailed("convert --to=%s --times=raw: exit %d, stderr %r (want exit 2, "
                              "one line, no output)" % (to, p.returncode, p.stderr))
    print("svg and dot say which times; chrome says raw; timelines and cgr refuse --times")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--go", default="go")
    ap.add_argument("--no-empty-leaf", action="store_true")
    ap.add_argument("cmd", nargs="+")
    ctx = ap.parse_args(namespace=Ctx())
    ctx.sledtrace = os.path.abspath(ctx.sledtrace)
    try:
        with tempfile.TemporaryDirectory() as ctx.tmp:
            record(ctx)
            leaf = ctx.stats["probe_cost_ns"]
            if leaf <= 0:
                raise CheckFailed("the trace has no probe cost: nothing to compensate")
            if ctx.no_empty_leaf != (leaf > MAX_PROBE_COST_NS):
                raise CheckFailed("the shortest leaf took %d ns: %s" % (
                    leaf, "expected one over 20 us (no call is empty)" if ctx.no_empty_leaf
                    else "that is no probe cost"))
            inside = leaf if leaf <= MAX_PROBE_COST_NS else 0
            entry, exit_ = ctx.stats.get("probe_entry_ns", 0), ctx.stats.get("probe_exit_ns", 0)
            ctx.cost = (inside, max(inside, entry + exit_) if entry and exit_ else 2 * inside)
            calls = walk(ctx.trace)
            clamped = sum(figure(c.raw, c.hits, ctx.cost) == 0 or
                          figure(c.self_raw, c.self_hits, ctx.cost, True) == 0 for c in calls)
            print("%d calls walked, %d of them clamped at 0 when compensated"
                  % (len(calls), clamped))
            raw, comp = check_report(ctx, calls)
            comp_paths = check_folded(ctx, calls, comp)
            check_pprof(ctx, raw, comp, comp_paths)
            check_labels(ctx)
    except CheckFailed as e:
        sys.exit("FAIL: %s" % e)
    print("ok")


if __name__ == "__main__":
    main()
