#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_times.py: raw and compensated times, in the report and in every
export that sums times, against each other and the probe-cost arithmetic.

Records FIXTURE once (its COUNT lines must equal the report exactly, as in
check_exports.py), then, with C = the trace's probe_cost_ns (must be > 0)
and the call counts of every call path from `convert --to=folded
--weight=calls`:
  folded   compensated self weights sum to the report's per function; on
           every path of a function clamped nowhere, compensated = raw -
           C x hits exactly (hits = the path's calls + its direct child
           paths' calls), elsewhere at most that
  report   per function, compensated self and total = raw less C x the
           hits of its paths (total: paths where it is outermost, hits =
           calls + 2 x all calls below), clamped at 0 per function; the
           default is compensated and every format says which
  pprof    `go tool pprof` reads both; flat wall = report self in either
           kind, compensated cum = the folded paths through the function,
           and -comments says which
  svg, dot say which times; chrome says raw (a timeline keeps its real
           timestamps) and refuses --times, as do pola, perfetto and cgr
Python 3 standard library only (plus go tool pprof).
"""

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_counts import CheckFailed  # noqa: E402
from check_exports import Ctx, convert, pprof, record, sh, top_table  # noqa: E402


def folded(ctx, name, *extra):
    """{path tuple: value} of a folded export; the elided pseudo-paths
    (calls the writer never timed, no hits known) are left out."""
    path = convert(ctx, "folded", os.path.join(ctx.tmp, name), *extra)
    out = {}
    with open(path) as f:
        for line in f:
            stack, n = line.rstrip("\n").rsplit(" ", 1)
            frames = tuple(stack.split(";"))
            if not frames[0].startswith("["):
                out[frames] = int(n)
    return out


def path_hits(calls):
    """Per path: probe hits inside its self time (its own exits plus its
    direct children's entries) and inside its total time (its exits plus
    every entry and exit below it)."""
    child, below = collections.Counter(), collections.Counter()
    for p, n in calls.items():
        if len(p) > 1:
            child[p[:-1]] += n
        for k in range(1, len(p)):
            below[p[:k]] += n
    return ({p: n + child[p] for p, n in calls.items()},
            {p: n + 2 * below[p] for p, n in calls.items()})


def check_folded(ctx, calls, self_hits, comp_rows):
    raw = folded(ctx, "raw.folded", "--times=raw")
    comp = folded(ctx, "comp.folded")
    if set(comp) - set(calls):
        raise CheckFailed("folded self weights on paths without calls: %s"
                          % sorted(set(comp) - set(calls)))
    by_fn = collections.defaultdict(list)
    for p, hits in self_hits.items():
        by_fn[p[-1]].append((p, raw.get(p, 0) - ctx.cost * hits, comp.get(p, 0)))
    exact = 0
    for f, paths in by_fn.items():
        if sum(c for _, _, c in paths) != comp_rows[f]["self_ns"]:
            raise CheckFailed("folded %s: compensated self weights sum to %d, report says %d"
                              % (f, sum(c for _, _, c in paths), comp_rows[f]["self_ns"]))
        clamped = any(kept < 0 for _, kept, _ in paths)
        for p, kept, c in paths:
            # a function clamped on some path shares the report's figure
            # among its paths, none getting more than it keeps alone
            if (not clamped and c != kept) or c > max(0, kept):
                raise CheckFailed("folded %s: compensated %d, raw less %d ns x hits = %d"
                                  % (";".join(p), c, ctx.cost, kept))
        exact += not clamped
    if not exact:
        raise CheckFailed("every function was clamped: the exact difference went unchecked")
    print("folded: %d paths sum to the report per function; raw - compensated = %d ns x hits "
          "on every path of %d of %d functions (the others clamped at 0 somewhere)"
          % (len(self_hits), ctx.cost, exact, len(by_fn)))
    return comp


def report_rows(ctx, *args):
    out, _ = sh([ctx.sledtrace, "report", "--format=json"] + list(args) + [ctx.trace], "report")
    doc = json.loads(out)
    return doc, {r["function"]: r for r in doc["rows"]}


def check_report(ctx, calls, self_hits, total_hits):
    want_self, want_total = collections.Counter(), collections.Counter()
    for p in calls:
        want_self[p[-1]] += self_hits[p]
        if p[-1] not in p[:-1]:  # outermost activations only, as total is counted
            want_total[p[-1]] += total_hits[p]
    doc_raw, raw = report_rows(ctx, "--times=raw")
    doc, comp = report_rows(ctx)
    if (doc_raw["times"], doc["times"]) != ("raw", "compensated"):
        raise CheckFailed("report JSON times: --times=raw %r, default %r"
                          % (doc_raw["times"], doc["times"]))
    for f, r in raw.items():
        for col, hits in (("self_ns", want_self[f]), ("total_ns", want_total[f])):
            want = max(0, r[col] - ctx.cost * hits)
            if comp[f][col] != want:
                raise CheckFailed("report %s %s: compensated %d, raw %d - %d x %d hits = %d"
                                  % (f, col, comp[f][col], r[col], ctx.cost, hits, want))
        if comp[f]["calls"] != r["calls"] or comp[f]["max_ns"] != r["max_ns"]:
            raise CheckFailed("report %s: calls or durations differ between kinds" % f)
    for fmt, say in (("tsv", " times=compensated\n"), ("csv", " times=compensated\n"),
                     ("table", "\ntimes: compensated\n")):
        out, _ = sh([ctx.sledtrace, "report", "--format=" + fmt, ctx.trace], "report")
        if say not in out:
            raise CheckFailed("report --format=%s does not say %r" % (fmt, say.strip()))
    check_edges(ctx, calls, total_hits, raw)
    print("report: %d functions, self and total = raw - %d ns x hits; edges too"
          % (len(raw), ctx.cost))
    return raw, comp


def check_edges(ctx, calls, total_hits, functions):
    """--callees: an edge's total is its calls' durations, each call's
    hits those of its path's total."""
    want_hits = collections.Counter()
    for p in calls:
        want_hits[(p[-2] if len(p) > 1 else "[root]", p[-1])] += total_hits[p]
    for f in functions:
        edges = {}
        for kind in ("raw", "compensated"):
            out, _ = sh([ctx.sledtrace, "report", "--format=json", "--times=" + kind,
                         "--callees=" + f, ctx.trace], "report --callees")
            doc = json.loads(out)
            if doc["times"] != kind:
                raise CheckFailed("--callees JSON says times %r, asked %s" % (doc["times"], kind))
            edges[kind] = {(e["caller"], e["callee"]): e["total_ns"] for e in doc["edges"]}
        for k, r in edges["raw"].items():
            want = max(0, r - ctx.cost * want_hits[k])
            if edges["compensated"][k] != want:
                raise CheckFailed("edge %s -> %s: compensated %d, raw %d - %d x %d hits = %d"
                                  % (k[0], k[1], edges["compensated"][k], r, ctx.cost,
                                     want_hits[k], want))


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
    ap.add_argument("cmd", nargs="+")
    ctx = ap.parse_args(namespace=Ctx())
    ctx.sledtrace = os.path.abspath(ctx.sledtrace)
    try:
        with tempfile.TemporaryDirectory() as ctx.tmp:
            record(ctx)
            ctx.cost = ctx.stats["probe_cost_ns"]
            if ctx.cost <= 0:
                raise CheckFailed("the trace has no probe cost: nothing to compensate")
            calls = folded(ctx, "calls.folded", "--weight=calls")
            self_hits, total_hits = path_hits(calls)
            raw, comp = check_report(ctx, calls, self_hits, total_hits)
            comp_paths = check_folded(ctx, calls, self_hits, comp)
            check_pprof(ctx, raw, comp, comp_paths)
            check_labels(ctx)
    except CheckFailed as e:
        sys.exit("FAIL: %s" % e)
    print("ok")


if __name__ == "__main__":
    main()
