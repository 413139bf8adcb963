#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_capture.py: end-to-end checks of record --capture.

Cases:
  values    records FIXTURE with --capture SPEC (repeatable) under --exit
            MODE, converts the trace to Chrome JSON (the Perfetto reader and
            the one frame model on the way) and requires, per function in
            call order, exactly the arguments the fixture printed
            (`VALUE <function> <name> <text>`), and its return value on every
            call whose end was seen; a frame whose exit no probe saw
            (args.end "inferred", every frame under --exit=infer) carries
            none.  Every
            call the fixture counted (COUNT lines) must be there.  With
            --attach the fixture runs first, waiting (CAPTURE_WAIT), and
            record -p attaches to it before it makes its calls.  With
            --split-debug the fixture is a fully stripped copy whose
            symbols and DWARF are in a debug file beside it.
            --names FN=ITEM,... compares only FN's listed values (and only
            the functions named so; the trace may hold more): ITEM is NAME, or FIXTURE:TRACE when the
            trace names it otherwise (argN without DWARF).
            take_cold's string literals are on pages the fixture has not
            touched when the probe reads them: they must be read all the
            same (sleepable capture programs).  --no-sleepable records as
            on a kernel without sleepable uprobes (SLEDTRACE_NO_SLEEPABLE=1,
            record -v must say so): then its values may be
            <invalid 0xADDR>, and its first call's argument must be (else
            the fixture does not test what it should).
  report    records FIXTURE likewise; `report --function=REGEX` must list,
            per function and argument, the fixture's values most frequent
            first (ties by text), at most 5, with their counts; the same in
            the TSV `values` column, and all of them in the JSON rows'
            "values" and in `--callers=FN --format=json`.
  bad-spec  a malformed --capture is exit status 2, one stderr line naming
            it, and no trace.

Usage: check_capture.py --sledtrace PATH --case NAME [--exit MODE] [--attach]
         [--split-debug] [--no-sleepable] [--record-arg ARG ...]
         [--capture SPEC ...] [--names FN=ITEMS ...] [-- FIXTURE ARGS...]
Python 3 standard library only.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_counts import CheckFailed, parse_counts, run  # noqa: E402
from checklib import verdict  # noqa: E402

TIMEOUT = 120
# How a frame whose exit no probe saw ends (Chrome JSON's args.end).
UNSEEN = ("inferred", "unfinished")


def fixture_values(stdout):
    """VALUE lines -> {function: [{name: text}, ...]} in call order.  A new
    call starts when a name repeats (every call prints each name once)."""
    calls = {}
    for line in stdout.splitlines():
        if not line.startswith("VALUE "):
            continue
        _, fn, name, text = line.split(" ", 3)
        seq = calls.setdefault(fn, [])
        if not seq or name in seq[-1]:
            seq.append({})
        seq[-1][name] = text
    return calls


def shown(v):
    """A Chrome JSON arg as the fixture prints it."""
    if v is True or v is False:
        return "true" if v else "false"
    return str(v)


def trace_values(path):
    """E events' captured values -> {function: [(values, end)]}."""
    with open(path) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    calls = {}
    for e in events:
        if e.get("ph") != "E":
            continue
        args = e.get("args", {})
        vals = {}
        for k, v in args.items():
            if k == "return":
                vals["return"] = shown(v)
            elif k.startswith("args."):
                vals[k[5:]] = shown(v)
        calls.setdefault(e["name"], []).append((vals, args.get("end")))
    return calls


def short_name(name):
    """A C++ or Rust display name's last component, without parameters:
    what the fixture's __func__ (or its own name) says."""
    base = name.split("(")[0]
    return base.split("::")[-1]


def compare(want, got, exit_mode, only_listed=False):
    got_short = {}
    for name, seq in got.items():
        got_short.setdefault(short_name(name), []).extend(seq)
    for fn, calls in sorted(want.items()):
        seen = got_short.get(fn, [])
        if len(seen) != len(calls):
            raise CheckFailed("%s: the fixture made %d calls, the trace has %d"
                              % (fn, len(calls), len(seen)))
        for i, (exp, (vals, end)) in enumerate(zip(calls, seen)):
            exp = dict(exp)
            ret = exp.pop("return", None)
            got_ret = vals.pop("return", None)
            if only_listed:
                vals = {k: v for k, v in vals.items() if k in exp}
            if vals != exp:
                raise CheckFailed("%s call %d: arguments %r, the fixture passed %r"
                                  % (fn, i + 1, vals, exp))
            if end in UNSEEN or exit_mode == "infer":
                if got_ret is not None:
                    raise CheckFailed("%s call %d: a return value %r on a frame whose exit "
                                      "was not seen" % (fn, i + 1, got_ret))
            elif ret is not None and got_ret != ret:
                raise CheckFailed("%s call %d: returned %r, the trace says %r"
                                  % (fn, i + 1, ret, got_ret))
    print("ok: %d functions, %d calls, values as the fixture printed them"
          % (len(want), sum(len(c) for c in want.values())))


COLD = "take_cold"  # capture.c's function whose literals are on untouched pages
INVALID = "<invalid 0x"


def accept_untouched(want, got):
    """Without sleepable programs: COLD's values read as <invalid> stand
    for the fixture's (in got); its first call's argument must be one."""
    calls = [c for name, seq in got.items() if short_name(name) == COLD for c in seq]
    exp = want.get(COLD, [])
    if not calls or not exp or not calls[0][0].get("s", "").startswith(INVALID):
        raise CheckFailed("%s's first call: %r, want <invalid 0x...> without sleepable "
                          "programs (is its literal's page touched before the call?)"
                          % (COLD, calls[0][0] if calls else None))
    n = 0
    for (vals, _), fixture in zip(calls, exp):
        for k, v in vals.items():
            if v.startswith(INVALID) and k in fixture and not fixture[k].startswith(INVALID):
                vals[k] = fixture[k]
                n += 1
    print("ok: without sleepable programs %d of %s's values read as <invalid>" % (n, COLD))


def restrict(want, names):
    """The fixture's values narrowed and renamed as --names says."""
    if not names:
        return want
    out = {}
    for spec in names:
        fn, items = spec.split("=", 1)
        pairs = [i.split(":", 1) if ":" in i else (i, i) for i in items.split(",")]
        out[fn] = [{t: call[f] for f, t in pairs if f in call} for call in want.get(fn, [])]
    return out


def record_attached(argv, command):
    """record -p on COMMAND started with CAPTURE_WAIT: once sledtrace says
    it is attached, the fixture gets its line and makes its calls, then
    exits, which ends the recording.  Returns (status, fixture stdout,
    sledtrace stderr)."""
    env = dict(os.environ, CAPTURE_WAIT="1")
    fx = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                          env=env)
    rec = None
    try:
        if fx.stdout.readline() != "READY\n":
            raise CheckFailed("the fixture did not say READY")
        rec = subprocess.Popen(argv + ["-p", str(fx.pid)], stderr=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, text=True)
        err = []
        while not any(" attached to " in line for line in err):
            line = rec.stderr.readline()
            if not line:
                raise CheckFailed("sledtrace ended before attaching:\n" + "".join(err))
            err.append(line)
        out, _ = fx.communicate("go\n", timeout=TIMEOUT)
        if fx.returncode:
            raise CheckFailed("the fixture exited %d under record -p" % fx.returncode)
        err.append(rec.stderr.read())
        return rec.wait(timeout=TIMEOUT), out, "".join(err)
    finally:
        for p in (fx, rec):
            if p and p.poll() is None:
                p.kill()
                p.wait()


def split_debug(binary, tmp):
    """A copy of binary stripped of everything (as Debian ships it) with a
    .gnu_debuglink to its debug file beside it (as -dbgsym installs it)."""
    debug, stripped = os.path.join(tmp, "fixture.debug"), os.path.join(tmp, "fixture")
    subprocess.run(["objcopy", "--only-keep-debug", binary, debug], check=True)
    subprocess.run(["objcopy", "--strip-all", "--add-gnu-debuglink=" + debug, binary, stripped],
                   check=True)
    return stripped


def case_values(a, tmp):
    trace, js = os.path.join(tmp, "t.pftrace"), os.path.join(tmp, "t.json")
    argv = [a.sledtrace, "record", "-o", trace] + (["--exit", a.exit] if a.exit else [])
    argv += a.record_arg
    for spec in a.capture:
        argv += ["--capture", spec]
    if a.split_debug:
        a.command = [split_debug(a.command[0], tmp)] + a.command[1:]
    env = dict(os.environ, SLEDTRACE_NO_SLEEPABLE="1") if a.no_sleepable else None
    if a.attach:
        status, out, err = record_attached(argv, a.command)
    else:
        status, out, err = run(argv + ["-v" if env else "-q", "--"] + a.command, TIMEOUT,
                               "record", env=env)
    if status:
        raise CheckFailed("record exited %d:\n%s" % (status, err))
    if env and "captures: not sleepable" not in err:
        raise CheckFailed("record -v does not say the capture programs are not sleepable:\n"
                          + err)
    status, _, err = run([a.sledtrace, "convert", "--to=chrome", "-o", js, trace], TIMEOUT,
                         "convert")
    if status:
        raise CheckFailed("convert exited %d:\n%s" % (status, err))
    want = fixture_values(out)
    if not want:
        raise CheckFailed("the fixture printed no VALUE lines:\n" + out)
    counts, _ = parse_counts(out, "the fixture")
    for (_, fn), n in counts.items():
        if fn in want and len(want[fn]) != n:
            raise CheckFailed("%s: %d COUNT, %d VALUE calls" % (fn, n, len(want[fn])))
    got = trace_values(js)
    if a.no_sleepable:
        accept_untouched(want, got)
    compare(restrict(want, a.names), got, a.exit, bool(a.names))
    check_pola(a, tmp, trace, trace_values(js))  # compare() consumed its copy


def check_pola(a, tmp, trace, chrome):
    """The Parquet export's values file, read by DuckDB and joined to its
    events and symbols, holds each call's values as the Chrome export does."""
    pola = os.path.join(tmp, "t.pola")
    status, _, err = run([a.sledtrace, "convert", "--to=pola", "-o", pola, trace], TIMEOUT,
                         "convert")
    if status:
        raise CheckFailed("convert --to=pola exited %d:\n%s" % (status, err))
    reader = os.path.join(os.path.dirname(os.path.abspath(__file__)), "npm", "read_parquet.mjs")
    status, out, err = run(["node", reader, "duckdb", pola, pola + ".symtab", pola + ".values"],
                           TIMEOUT, "node")
    if status:
        raise CheckFailed("DuckDB could not read the pola export:\n%s" % err)
    frames = {}
    for fn, frame, name, text in json.loads(out)["values"]:
        frames.setdefault((fn, frame), {})[name] = text
    got = {}
    for (fn, _), vals in frames.items():
        got.setdefault(fn, []).append(sorted(vals.items()))
    want = {fn: [sorted(v.items()) for v, _ in calls if v] for fn, calls in chrome.items()}
    want = {fn: calls for fn, calls in want.items() if calls}
    if {fn: sorted(c) for fn, c in got.items()} != {fn: sorted(c) for fn, c in want.items()}:
        raise CheckFailed("pola values (DuckDB) %s, the Chrome export's %s" % (got, want))
    print("ok: the pola values file holds %d calls' values, as the Chrome export"
          % sum(len(c) for c in got.values()))


TOP = 5  # values report prints per argument


def expected_counts(want, fn):
    """[(name, [(text, count), ...] most frequent first, ties by text)] of
    fn's arguments in the order the fixture first passed them."""
    calls = want[fn]
    names = []
    for call in calls:
        names += [n for n in call if n not in names]
    out = []
    for name in names:
        counts = {}
        for call in calls:
            if name in call:
                counts[call[name]] = counts.get(call[name], 0) + 1
        out.append((name, sorted(counts.items(), key=lambda kv: (-kv[1], kv[0].encode()))))
    return out


def top_text(top):
    """One argument's values as the table and the TSV column show them."""
    text = ", ".join("%s x%d" % kv for kv in top[:TOP])
    if len(top) > TOP:
        text += ", ... (%d more)" % (len(top) - TOP)
    return text


def expected_report(want, fn):
    """The lines report's table prints for fn's values."""
    return (["values of %s (%d calls with values):" % (fn, len(want[fn]))] +
            ["  %s: %s" % (name, top_text(top)) for name, top in expected_counts(want, fn)])


def expected_json(want, fn):
    """fn's "values" member in report's JSON: every value (fewer than 64)."""
    return {"calls": len(want[fn]),
            "args": [{"name": name, "approximate": False,
                      "top": [{"value": t, "count": n} for t, n in top]}
                     for name, top in expected_counts(want, fn)]}


def report(a, *args):
    status, out, err = run([a.sledtrace, "report"] + list(args), TIMEOUT, "report")
    if status:
        raise CheckFailed("report %s exited %d:\n%s" % (" ".join(args), status, err))
    return out


def check_table(want, rep):
    lines = rep.splitlines()
    for fn in sorted(want):
        exp = expected_report(want, fn)
        if exp[0] not in lines:
            raise CheckFailed("report has no %r:\n%s" % (exp[0], rep))
        i = lines.index(exp[0])
        got = lines[i:i + len(exp)]
        if got != exp:
            raise CheckFailed("report's values of %s:\n%s\nwant:\n%s"
                              % (fn, "\n".join(got), "\n".join(exp)))


def check_machine_formats(a, want, trace, regex):
    """JSON rows carry "values", TSV rows a `values` column, and
    --callers's JSON the function's "values" list."""
    rows = {r["function"]: r for r in json.loads(report(a, "--format=json", "--function",
                                                        regex, trace))["rows"]}
    tsv = report(a, "--format=tsv", "--function", regex, trace).splitlines()
    header = tsv[0].split("\t")
    cells = {f[header.index("function")]: f[header.index("values")]
             for f in (line.split("\t") for line in tsv[1:] if not line.startswith("#"))}
    for fn in sorted(want):
        if rows.get(fn, {}).get("values") != expected_json(want, fn):
            raise CheckFailed("report --format=json's values of %s: %s\nwant %s"
                              % (fn, rows.get(fn, {}).get("values"), expected_json(want, fn)))
        cell = "; ".join("%s: %s" % (n, top_text(t)) for n, t in expected_counts(want, fn))
        if cells.get(fn) != cell:
            raise CheckFailed("report --format=tsv's values of %s: %r\nwant %r"
                              % (fn, cells.get(fn), cell))
        edges = json.loads(report(a, "--format=json", "--callers", fn, trace))
        if edges.get("values") != [expected_json(want, fn)]:
            raise CheckFailed("report --callers=%s --format=json's values: %s"
                              % (fn, edges.get("values")))
    for fn, row in rows.items():
        if fn not in want and "values" in row:
            raise CheckFailed("report --format=json gives %s values it was not passed" % fn)


def case_report(a, tmp):
    trace = os.path.join(tmp, "t.pftrace")
    argv = [a.sledtrace, "record", "-q", "-o", trace] + (["--exit", a.exit] if a.exit else [])
    for spec in a.capture:
        argv += ["--capture", spec]
    status, out, err = run(argv + ["--"] + a.command, TIMEOUT, "record")
    if status:
        raise CheckFailed("record exited %d:\n%s" % (status, err))
    want = fixture_values(out)
    regex = a.capture[0].split(":")[0]
    check_table(want, report(a, "--function", regex, trace))
    check_machine_formats(a, want, trace, regex)
    print("ok: report's top values of %d functions as the fixture passed them, "
          "in the table, JSON and TSV" % len(want))


BAD_SPECS = [
    ("f:7", "bad item list"),
    ("f:1/q", "bad item list"),
    ("f:1/d12", "bad item list"),
    ("f:6/S", "bad item list"),
    ("f:", "bad item list"),
    (":1", "no function pattern"),
    ("f(:1", "f("),
]


def case_bad_spec(a, tmp):
    out = os.path.join(tmp, "never.pftrace")
    for spec, says in BAD_SPECS:
        status, _, err = run([a.sledtrace, "record", "-o", out, "--capture", spec, "--",
                              "/bin/true"], TIMEOUT, "record")
        lines = err.strip().splitlines()
        if status != 2 or len(lines) != 1 or says not in lines[0] or spec not in lines[0]:
            raise CheckFailed("--capture %r: want status 2 and one line saying %r, got %d:\n%s"
                              % (spec, says, status, err))
        if os.path.exists(out):
            raise CheckFailed("--capture %r left %s behind" % (spec, out))
    print("ok: %d bad specs refused" % len(BAD_SPECS))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--case", required=True, choices=["values", "report", "bad-spec"])
    ap.add_argument("--exit", default=None, help="default: record's own")
    ap.add_argument("--record-arg", action="append", default=[],
                    help="values: one more argument to record (repeatable)")
    ap.add_argument("--split-debug", action="store_true",
                    help="values: record a fully stripped copy whose DWARF is in a "
                         "separate debug file (.gnu_debuglink)")
    ap.add_argument("--no-sleepable", action="store_true",
                    help="values: record as on a kernel without sleepable uprobes")
    ap.add_argument("--attach", action="store_true",
                    help="values: record -p on the fixture, started waiting (CAPTURE_WAIT)")
    ap.add_argument("--capture", action="append", default=[])
    ap.add_argument("--names", action="append", default=[])
    ap.add_argument("command", nargs="*")
    a = ap.parse_args()
    a.sledtrace = os.path.abspath(a.sledtrace)
    with tempfile.TemporaryDirectory() as tmp:
        cases = {"values": case_values, "report": case_report, "bad-spec": case_bad_spec}
        return verdict(cases[a.case], a, tmp, fail_to=sys.stdout, passed=None)


if __name__ == "__main__":
    sys.exit(main())
