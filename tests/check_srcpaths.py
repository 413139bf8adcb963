#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_srcpaths.py: source paths of a unity build are whole everywhere.

FIXTURE is tests/fixtures/unity/unity.c compiled from the build directory
by a relative path: it #includes its other sources from parts/, so DWARF
names them relative to an include directory that is relative to
DW_AT_comp_dir.  The test first checks that the DWARF really says so
(llvm-dwarfdump), then that every source path sledtrace shows or writes
is absolute, lexically normalized, an existing file, and the very file
the function is defined in (SRCDIR/unity.c or SRCDIR/parts/*.c):
  list             the LOCATION column
  the trace        Perfetto's interned source locations (walked with
                   check_perfetto_rules.py's independent reader)
  pprof            go tool pprof -raw: each location's file
  pola             the symtab's path, read by DuckDB and hyparquet
  cgr              --repo-root=SRCDIR keeps every edge report --callers
                   shows, each endpoint under SRCDIR
and that the report's counts equal the fixture's own COUNT lines.
Usage: check_srcpaths.py --sledtrace S --go GO --llvm-dwarfdump D
                         --node-dir DIR --srcdir SRCDIR -- FIXTURE
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
from check_perfetto_rules import Checker, fields, msg  # noqa: E402
from checklib import verdict  # noqa: E402

TIMEOUT = 120
# function -> the file, relative to SRCDIR, that defines it
HOME = {"main": "unity.c", "parse_expr": "parts/parse.c", "parse_term": "parts/parse.c",
        "lex_token": "parts/lex.c", "lex_char": "parts/lex.c"}


def sh(argv, what, env=None):
    status, out, err = run(argv, TIMEOUT, what, env=env)
    if status != 0:
        raise CheckFailed("`%s` exited %d\n--- stderr ---\n%s" % (" ".join(argv), status, err))
    return out


def dwarf_is_relative(a):
    """The fixture must exercise the case: comp_dir is not the sources'
    directory, and some line table names a directory relative to it."""
    info = sh([a.llvm_dwarfdump, "--debug-info", a.fixture], "llvm-dwarfdump")
    comp = re.findall(r'DW_AT_comp_dir\s+\("([^"]*)"\)', info)
    if not comp or any(os.path.samefile(c, a.srcdir) for c in comp if os.path.isdir(c)):
        raise CheckFailed("the fixture was not compiled from another directory: %s" % comp)
    lines = sh([a.llvm_dwarfdump, "--debug-line", a.fixture], "llvm-dwarfdump")
    dirs = re.findall(r'include_directories\[\s*\d+\] = "([^"]*)"', lines)
    if not [d for d in dirs if not d.startswith("/")]:
        raise CheckFailed("no relative include directory in the line table: %s" % dirs)
    print("DWARF: comp_dir %s, include directories %s" % (comp[0], dirs))


def check_path(srcdir, where, func, path, line=None):
    """path names func's own file, whole and normalized."""
    if func not in HOME:
        raise CheckFailed("%s: unexpected function %r" % (where, func))
    want = os.path.join(srcdir, HOME[func])
    if not path.startswith("/") or os.path.normpath(path) != path or "//" in path:
        raise CheckFailed("%s: %s is at %r, not an absolute normalized path" % (where, func, path))
    if not os.path.isfile(path) or not os.path.samefile(path, want):
        raise CheckFailed("%s: %s is at %r, which is not %s" % (where, func, path, want))
    if line is not None and line < 1:
        raise CheckFailed("%s: %s has line %r" % (where, func, line))


def check_all(srcdir, where, got):
    """got: {function: path or (path, line)}, one entry per function."""
    if set(got) != set(HOME):
        raise CheckFailed("%s: functions %s, want %s" % (where, sorted(got), sorted(HOME)))
    for func, loc in got.items():
        path, line = loc if isinstance(loc, tuple) else (loc, None)
        check_path(srcdir, where, func, path, line)
    print("%s: %d paths whole, each the defining file" % (where, len(got)))


def case_list(a):
    out = sh([a.sledtrace, "list", a.fixture], "sledtrace list")
    got = {}
    for line in out.splitlines()[1:]:
        m = re.match(r"\s*\d+\s+0x[0-9a-f]+\s+\S+\s+(\S+)\s+(\S+):(\d+)$", line)
        if m:
            got[m.group(1)] = (m.group(2), int(m.group(3)))
    check_all(a.srcdir, "list", got)
    return got


def record(a, tmp):
    trace = os.path.join(tmp, "t.pftrace")
    status, out, err = run([a.sledtrace, "record", "-q", "-o", trace, "--", a.fixture],
                           TIMEOUT, "sledtrace record")
    if status != 0:
        raise CheckFailed("record exited %d: %s" % (status, err))
    counts, _ = parse_counts(out, "the fixture")
    rows = json.loads(sh([a.sledtrace, "report", "--format=json", trace], "report"))["rows"]
    want = collections.Counter()
    for (_, func), n in counts.items():
        want[func] += n
    got = {r["function"]: r["calls"] for r in rows}
    if got != dict(want) or set(got) != set(HOME):
        raise CheckFailed("report calls %s, the fixture counted %s" % (got, dict(want)))
    print("report: %d calls of %d functions, as the fixture counted"
          % (sum(got.values()), len(got)))
    return trace, got


def case_trace(a, trace, listed):
    c = Checker()
    with open(trace, "rb") as f:
        for num, _, v in fields(f.read()):
            if num == 1:
                c.packet(v)
    got = {}
    for seq in c.seqs.values():
        for loc in seq.locations.values():
            func = bytes(loc[3][0]).decode()
            got[func] = (bytes(loc[2][0]).decode(), loc.get(4, [0])[0])
    check_all(a.srcdir, "perfetto source locations", got)
    if got != listed:
        raise CheckFailed("the trace's locations %s differ from list's %s" % (got, listed))


def case_pprof(a, trace, tmp):
    pb = os.path.join(tmp, "t.pb.gz")
    sh([a.sledtrace, "convert", "--to=pprof", trace, "-o", pb], "convert")
    env = dict(os.environ, PPROF_TMPDIR=tmp, GOFLAGS="-mod=mod", GOTOOLCHAIN="local")
    raw = sh([a.go, "tool", "pprof", "-symbolize=none", "-raw", pb], "go tool pprof", env=env)
    got = {}
    for m in re.finditer(r"^\s+\d+: 0x[0-9a-f]+ M=\d+ (\S+) (\S+):(\d+) s=\d+$",
                         raw.split("Locations", 1)[-1], re.M):
        got[m.group(1)] = (m.group(2), int(m.group(3)))
    check_all(a.srcdir, "pprof locations", got)


def case_pola(a, trace, tmp):
    path = os.path.join(tmp, "t.pola")
    sh([a.sledtrace, "convert", "--to=pola", trace, "-o", path], "convert")
    for reader in ["duckdb", "hyparquet"]:
        out = sh(["node", os.path.join(a.node_dir, "read_parquet.mjs"), reader, path,
                  path + ".symtab"], "node " + reader)
        paths = json.loads(out)["paths"]
        got = {}
        for func, p in paths.items():
            m = re.match(r"(.*):(\d+)$", p or "")
            if not m:
                raise CheckFailed("pola symtab (%s): %s has path %r" % (reader, func, p))
            got[func] = (m.group(1), int(m.group(2)))
        check_all(a.srcdir, "pola symtab (%s)" % reader, got)


def case_cgr(a, trace, tmp, calls):
    path = os.path.join(tmp, "t.jsonl")
    sh([a.sledtrace, "convert", "--to=cgr", trace, "-o", path, "--repo-root=" + a.srcdir],
       "convert")
    with open(path) as f:
        lines = [json.loads(line) for line in f]
    got = collections.Counter()
    for e in lines[1:]:
        for side in ("caller", "callee"):
            ep = e[side]
            check_path(a.srcdir, "cgr " + side, ep["qualname"], ep["path"], ep["line"])
        got[(e["caller"]["qualname"], e["callee"]["qualname"])] += e["count"]
    want = {}
    for func in calls:
        out = sh([a.sledtrace, "report", "--callers=" + func, "--format=json", trace],
                 "report --callers")
        for e in json.loads(out)["edges"]:
            if e["caller"] != "[root]":
                want[(e["caller"], e["callee"])] = e["calls"]
    if not want or dict(got) != want:
        raise CheckFailed("cgr edges %s, report --callers %s" % (dict(got), want))
    print("cgr: %d edges under %s, equal to report --callers" % (len(got), a.srcdir))


def check(a):
    dwarf_is_relative(a)
    listed = case_list(a)
    with tempfile.TemporaryDirectory() as tmp:
        trace, calls = record(a, tmp)
        case_trace(a, trace, listed)
        case_pprof(a, trace, tmp)
        case_pola(a, trace, tmp)
        case_cgr(a, trace, tmp, calls)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--go", required=True)
    ap.add_argument("--llvm-dwarfdump", required=True)
    ap.add_argument("--node-dir", required=True)
    ap.add_argument("--srcdir", required=True)
    ap.add_argument("fixture")
    a = ap.parse_args()
    a.fixture = os.path.abspath(a.fixture)
    a.srcdir = os.path.abspath(a.srcdir)
    return verdict(check, a, fail_to=sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
