#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_export_costs.py: what `record --costs` counted, in the exports that
carry it, read by their real consumers (docs/exports.md).

Records FIXTURE (tests/fixtures/costs.c) with --costs.  Its `COSTS tid=
fn= scope=self` lines say what each traced function did itself on each
thread, known by construction (`-` where it cannot know); the report must
say the same, or the exports would be checked against a wrong reference.
Then one case:
  pprof   go tool pprof: sample types alloc_objects/count, alloc_space/bytes,
          frees/count, syscalls/count, page_faults/count,
          voluntary_switches/count after calls and wall; per type -top
          flat = report's self counts and cum = its inclusive ones, -traces
          per (tid, leaf) = the fixture's counts
  chrome  python's json: the E events' args summed per function = report's
          self counts, NAME_total = its inclusive ones; per (tid,
          function) = the fixture's counts and syscall.NAME its syscalls by
          name; an event's syscall.NAME add up to its syscalls; no arg is
          0, no B event has one
  pola    DuckDB and hyparquet (+ apache-arrow for ARROW:schema): the six
          cost columns after the nine before them (check_exports.py's
          schema); 0 on entry rows; exit rows summed per function =
          report, per (tid, function) = the fixture's counts
Each case also records FIXTURE without --costs: pprof then has calls and
wall only, Chrome no cost args, pola's cost columns only 0s.
Python 3 standard library only (plus the consumers named above).
"""

import argparse
import collections
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_counts import CheckFailed, parse_counts, run  # noqa: E402
from checklib import verdict  # noqa: E402
from check_exports import ARROW_EVENTS, EVENT_COLS, TIMEOUT, sh, top_table  # noqa: E402

# enum cost_kind's order and names (user/model/frame_costs.h)
KINDS = ["allocs", "alloc_bytes", "frees", "syscalls", "page_faults", "voluntary_switches"]
PPROF_TYPES = {"allocs": ("alloc_objects", "count"), "alloc_bytes": ("alloc_space", "bytes"),
               "frees": ("frees", "count"), "syscalls": ("syscalls", "count"),
               "page_faults": ("page_faults", "count"),
               "voluntary_switches": ("voluntary_switches", "count")}
# the fixture's field -> the kind (its sys= list is taken apart below)
FIXTURE_FIELDS = {"allocs": "allocs", "alloc_bytes": "alloc_bytes", "frees": "frees",
                  "faults": "page_faults", "vcsw": "voluntary_switches"}
COSTS_RE = re.compile(r"^COSTS tid=(\d+) fn=(\S+) scope=self (.*)$")


class Ctx:
    pass


def expect_equal(what, want, got, whose="the report"):
    if want != got:
        keys = sorted(set(want) | set(got), key=str)
        diff = ["  %-50s want %-10s got %s" % (k, want.get(k), got.get(k))
                for k in keys if want.get(k) != got.get(k)]
        raise CheckFailed("%s differs from %s:\n%s" % (what, whose, "\n".join(diff)))
    print("%s: %d entries equal %s" % (what, len(want), whose))


def nonzero(d):
    return {k: v for k, v in d.items() if v}


def parse_fixture(stdout):
    """COSTS self lines -> ({(tid, fn, kind): n}, {(tid, fn, syscall): n}),
    only what the fixture knows."""
    known, sys_known = {}, {}
    for line in stdout.splitlines():
        m = COSTS_RE.match(line)
        if not m:
            continue
        tid, fn = int(m.group(1)), m.group(2)
        fields = dict(f.split("=", 1) for f in m.group(3).split())
        for field, kind in FIXTURE_FIELDS.items():
            if fields[field] != "-":
                known[(tid, fn, kind)] = int(fields[field])
        if fields["sys"] != "-":
            by = {} if fields["sys"] == "none" else \
                {n: int(c) for n, c in (p.split(":") for p in fields["sys"].split(","))}
            for name, n in by.items():
                sys_known[(tid, fn, name)] = n
            known[(tid, fn, "syscalls")] = sum(by.values())
    if not any(known.values()) or not sys_known:
        raise CheckFailed("the fixture printed no COSTS lines with counts")
    return known, sys_known


def record(ctx, costs=True):
    """Records the fixture; returns the trace (with --costs: also the
    fixture's counts and the report's, checked against each other)."""
    trace = os.path.join(ctx.tmp, "costs.pftrace" if costs else "plain.pftrace")
    argv = [ctx.sledtrace, "record", "-q", "-o", trace] + (["--costs"] if costs else [])
    status, out, err = run(argv + ["--"] + ctx.cmd, TIMEOUT, "sledtrace record")
    if status != 0:
        raise CheckFailed("record exited %d: %s" % (status, err))
    parse_counts(out, "the fixture")
    if not costs:
        return trace
    ctx.known, ctx.sys_known = parse_fixture(out)
    rep = lambda *a: json.loads(sh([ctx.sledtrace, "report", "--format=json"]  # noqa: E731
                                   + list(a) + [trace], "report")[0])
    doc = rep()
    if doc["stats"].get("costs") != 1:
        raise CheckFailed("the trace's stats do not say costs=1: %s" % doc["stats"])
    ctx.self = {(r["function"], k): r[k] for r in doc["rows"] for k in KINDS}
    ctx.total = {(r["function"], k): r[k + "_total"] for r in doc["rows"] for k in KINDS}
    by_thread = {(r["tid"], r["function"], k): r[k]
                 for r in rep("--by-thread")["rows"] for k in KINDS}
    expect_equal("report --by-thread (the reference)", ctx.known,
                 {k: by_thread.get(k, 0) for k in ctx.known}, "the fixture's own counts")
    return trace


def convert(ctx, trace, fmt, out):
    out = os.path.join(ctx.tmp, out)
    _, err = sh([ctx.sledtrace, "convert", "--to=" + fmt, trace, "-o", out], "sledtrace convert")
    if err.strip():
        raise CheckFailed("convert --to=%s printed on stderr: %r" % (fmt, err))
    return out


def known_of(ctx, got):
    """got {(tid, fn, kind): n} at the fixture's known keys (0 if absent)."""
    return {k: got.get(k, 0) for k in ctx.known}


# ---- pprof ------------------------------------------------------------------------

def pprof(ctx, pb, *args):
    env = dict(os.environ, PPROF_TMPDIR=ctx.tmp, GOFLAGS="-mod=mod", GOTOOLCHAIN="local")
    return sh([ctx.go, "tool", "pprof", "-symbolize=none"] + list(args) + [pb],
              "go tool pprof", env=env)[0]


def sample_types(raw):
    for line in raw.splitlines():
        if line.startswith("calls/count"):
            return line.split()
    raise CheckFailed("go tool pprof -raw lists no sample types: %s" % raw[:400])


def traces_by_leaf(text):
    """-traces -> {(tid, leaf): value} (a unit suffix, as 670B, dropped)."""
    got = collections.Counter()
    for block in text.split("-----------+")[1:]:
        labels = dict(re.findall(r"^\s+(\w+):\s+(.*)$", block, re.M))
        m = re.search(r"^\s+(\d+)[A-Za-z]*\s+(\S.*)$", block, re.M)
        if m:
            got[(int(labels["tid"]), m.group(2).strip())] += int(m.group(1))
    return got


def case_pprof(ctx):
    trace = record(ctx)
    pb = convert(ctx, trace, "pprof", "t.pb.gz")
    want = ["calls/count", "wall/nanoseconds[dflt]"] + \
        ["%s/%s" % PPROF_TYPES[k] for k in KINDS]
    if sample_types(pprof(ctx, pb, "-raw")) != want:
        raise CheckFailed("sample types %s, want %s"
                          % (sample_types(pprof(ctx, pb, "-raw")), want))
    top = ("-top", "-nodecount=1000000", "-nodefraction=0", "-edgefraction=0")
    flat, cum, leaf = {}, {}, {}
    for kind in KINDS:
        index = PPROF_TYPES[kind][0]
        # bytes would be scaled to kB and MB: -unit=B keeps them whole
        unit = ["-unit=B"] if PPROF_TYPES[kind][1] == "bytes" else []
        for fn, (f, c) in top_table(pprof(ctx, pb, *top, "-sample_index=" + index,
                                          *unit)).items():
            flat[(fn, kind)], cum[(fn, kind)] = f, c
        traces = pprof(ctx, pb, "-traces", "-sample_index=" + index, *unit)
        for (tid, fn), n in traces_by_leaf(traces).items():
            leaf[(tid, fn, kind)] = n
    expect_equal("pprof -top flat (self counts)", nonzero(ctx.self), nonzero(flat))
    # cum sums the paths through a function: its inclusive counts, where
    # no function recurses (none of the fixture's does)
    expect_equal("pprof -top cum (inclusive counts)", nonzero(ctx.total), nonzero(cum))
    expect_equal("pprof -traces per (tid, leaf)", ctx.known, known_of(ctx, leaf),
                 "the fixture's own counts")
    pb = convert(ctx, record(ctx, costs=False), "pprof", "plain.pb.gz")
    if sample_types(pprof(ctx, pb, "-raw")) != want[:2]:
        raise CheckFailed("without --costs the sample types are %s, want %s"
                          % (sample_types(pprof(ctx, pb, "-raw")), want[:2]))
    print("without --costs: calls and wall only")


# ---- Chrome JSON ------------------------------------------------------------------

def chrome_args(path):
    """E events' cost args -> (self {(tid, fn, kind)}, total {(fn, kind)},
    syscalls {(tid, fn, name)}), each summed."""
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    own, total, sys_by = collections.Counter(), collections.Counter(), collections.Counter()
    for ev in events:
        args = ev.get("args", {}) if ev["ph"] in ("B", "E") else {}
        costs = {k: v for k, v in args.items()
                 if k in KINDS or k.startswith("syscall.")
                 or (k.endswith("_total") and k[:-6] in KINDS)}
        if costs and ev["ph"] != "E":
            raise CheckFailed("a %s event carries costs: %r" % (ev["ph"], ev))
        if any(not isinstance(v, int) or v <= 0 for v in costs.values()):
            raise CheckFailed("a cost arg that is 0 or no count: %r" % ev)
        key = (ev.get("tid"), ev.get("name"))
        for kind in KINDS:
            own[key + (kind,)] += costs.get(kind, 0)
            if costs.get(kind + "_total") == costs.get(kind, 0):
                raise CheckFailed("%s_total repeats the self count: %r" % (kind, ev))
            total[(key[1], kind)] += costs.get(kind + "_total", costs.get(kind, 0))
        by_name = {k[8:]: v for k, v in costs.items() if k.startswith("syscall.")}
        if sum(by_name.values()) != costs.get("syscalls", 0):
            raise CheckFailed("syscall.NAME args do not add up to syscalls: %r" % ev)
        for name, v in by_name.items():
            sys_by[key + (name,)] += v
    return own, total, sys_by


def case_chrome(ctx):
    own, total, sys_by = chrome_args(convert(ctx, record(ctx), "chrome", "t.json"))
    per_fn = collections.Counter()
    for (_, fn, kind), n in own.items():
        per_fn[(fn, kind)] += n
    expect_equal("chrome E args per function (self)", nonzero(ctx.self), nonzero(per_fn))
    expect_equal("chrome E args NAME_total per function", nonzero(ctx.total), nonzero(total))
    expect_equal("chrome E args per (tid, function)", ctx.known, known_of(ctx, own),
                 "the fixture's own counts")
    expect_equal("chrome E args syscall.NAME per (tid, function)", ctx.sys_known,
                 {k: sys_by.get(k, 0) for k in ctx.sys_known}, "the fixture's own counts")
    own, total, sys_by = chrome_args(convert(ctx, record(ctx, costs=False), "chrome",
                                             "plain.json"))
    if nonzero(own) or nonzero(sys_by):
        raise CheckFailed("without --costs the E events carry costs")
    print("without --costs: no cost args")


# ---- pola (Parquet) -----------------------------------------------------------------

COST_COLS = [[k, "UBIGINT"] for k in KINDS]
ARROW_COSTS = [[k, "Uint64"] for k in KINDS]


def read_pola(ctx, path, reader):
    out, _ = sh(["node", os.path.join(ctx.node_dir, "read_parquet.mjs"), reader, path,
                 path + ".symtab"], "node " + reader)
    got = json.loads(out)
    ev = got["files"]["events"]
    if reader == "duckdb" and (ev["columns"] != EVENT_COLS or ev["columns"][9:] != COST_COLS):
        raise CheckFailed("duckdb: events columns %s" % ev["columns"])
    if reader == "hyparquet" and (ev["arrow_schema"] != ARROW_EVENTS or
                                  ev["arrow_schema"][9:] != ARROW_COSTS):
        raise CheckFailed("ARROW:schema of the events: %s" % ev["arrow_schema"])
    if got["costs"]["entries_with_costs"]:
        raise CheckFailed("%s: %d entry rows carry costs" % (reader,
                                                             got["costs"]["entries_with_costs"]))
    sums = {}
    for fn, tid, *v in got["costs"]["sums"]:
        for kind, n in zip(KINDS, v):
            sums[(tid, fn, kind)] = int(n)
    return sums


def case_pola(ctx):
    path = convert(ctx, record(ctx), "pola", "t.pola")
    for reader in ["duckdb", "hyparquet"]:
        sums = read_pola(ctx, path, reader)
        per_fn = collections.Counter()
        for (_, fn, kind), n in sums.items():
            per_fn[(fn, kind)] += n
        expect_equal(reader + " exit rows per function", nonzero(ctx.self), nonzero(per_fn))
        expect_equal(reader + " exit rows per (tid, function)", ctx.known,
                     known_of(ctx, sums), "the fixture's own counts")
    path = convert(ctx, record(ctx, costs=False), "pola", "plain.pola")
    for reader in ["duckdb", "hyparquet"]:
        if nonzero(read_pola(ctx, path, reader)):
            raise CheckFailed("%s: without --costs the cost columns are not all 0" % reader)
    print("without --costs: the cost columns are there, all 0")


CASES = {"pprof": case_pprof, "chrome": case_chrome, "pola": case_pola}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    ap.add_argument("--node-dir", default=os.path.join(os.path.dirname(__file__), "npm"))
    ap.add_argument("--go", default="go")
    ap.add_argument("cmd", nargs="+")
    ctx = ap.parse_args(namespace=Ctx())
    ctx.sledtrace = os.path.abspath(ctx.sledtrace)
    with tempfile.TemporaryDirectory() as ctx.tmp:
        return verdict(CASES[ctx.case], ctx, passed="ok")


if __name__ == "__main__":
    sys.exit(main())
