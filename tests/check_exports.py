#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_exports.py: every export of a real trace, read by its real
consumer, must agree with `sledtrace report`.

Records FIXTURE once (its COUNT lines must equal the report exactly, as in
check_counts.py), then runs one case:
  pprof      go tool pprof: -raw reads it; -top flat calls and wall (ns)
             per function = report calls and self, cum wall = total (raw);
             -traces per (tid, leaf) calls = report --by-thread
  chrome     python's json: B/E nest per thread with equal names, B per
             (tid, function) = report, process/thread names present
  pola       DuckDB and hyparquet (+ apache-arrow for ARROW:schema):
             schemas, row counts, entries per function = report
  cgr        JSON lines: header sampled=false; edges = report --callers
             (fixtures whose functions are all in the repo), bare names
  dot        graphviz: dot -Tjson parses it; node calls = report, edge
             counts = report --callers
  svg        chromium renders it to a PNG that is not blank; <title>
             calls per function (min width 0) = report
  folded     --weight=calls: calls per leaf = report
  perfetto   convert --to=perfetto -o X.pb.gz gunzips to the trace itself
  record-gz  record -o X.pb.gz is gzip (python's gzip reads it) and reports
             the fixture's counts, read directly and gunzip'd
  report     table/tsv/csv/json agree; --top, --function, --by-process,
             --callers/--callees, percentiles ordered, avg = total / calls,
             names elided to fit
  bad-input  truncated, corrupt, empty and non-trace files: every command
             and format fails with one `sledtrace: ` line and no output
  drops      a trace that lost events converts with a warning line
Python 3 standard library only (plus the consumers named above).
"""

import argparse
import collections
import csv
import gzip
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_counts import CheckFailed, parse_counts, parse_report, run  # noqa: E402
from checklib import verdict  # noqa: E402

TIMEOUT = 120
FORMATS = ["folded", "pprof", "chrome", "pola", "cgr", "dot", "svg", "perfetto"]


class Ctx:
    pass


def sh(argv, what, env=None, ok=(0,), timeout=TIMEOUT, cwd=None):
    status, out, err = run(argv, timeout, what, cwd=cwd, env=env)
    if status not in ok:
        raise CheckFailed("`%s` exited %d\n--- stderr ---\n%s" % (" ".join(argv), status, err))
    return out, err


def convert(ctx, fmt, out, *extra):
    argv = [ctx.sledtrace, "convert", "--to=" + fmt, ctx.trace, "-o", out] + list(extra)
    _, err = sh(argv, "sledtrace convert")
    if err.strip():
        raise CheckFailed("convert --to=%s printed on stderr: %r" % (fmt, err))
    return out


def expect_equal(what, want, got):
    if want != got:
        keys = sorted(set(want) | set(got), key=str)
        diff = ["  %-40s report %-10s %s" % (k, want.get(k), got.get(k))
                for k in keys if want.get(k) != got.get(k)]
        raise CheckFailed("%s differs from the report:\n%s" % (what, "\n".join(diff)))
    print("%s: %d entries equal the report" % (what, len(want)))


# ---- the trace and its report -----------------------------------------------

def record(ctx):
    ctx.trace = os.path.join(ctx.tmp, "t.pftrace")
    status, out, err = run([ctx.sledtrace, "record", "-q", "-o", ctx.trace, "--"] + ctx.cmd,
                           TIMEOUT, "sledtrace record")
    if status != 0:
        raise CheckFailed("record exited %d: %s" % (status, err))
    counts, _ = parse_counts(out, "the fixture")
    out, _ = sh([ctx.sledtrace, "report", "--by-thread", "--format=tsv", "--times=raw",
                 ctx.trace], "report")
    ctx.by_thread = parse_report(out, exact_names=True)
    got = collections.Counter()
    for (tid, fn), (calls, _, _) in ctx.by_thread.items():
        got[(tid, fn)] += calls
    if counts and {k: v for k, v in got.items() if v} != counts:
        raise CheckFailed("the report does not match the fixture's own counts:\n%s\n%s"
                          % (sorted(counts.items()), sorted(got.items())))
    out, _ = sh([ctx.sledtrace, "report", "--format=json", ctx.trace], "report")
    rep = json.loads(out)
    ctx.rows = {r["function"]: r for r in rep["rows"]}
    ctx.stats = rep["stats"]
    ctx.calls = {f: r["calls"] for f, r in ctx.rows.items()}
    # Calls deeper than the trace's depth cap were counted, never timed:
    # formats made of timed frames (Chrome, pola, SVG) cannot hold them.
    ctx.timed = {f: r["calls"] - r["elided"] for f, r in ctx.rows.items()
                 if r["calls"] > r["elided"]}
    out, _ = sh([ctx.sledtrace, "report", "--by-thread", "--format=json", ctx.trace], "report")
    ctx.timed_by_thread = {(r["tid"], r["function"]): r["calls"] - r["elided"]
                           for r in json.loads(out)["rows"] if r["calls"] > r["elided"]}
    print("recorded %d calls of %d functions on %d threads"
          % (sum(ctx.calls.values()), len(ctx.calls), len({t for t, _ in ctx.by_thread})))


def report_edges(ctx):
    """{(caller, callee): calls} from report --callers for every function."""
    edges = {}
    for fn in ctx.calls:
        out, _ = sh([ctx.sledtrace, "report", "--callers=" + fn, "--format=json", ctx.trace],
                    "report --callers")
        for e in json.loads(out)["edges"]:
            edges[(e["caller"], e["callee"])] = e["calls"]
    return edges


# ---- pprof ------------------------------------------------------------------

def pprof(ctx, *args):
    env = dict(os.environ, PPROF_TMPDIR=ctx.tmp, GOFLAGS="-mod=mod", GOTOOLCHAIN="local")
    out, _ = sh([ctx.go, "tool", "pprof", "-symbolize=none"] + list(args) + [ctx.pb],
                "go tool pprof", env=env)
    return out


def top_table(text):
    """-top rows -> {name: (flat, cum)} (numbers with an optional unit)."""
    rows, on = {}, False
    for line in text.splitlines():
        if line.strip().startswith("flat"):
            on = True
            continue
        if on and line.strip():
            p = line.split(None, 5)
            num = lambda s: int(re.match(r"\d+", s).group())  # noqa: E731
            if not p[5].startswith("["):  # the elided calls' pseudo-frame
                rows[p[5]] = (num(p[0]), num(p[3]))
    return rows


def case_pprof(ctx):
    ctx.pb = convert(ctx, "pprof", os.path.join(ctx.tmp, "t.pb.gz"))
    raw = pprof(ctx, "-raw")
    if "calls/count wall/nanoseconds[dflt]" not in raw:
        raise CheckFailed("sample types are not calls/count, wall/nanoseconds: %s" % raw[:400])
    top = ("-top", "-nodecount=1000000", "-nodefraction=0", "-edgefraction=0")
    calls = top_table(pprof(ctx, *top, "-sample_index=calls"))
    expect_equal("pprof -top flat calls", ctx.calls, {f: v[0] for f, v in calls.items()})
    wall = top_table(pprof(ctx, *top, "-sample_index=wall", "-unit=ns"))
    expect_equal("pprof -top flat wall ns (self)",
                 {f: r["self_ns"] for f, r in ctx.rows.items() if r["self_ns"] or f in wall},
                 {f: v[0] for f, v in wall.items()})
    # cum sums the paths through a function: with compensated times that
    # is the report's total only where nothing was clamped at 0, so the
    # identity is checked on raw times (check_times.py checks the rest)
    out, _ = sh([ctx.sledtrace, "report", "--times=raw", "--format=json", ctx.trace], "report")
    raw_total = {r["function"]: r["total_ns"] for r in json.loads(out)["rows"]}
    ctx.pb = convert(ctx, "pprof", os.path.join(ctx.tmp, "raw.pb.gz"), "--times=raw")
    wall = top_table(pprof(ctx, *top, "-sample_index=wall", "-unit=ns"))
    expect_equal("pprof -top cum wall ns (total), raw times",
                 {f: t for f, t in raw_total.items() if f in wall},
                 {f: v[1] for f, v in wall.items()})
    per_thread = collections.Counter()
    for block in pprof(ctx, "-traces", "-sample_index=calls").split("-----------+")[1:]:
        labels = dict(re.findall(r"^\s+(\w+):\s+(.*)$", block, re.M))
        m = re.search(r"^\s+(\d+)\s+(\S.*)$", block, re.M)
        if m:
            per_thread[(int(labels["tid"]), m.group(2).strip())] += int(m.group(1))
    expect_equal("pprof -traces calls per (tid, function)",
                 {k: v[0] for k, v in ctx.by_thread.items()}, dict(per_thread))


# ---- Chrome JSON --------------------------------------------------------------

def case_chrome(ctx):
    path = convert(ctx, "chrome", os.path.join(ctx.tmp, "t.json"))
    with open(path) as f:
        doc = json.load(f)
    stacks, begins, names = collections.defaultdict(list), collections.Counter(), set()
    last_ts, flow_starts, flow_ends = {}, set(), []
    for ev in doc["traceEvents"]:
        key = (ev["pid"], ev["tid"])
        if ev["ph"] == "M":
            names.add((ev["name"], key if ev["name"] == "thread_name" else ev["pid"]))
            continue
        if not isinstance(ev["ts"], (int, float)) or ev["ts"] < last_ts.get(key, -1e300):
            raise CheckFailed("ts goes back on %s: %r" % (key, ev))
        last_ts[key] = ev["ts"]
        if ev["ph"] == "B":
            stacks[key].append(ev["name"])
            begins[(ev["tid"], ev["name"])] += 1
        elif ev["ph"] == "E":
            if not stacks[key] or stacks[key].pop() != ev["name"]:
                raise CheckFailed("E without a matching B on %s: %r" % (key, ev))
        elif ev["ph"] in ("s", "f") and ev.get("cat") == "cause":
            # a cause's flow: its start inside a slice, its end bound to the
            # slice that begins there (docs/exports.md)
            if not stacks[key] or (ev["ph"] == "f" and ev.get("bp") != "e"):
                raise CheckFailed("flow event outside a slice: %r" % ev)
            (flow_starts.add if ev["ph"] == "s" else flow_ends.append)(ev["id"])
        else:
            raise CheckFailed("unexpected phase %r" % ev)
    if not set(flow_ends) <= flow_starts or len(set(flow_ends)) != len(flow_ends):
        raise CheckFailed("flows end without a start, or twice: %s"
                          % sorted(set(flow_ends) - flow_starts)[:5])
    if any(stacks.values()):
        raise CheckFailed("B events left open: %s" % dict(stacks))
    for key in last_ts:
        if ("thread_name", key) not in names or ("process_name", key[0]) not in names:
            raise CheckFailed("no process/thread name metadata for %s" % (key,))
    expect_equal("chrome B events per (tid, function)", ctx.timed_by_thread, dict(begins))
    if str(ctx.stats["events"]) not in doc["otherData"]["stats"]:
        raise CheckFailed("otherData.stats lacks the trace's stats: %r" % doc["otherData"])


# ---- pola (Parquet) -------------------------------------------------------------

# the last six: record --costs's self counts (check_export_costs.py)
EVENT_COLS = [["frame_id", "UBIGINT"], ["parent", "UBIGINT"], ["tid", "UINTEGER"],
              ["func_id", "UBIGINT"], ["time", "BIGINT"], ["kind", "UINTEGER"],
              ["probe_ns", "UBIGINT"], ["cause", "UBIGINT"], ["cause_kind", "UINTEGER"],
              ["allocs", "UBIGINT"], ["alloc_bytes", "UBIGINT"], ["frees", "UBIGINT"],
              ["syscalls", "UBIGINT"], ["page_faults", "UBIGINT"],
              ["voluntary_switches", "UBIGINT"]]
SYMTAB_COLS = [["func_id", "UBIGINT"], ["name", "VARCHAR"], ["path", "VARCHAR"]]
ARROW_EVENTS = [["frame_id", "Uint64"], ["parent", "Uint64"], ["tid", "Uint32"],
                ["func_id", "Uint64"], ["time", "Duration<NANOSECOND>"], ["kind", "Uint32"],
                ["probe_ns", "Uint64"], ["cause", "Uint64"], ["cause_kind", "Uint32"],
                ["allocs", "Uint64"], ["alloc_bytes", "Uint64"], ["frees", "Uint64"],
                ["syscalls", "Uint64"], ["page_faults", "Uint64"],
                ["voluntary_switches", "Uint64"]]


def case_pola(ctx):
    path = convert(ctx, "pola", os.path.join(ctx.tmp, "t.pola"))
    calls = sum(ctx.timed.values())
    for reader in ["duckdb", "hyparquet"]:
        out, _ = sh(["node", os.path.join(ctx.node_dir, "read_parquet.mjs"), reader, path,
                     path + ".symtab"], "node " + reader)
        got = json.loads(out)
        ev, sym = got["files"]["events"], got["files"]["symtab"]
        if ev["rows"] != 2 * calls or sym["rows"] != len(ctx.calls):
            raise CheckFailed("%s: %d event rows (want %d), %d symbols (want %d)"
                              % (reader, ev["rows"], 2 * calls, sym["rows"], len(ctx.calls)))
        if reader == "duckdb" and (ev["columns"] != EVENT_COLS or sym["columns"] != SYMTAB_COLS):
            raise CheckFailed("duckdb schemas: %s / %s" % (ev["columns"], sym["columns"]))
        if reader == "hyparquet" and ev["arrow_schema"] != ARROW_EVENTS:
            raise CheckFailed("ARROW:schema of the events: %s" % ev["arrow_schema"])
        if got["kinds"].get("1") != calls or \
                got["kinds"].get("2", 0) + got["kinds"].get("3", 0) != calls:
            raise CheckFailed("%s: entries/exits %s, want %d each" % (reader, got["kinds"], calls))
        expect_equal(reader + " entries per function", ctx.timed, got["entries"])
        if reader == "duckdb" and (got["probe"]["entry_nonzero"] or
                                   got["probe"]["over_duration"] or
                                   not got["probe"]["exits_with_probe"]):
            raise CheckFailed("probe_ns: %s (0 on entries, at most the duration on exits, "
                              "some probe cost in a trace of real probes)" % got["probe"])


# ---- cgr ------------------------------------------------------------------------

def case_cgr(ctx):
    path = convert(ctx, "cgr", os.path.join(ctx.tmp, "t.jsonl"), "--repo-root", ctx.repo_root)
    with open(path) as f:
        lines = [json.loads(line) for line in f]
    head = lines[0]
    if head.get("kind") != "header" or head.get("sampled") is not False or \
            head.get("version") != 1 or head.get("repo_root") != ctx.repo_root.rstrip("/"):
        raise CheckFailed("bad header: %r" % head)
    got = collections.Counter()
    for e in lines[1:]:
        for side in ("caller", "callee"):
            ep = e[side]
            if not ep["path"].startswith(head["repo_root"] + "/") or "/../" in ep["path"]:
                raise CheckFailed("%s path outside the repo: %r" % (side, ep))
            if re.search(r"[(:<]", ep["qualname"]) and not ep["qualname"].startswith("operator"):
                raise CheckFailed("%s qualname is not bare: %r" % (side, ep))
        if e["kind"] != "call" or e["count"] < 1:
            raise CheckFailed("bad edge: %r" % e)
        got[(e["caller"]["qualname"], e["callee"]["qualname"])] += e["count"]
    if ctx.exact_edges:
        want = {k: v for k, v in report_edges(ctx).items() if k[0] != "[root]"}
        expect_equal("cgr edges", want, dict(got))
    elif not got:
        raise CheckFailed("no in-repo edges")
    print("cgr: %d edges, language %s" % (len(lines) - 1, head["language"]))


# ---- DOT --------------------------------------------------------------------------

def case_dot(ctx):
    path = convert(ctx, "dot", os.path.join(ctx.tmp, "t.dot"))
    out, err = sh([ctx.dot, "-Tjson", path], "dot")
    if err.strip():
        raise CheckFailed("dot complained: %s" % err)
    g = json.loads(out)
    nodes = {o["_gvid"]: o for o in g.get("objects", [])}
    name = {i: o["label"].split("\\n")[0] for i, o in nodes.items()}
    expect_equal("dot node calls", ctx.calls, {name[i]: int(o["calls"]) for i, o in nodes.items()
                                               if not name[i].startswith("[")})
    edges = {(name[e["tail"]], name[e["head"]]): int(e["calls"]) for e in g.get("edges", [])
             if not name[e["tail"]].startswith("[")}
    expect_equal("dot edges", {k: v for k, v in report_edges(ctx).items() if k[0] != "[root]"},
                 edges)
    sh([ctx.dot, "-Tsvg", path, "-o", os.path.join(ctx.tmp, "t.dot.svg")], "dot -Tsvg")


# ---- SVG flame graph ----------------------------------------------------------

def png_pixels(path):
    """A minimal PNG decoder (8-bit RGB/RGBA, non-interlaced) -> rows."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise CheckFailed("%s is not a PNG" % path)
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise CheckFailed("unexpected PNG type %d/%d" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        ft, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return rows


def case_svg(ctx):
    path = convert(ctx, "svg", os.path.join(ctx.tmp, "t.svg"), "--min-width=0", "--width=1000")
    root = ET.parse(path).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    calls = collections.Counter()
    for g in root.iter(ns + "g"):
        m = re.match(r"(.*) \(calls (\d+), ", g.find(ns + "title").text)
        if m:
            calls[m.group(1)] += int(m.group(2))
    if root.find(ns + "script") is not None:
        raise CheckFailed("the SVG carries a script")
    expect_equal("svg frame calls", ctx.timed, dict(calls))
    png = os.path.join(ctx.tmp, "t.png")
    sh([ctx.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        "--user-data-dir=" + os.path.join(ctx.tmp, "chromium"), "--screenshot=" + png,
        "--window-size=1000,%d" % (int(float(root.get("height"))) + 400), "file://" + path],
       "chromium", env=dict(os.environ, HOME=ctx.tmp), timeout=120)
    rows = png_pixels(png)
    colors = collections.Counter(px for row in rows for px in row)
    background, nbg = colors.most_common(1)[0]
    warm = sum(n for (r, g, b), n in colors.items() if r >= 200 and 80 <= g <= 210 and b <= 80)
    total = sum(colors.values())
    print("png: %d pixels, %d colours, %.1f%% flame-coloured"
          % (total, len(colors), 100.0 * warm / total))
    if len(colors) < 8 or warm < total // 50:
        raise CheckFailed("the rendered flame graph looks blank (%d colours, %d flame pixels)"
                          % (len(colors), warm))
    if ctx.keep_png:
        shutil.copy(png, ctx.keep_png)


# ---- folded, perfetto copy ------------------------------------------------------

def case_folded(ctx):
    path = convert(ctx, "folded", os.path.join(ctx.tmp, "t.folded"), "--weight=calls")
    leaf = collections.Counter()
    with open(path) as f:
        for line in f:
            stack, n = line.rstrip("\n").rsplit(" ", 1)
            leaf[stack.split(";")[-1]] += int(n)
    expect_equal("folded calls per leaf", ctx.calls, dict(leaf))


def case_perfetto(ctx):
    path = convert(ctx, "perfetto", os.path.join(ctx.tmp, "t.pb.gz"))
    with gzip.open(path) as f, open(ctx.trace, "rb") as g:
        if f.read() != g.read():
            raise CheckFailed("the .pb.gz does not gunzip to the trace")
    again = sh([ctx.sledtrace, "report", "--format=json", path], "report")[0]
    if json.loads(again)["rows"] != list(ctx.rows.values()):
        raise CheckFailed("report reads the .pb.gz differently")
    print("gzip'd copy is byte-identical after gunzip, and report reads it")


def case_record_gz(ctx):
    """record -o NAME.gz writes gzip (python's gzip reads it); sledtrace
    reads the .gz itself, and both give the fixture's counts."""
    gz = os.path.join(ctx.tmp, "again.pb.gz")
    status, out, err = run([ctx.sledtrace, "record", "-q", "-o", gz, "--"] + ctx.cmd, TIMEOUT,
                           "sledtrace record")
    if status != 0 or not os.path.exists(gz):
        raise CheckFailed("record -o %s exited %d: %s" % (gz, status, err))
    counts, _ = parse_counts(out, "the fixture")
    plain = os.path.join(ctx.tmp, "again.pftrace")
    with gzip.open(gz) as f, open(plain, "wb") as g:
        g.write(f.read())
    reports = [sh([ctx.sledtrace, "report", "--by-thread", "--format=tsv", "--times=raw", p],
                  "report")[0] for p in (gz, plain)]
    if reports[0] != reports[1]:
        raise CheckFailed("the .gz and its gunzip'd trace report differently")
    got = {k: v[0] for k, v in parse_report(reports[0], exact_names=True).items() if v[0]}
    expect_equal("record -o .gz calls per (tid, function)", counts, got)


# ---- report formats ---------------------------------------------------------------

def case_report(ctx):
    rep = lambda *a, env=None: sh([ctx.sledtrace, "report"] + list(a) + [ctx.trace],  # noqa
                                  "report", env=env)[0]
    tsv = rep("--format=tsv")
    csv_rows = [r for r in csv.DictReader(io.StringIO(rep("--format=csv")))
                if not r["tid"].startswith("#")]
    tsv_rows = [dict(zip(tsv.splitlines()[0].split("\t"), l.split("\t")))
                for l in tsv.splitlines()[1:] if not l.startswith("#")]
    cols = ["calls", "total_ns", "self_ns", "min_ns", "avg_ns", "p50_ns", "p99_ns", "max_ns"]
    for name, rows in (("tsv", tsv_rows), ("csv", csv_rows)):
        got = {r["function"]: [int(r[c]) for c in cols] for r in rows}
        expect_equal("report " + name, {f: [r[c] for c in cols] for f, r in ctx.rows.items()},
                     got)
    # avg is total / calls (a recursive function's nested calls are inside
    # its total once, so its avg may be below its min)
    for r in json.loads(rep("--format=json", "--times=raw"))["rows"]:
        if not (r["min_ns"] <= r["p50_ns"] <= r["p99_ns"] <= r["max_ns"] <= r["total_ns"]
                and r["avg_ns"] == r["total_ns"] // r["calls"] and r["self_ns"] <= r["total_ns"]):
            raise CheckFailed("percentiles out of order or avg not total / calls: %r" % r)
    stats = "# stats: " + " ".join("%s=%d" % kv for kv in ctx.stats.items())
    for fmt in ("tsv", "csv"):
        if rep("--format=" + fmt).splitlines()[-1] != stats + " times=compensated":
            raise CheckFailed("%s does not end with %r" % (fmt, stats))
    if "\nstats: " + stats[9:] + "\ntimes: compensated\n" not in rep():
        raise CheckFailed("the table lacks the stats and times lines")
    top = json.loads(rep("--format=json", "--top=2", "--sort=self"))["rows"]
    want = sorted(ctx.rows.values(), key=lambda r: (-r["self_ns"], r["function"]))[:2]
    if [r["function"] for r in top] != [r["function"] for r in want]:
        raise CheckFailed("--top=2 --sort=self gave %s" % [r["function"] for r in top])
    some = sorted(ctx.rows)[0]
    only = json.loads(rep("--format=json", "--function=^" + re.escape(some) + "$"))["rows"]
    if [r["function"] for r in only] != [some]:
        raise CheckFailed("--function matched %s" % only)
    procs = json.loads(rep("--format=json", "--by-process"))
    if {r["function"]: r["calls"] for r in procs["rows"]} != ctx.calls or \
            any(not r["process"] for r in procs["rows"]):
        raise CheckFailed("--by-process rows differ or lack process names")
    threads = json.loads(rep("--format=json", "--by-thread"))["rows"]
    if any(not r["thread"] or not r["process"] for r in threads):
        raise CheckFailed("--by-thread rows lack names")
    callees = collections.Counter()
    for fn in ctx.calls:
        for e in json.loads(rep("--format=json", "--callees=" + fn))["edges"]:
            callees[(e["caller"], e["callee"])] += e["calls"]
    expect_equal("--callees edges", {k: v for k, v in report_edges(ctx).items()
                                     if k[0] != "[root]"}, dict(callees))
    width = 120
    for line in rep(env=dict(os.environ, COLUMNS=str(width))).splitlines():
        if len(line) > width and not line.startswith("stats:"):
            raise CheckFailed("table line wider than %d: %r" % (width, line))
    print("report formats agree; --top, --function, --by-process, --callees and widths ok")


# ---- bad input, drops ----------------------------------------------------------

def commands(trace, out):
    yield ["report", trace]
    yield ["report", "--format=json", trace]
    for fmt in FORMATS:
        extra = ["--repo-root", "/"] if fmt == "cgr" else []
        yield ["convert", "--to=" + fmt, trace, "-o", out] + extra


def case_bad_input(ctx):
    with open(ctx.trace, "rb") as f:
        good = f.read()
    corrupt = bytearray(good)
    for i in range(len(corrupt) // 3, len(corrupt) // 3 + 40):
        corrupt[i] ^= 0x5A
    bad = {"truncated": good[:len(good) * 2 // 3], "corrupt": bytes(corrupt), "empty": b"",
           "text": b"not a trace at all\n"}
    for what, data in bad.items():
        trace = os.path.join(ctx.tmp, what + ".pftrace")
        with open(trace, "wb") as f:
            f.write(data)
        for argv in commands(trace, os.path.join(ctx.tmp, "out")):
            status, out, err = run([ctx.sledtrace] + argv, TIMEOUT, "sledtrace")
            lines = err.splitlines()
            if status != 1 or len(lines) != 1 or not lines[0].startswith("sledtrace: ") \
                    or os.path.exists(os.path.join(ctx.tmp, "out")) \
                    or os.path.exists(os.path.join(ctx.tmp, "out.symtab")) \
                    or os.path.exists(os.path.join(ctx.tmp, "out.values")):
                raise CheckFailed("%s trace, `%s`: exit %d, stderr %r, output left: %s"
                                  % (what, " ".join(argv), status, err,
                                     os.path.exists(os.path.join(ctx.tmp, "out"))))
        print("%s trace: every command failed with one line: %s" % (what, lines[0]))


def case_drops(ctx):
    import signal
    import time
    trace = os.path.join(ctx.tmp, "drops.pftrace")
    rec = subprocess.Popen([ctx.sledtrace, "record", "--ring-size=4K", "--exit=uretprobe",
                            "-o", trace, "--"] + ctx.cmd, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    time.sleep(0.3)
    rec.send_signal(signal.SIGSTOP)
    time.sleep(0.5)
    rec.send_signal(signal.SIGCONT)
    rec.communicate(timeout=TIMEOUT)
    for argv in commands(trace, os.path.join(ctx.tmp, "out")):
        if argv[0] != "convert":
            continue
        _, err = sh([ctx.sledtrace] + argv, "convert")
        if not re.search(r"^sledtrace: warning: the trace lost events \(ringbuf_drops=[1-9]",
                         err, re.M):
            raise CheckFailed("`%s` gave no drop warning: %r" % (" ".join(argv), err))
        for p in ("out", "out.symtab", "out.values"):
            if os.path.exists(os.path.join(ctx.tmp, p)):
                os.unlink(os.path.join(ctx.tmp, p))
    print("every converter warned about the drops")


CASES = {"pprof": case_pprof, "chrome": case_chrome, "pola": case_pola, "cgr": case_cgr,
         "dot": case_dot, "svg": case_svg, "folded": case_folded, "perfetto": case_perfetto,
         "report": case_report, "record-gz": case_record_gz, "bad-input": case_bad_input, "drops": case_drops}


def check(ctx):
    if ctx.case != "drops":
        record(ctx)
    CASES[ctx.case](ctx)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    ap.add_argument("--node-dir", default=os.path.join(os.path.dirname(__file__), "npm"))
    ap.add_argument("--go", default="go")
    ap.add_argument("--dot", default="dot")
    ap.add_argument("--chromium", default="chromium")
    ap.add_argument("--repo-root", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    ap.add_argument("--exact-edges", action="store_true",
                    help="cgr: every function is in the repo, so edges equal the report's")
    ap.add_argument("--keep-png", help="svg: copy the rendered PNG here")
    ap.add_argument("cmd", nargs="+")
    ctx = ap.parse_args(namespace=Ctx())
    ctx.sledtrace = os.path.abspath(ctx.sledtrace)
    with tempfile.TemporaryDirectory() as ctx.tmp:
        return verdict(check, ctx, passed="ok")


if __name__ == "__main__":
    sys.exit(main())
