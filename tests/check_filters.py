#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_filters.py: end-to-end checks of function selection in sledtrace.

Each --case records a fixture (see tests/fixtures/) with some selection
options and requires the trace to hold exactly the fixture's own counts of
the selected functions and no call of any other function; error cases check
the exit status, the one-line message on stderr and that no output file is
left behind.  Cases:
  include, exclude-wins, repeated-include, filter-file, filter-roundtrip,
  filter-list, stale-filter, bad-regex, empty-selection, attach-line,
  mangled-names, depth-of-selected, no-xray-needs-filter, no-xray-all,
  no-xray-python.

Usage: check_filters.py --sledtrace PATH --case NAME [--calltree BIN]
         [--recursion BIN] [--cpp BIN] [--rust-v0 BIN] [--plain BIN]
Python 3 standard library only; reuses check_counts.py's helpers.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_counts import (CheckFailed, compare_counts, get_report,  # noqa: E402
                          get_stats, parse_counts, run)
from checklib import verdict  # noqa: E402

TIMEOUT = 60
ATTACH_RE = re.compile(r"^sledtrace: (\d+) functions, (\d+) sleds, (\d+) probes attached in "
                       r"[0-9.]+ ms \((uprobe_multi|perf events), exits: ([^)]+)\)$")


class Ctx:
    def __init__(self, args, tmp):
        self.args = args
        self.tmp = tmp
        self.sledtrace = os.path.abspath(args.sledtrace)
        self.n = 0

    def path(self, name):
        return os.path.join(self.tmp, name)

    def fixture(self, which):
        p = getattr(self.args, which)
        if not p:
            raise CheckFailed("this case needs --" + which.replace("_", "-"))
        return os.path.abspath(p)

    def st(self, *argv, stdin=None):
        """Runs sledtrace ARGV; (status, stdout, stderr)."""
        if stdin is None:
            return run([self.sledtrace] + list(argv), TIMEOUT, "sledtrace " + argv[0])
        proc = subprocess.run([self.sledtrace] + list(argv), input=stdin.encode(),
                              capture_output=True, timeout=TIMEOUT)
        return proc.returncode, proc.stdout.decode(), proc.stderr.decode()

    def record(self, opts, cmd, quiet=True):
        """Records cmd; returns (status, stdout, stderr lines, trace path)."""
        self.n += 1
        trace = self.path("trace%d.pftrace" % self.n)
        argv = ["record"] + (["--quiet"] if quiet else []) + ["-o", trace] + opts + ["--"] + cmd
        print("running: sledtrace " + " ".join(argv))
        status, out, err = self.st(*argv)
        return status, out, err.splitlines(), trace


def by_name(counts):
    """{(tid, f): n} of a single-threaded fixture -> {f: n}."""
    return {f: n for (_, f), n in counts.items()}


def expect_trace(ctx, opts, cmd, wanted, exact_names=False, quiet=True, stats=None,
                 fixed=None):
    """Records cmd with opts; the trace must hold exactly the fixture's counts
    of the functions in wanted (names as the fixture prints them) and nothing
    else, and the report's stats the values in stats ({name: n}).  fixed
    ({name: n}) overrides the fixture's count of a function where the test
    knows better (a caller's share).  Returns the stderr lines of record."""
    status, out, err, trace = ctx.record(opts, cmd, quiet)
    if status != 0:
        raise CheckFailed("record exited %d\n%s" % (status, "\n".join(err)))
    counts, _ = parse_counts(out, "traced fixture")
    missing = set(wanted) - {f for (_, f) in counts}
    if missing:
        raise CheckFailed("test bug: the fixture never calls %s" % sorted(missing))
    expected = {k: (fixed or {}).get(k[1], n) for k, n in counts.items() if k[1] in wanted}
    rows, report = get_report(ctx.sledtrace, trace, TIMEOUT, exact_names)
    problems = compare_counts(expected, rows)
    if problems:
        raise CheckFailed("trace of `%s` differs from the fixture:\n%s\n--- report ---\n%s"
                          % (" ".join(opts), "\n".join(problems), report.rstrip()))
    print("  exact: " + ", ".join("%s %d" % (f, n) for (_, f), n in sorted(expected.items())))
    if stats:
        got, table = get_stats(ctx.sledtrace, trace, TIMEOUT)
        bad = ["  %s: expected %d, report %s" % (k, v, got.get(k, "missing"))
               for k, v in sorted(stats.items()) if got.get(k) != v]
        if bad:
            raise CheckFailed("stats differ:\n" + "\n".join(bad) + "\n" + table)
        print("  stats: " + " ".join("%s=%d" % kv for kv in sorted(stats.items())))
    return err


def expect_error(ctx, argv, must_contain, output):
    """sledtrace argv must fail with exactly one stderr line holding every
    string of must_contain, print nothing on stdout (so a recorded command
    never ran) and leave no file at output."""
    print("running: sledtrace " + " ".join(argv))
    status, out, err = ctx.st(*argv)
    lines = err.splitlines()
    if status == 0:
        raise CheckFailed("`sledtrace %s` succeeded; expected an error" % " ".join(argv))
    if len(lines) != 1 or not lines[0].startswith("sledtrace: "):
        raise CheckFailed("expected one stderr line starting 'sledtrace: ', got:\n" + err)
    for s in must_contain:
        if s not in lines[0]:
            raise CheckFailed("the error line does not say %r:\n%s" % (s, lines[0]))
    if out:
        raise CheckFailed("stdout not empty (did the command run?):\n" + out)
    if os.path.exists(output):
        raise CheckFailed("an output file was left at " + output)
    print("  exit %d: %s" % (status, lines[0]))


def build_id(path):
    """The GNU build-id of an ELF file, from `readelf -n`."""
    status, out, err = run(["readelf", "-n", path], TIMEOUT, "readelf")
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    if status != 0 or not m:
        raise CheckFailed("no build-id in %s\n%s" % (path, err))
    return m.group(1)


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def report_rows(ctx, trace):
    rows, _ = get_report(ctx.sledtrace, trace, TIMEOUT)
    return {k: v[0] for k, v in rows.items()}


# ---- the cases -------------------------------------------------------------

def case_include(ctx):
    ct = [ctx.fixture("calltree")]
    expect_trace(ctx, ["-F", "^leaf_"], ct, {"leaf_x", "leaf_y", "leaf_z"})
    expect_trace(ctx, ["--filter", "chain"], ct, {"chain1", "chain2", "chain3"})
    expect_trace(ctx, ["-F", "^main$"], ct, {"main"})


def case_exclude_wins(ctx):
    ct = [ctx.fixture("calltree")]
    for opts in (["-F", "leaf", "-N", "leaf_y"], ["-N", "leaf_y", "-F", "leaf"],
                 ["-F", "leaf", "--exclude", "_y$"]):
        expect_trace(ctx, opts, ct, {"leaf_x", "leaf_z"})
    # An exclude alone: everything else.
    expect_trace(ctx, ["-N", "^(chain|leaf_)"], ct, {"main", "root", "branch_a", "branch_b"})


def case_repeated_include(ctx):
    ct = [ctx.fixture("calltree")]
    expect_trace(ctx, ["-F", "^root$", "-F", "chain2"], ct, {"root", "chain2"})
    expect_trace(ctx, ["-F", "^root$|chain2"], ct, {"root", "chain2"})
    expect_trace(ctx, ["-F", "^branch_a$", "-F", "^branch_b$", "-F", "leaf_z", "-N", "branch_a"],
                 ct, {"branch_b", "leaf_z"})


def case_filter_file(ctx):
    ct = [ctx.fixture("calltree")]
    f = ctx.path("hand.filter")
    write(f, "# leaves, but not leaf_y\n"
             "   ^leaf_   \n"
             "\n"
             "!leaf_y\n"
             "  # and the head of the chain\n"
             "\t^chain1$\n")
    expect_trace(ctx, ["--filter-file", f], ct, {"leaf_x", "leaf_z", "chain1"})
    # A file and options combine: the file's exclude still wins over -F.
    expect_trace(ctx, ["--filter-file", f, "-F", "leaf_y|^root$"], ct,
                 {"leaf_x", "leaf_z", "chain1", "root"})
    # A bad pattern in a file names the file and the line.
    bad = ctx.path("bad.filter")
    write(bad, "# fine\nleaf\nchain[\n")
    out = ctx.path("never.pftrace")
    expect_error(ctx, ["record", "-o", out, "--filter-file", bad, "--"] + ct,
                 [bad + ":3", "chain["], out)


def case_filter_roundtrip(ctx):
    ct = [ctx.fixture("calltree")]
    f = ctx.path("written.filter")
    # -F and -N mean the same as record's.
    print("running: sledtrace filter %s -F ^branch -F leaf_z -N branch_b -o %s" % (ct[0], f))
    status, out, err = ctx.st("filter", ct[0], "-F", "^branch", "-F", "leaf_z",
                              "-N", "branch_b", "-o", f)
    if status != 0:
        raise CheckFailed("sledtrace filter exited %d\n%s" % (status, err))
    text = open(f).read()
    bid = build_id(ct[0])
    if "# build-id: %s\n" % bid not in text or "# object: %s\n" % ct[0] not in text:
        raise CheckFailed("the filter file lacks the object/build-id headers (%s):\n%s"
                          % (bid, text))
    if "2 of 11 instrumented functions selected" not in out + err:
        raise CheckFailed("sledtrace filter did not report 2 of 11 selected:\n" + out + err)
    wanted = {"branch_a", "leaf_z"}
    expect_trace(ctx, ["--filter-file", f], ct, wanted)
    expect_trace(ctx, ["-F", "^branch", "-F", "leaf_z", "-N", "branch_b"], ct, wanted)
    # No warning about staleness for the object the file was written for.
    err = expect_trace(ctx, ["--filter-file", f], ct, wanted, quiet=False)
    if any("stale" in line for line in err):
        raise CheckFailed("a fresh filter file was called stale:\n" + "\n".join(err))


def case_filter_list(ctx):
    ct = [ctx.fixture("calltree")]
    names = ctx.path("names.txt")
    # Exact names, not regexes: "chain" selects nothing, "leaf_x" not leaf_xy.
    write(names, "# the functions to trace\nleaf_x\nroot\nchain\nchain2\n!root\n")
    f = ctx.path("list.filter")
    print("running: sledtrace filter %s --list %s -o %s" % (ct[0], names, f))
    status, out, err = ctx.st("filter", ct[0], "--list", names, "-o", f)
    if status != 0:
        raise CheckFailed("sledtrace filter --list exited %d\n%s" % (status, err))
    if "2 of 11 instrumented functions selected" not in out + err:
        raise CheckFailed("expected 2 of 11 selected:\n" + out + err)
    if not any("name 'chain' matches no instrumented function" in line
               for line in err.splitlines()):
        raise CheckFailed("no warning that the name 'chain' matches nothing:\n" + err)
    expect_trace(ctx, ["--filter-file", f], ct, {"leaf_x", "chain2"})
    # The same list from stdin.
    f2 = ctx.path("stdin.filter")
    status, out, err = ctx.st("filter", ct[0], "--list", "-", "-o", f2,
                              stdin="leaf_y\n# comment\n  leaf_z  \n")
    if status != 0:
        raise CheckFailed("sledtrace filter --list - exited %d\n%s" % (status, err))
    expect_trace(ctx, ["--filter-file", f2], ct, {"leaf_y", "leaf_z"})


def case_stale_filter(ctx):
    ct = [ctx.fixture("calltree")]
    other = ctx.fixture("recursion")
    # A filter file written for another object (a run applies one file to an
    # executable and all its libraries) is not stale for this one.
    f_other = ctx.path("other.filter")
    status, out, err = ctx.st("filter", other, "-F", "^main$", "-F", "leaf", "-o", f_other)
    if status != 0:
        raise CheckFailed("sledtrace filter exited %d\n%s" % (status, err))
    err = expect_trace(ctx, ["--filter-file", f_other], ct,
                       {"main", "leaf_x", "leaf_y", "leaf_z"}, quiet=False)
    if any("stale" in line for line in err):
        raise CheckFailed("a filter file of another object was called stale:\n"
                          + "\n".join(err))
    # Written for an older build of the same file name: stale.
    older = os.path.join(ctx.path("old"), os.path.basename(ct[0]))
    os.makedirs(os.path.dirname(older))
    shutil.copy(other, older)
    f = ctx.path("old.filter")
    status, out, err = ctx.st("filter", older, "-F", "^main$", "-F", "leaf", "-o", f)
    if status != 0:
        raise CheckFailed("sledtrace filter exited %d\n%s" % (status, err))
    old, new = build_id(other), build_id(ct[0])
    if old == new:
        raise CheckFailed("test bug: the two fixtures share a build-id")
    err = expect_trace(ctx, ["--filter-file", f], ct, {"main", "leaf_x", "leaf_y", "leaf_z"},
                       quiet=False)
    want = ("sledtrace: warning: filter file '%s' is stale: it was written for build-id %s (%s) "
            "but the object has build-id %s; regenerate it with 'sledtrace filter'"
            % (f, old, older, new))
    if want not in err:
        raise CheckFailed("expected the warning line\n  %s\ngot:\n%s" % (want, "\n".join(err)))
    # --quiet keeps the warning: it is about the result, not progress.
    err = expect_trace(ctx, ["--filter-file", f], ct, {"main", "leaf_x", "leaf_y", "leaf_z"})
    if want not in err:
        raise CheckFailed("--quiet dropped the stale warning:\n" + "\n".join(err))
    print("  warned: " + want)


def case_bad_regex(ctx):
    ct = [ctx.fixture("calltree")]
    out = ctx.path("bad.pftrace")
    for opt in ("-F", "-N"):
        expect_error(ctx, ["record", "-o", out, opt, "a(b", "--"] + ct,
                     ["'a(b'", "offset 1"], out)
    expect_error(ctx, ["record", "-o", out, "-F", "leaf", "-F", "x{2,1}", "--"] + ct,
                 ["'x{2,1}'", "offset"], out)
    flt = ctx.path("bad.filter")
    expect_error(ctx, ["filter", ct[0], "-F", "a(b", "-o", flt], ["'a(b'", "offset 1"], flt)


def case_empty_selection(ctx):
    ct = [ctx.fixture("calltree")]
    out = ctx.path("empty.pftrace")
    expect_error(ctx, ["record", "-o", out, "-F", "no_such_function", "--"] + ct,
                 ["selects none of the 11 functions", "--allow-empty"], out)
    expect_error(ctx, ["record", "-o", out, "-F", "leaf", "-N", "leaf", "--"] + ct,
                 ["selects none"], out)
    status, stdout, err, trace = ctx.record(["--allow-empty", "-F", "no_such_function"], ct,
                                            quiet=False)
    if status != 0:
        raise CheckFailed("--allow-empty: record exited %d\n%s" % (status, "\n".join(err)))
    if not parse_counts(stdout, "fixture")[0]:
        raise CheckFailed("--allow-empty: the fixture did not run")
    rows = report_rows(ctx, trace)
    if any(rows.values()):
        raise CheckFailed("--allow-empty with nothing selected traced calls: %s" % rows)
    if not any(ATTACH_RE.match(l) and ATTACH_RE.match(l).group(1, 2, 3) == ("0", "0", "0") for l in err):
        raise CheckFailed("expected '0 functions, 0 sleds, 0 probes attached':\n" + "\n".join(err))
    print("  --allow-empty: the fixture ran, empty trace")


def attach_line(err, attach="uprobe_multi", sleds=None):
    """(functions, probes, exits) from record's status line; sleds, when
    given, must be the number of sleds it says it probed."""
    lines = [ATTACH_RE.match(l) for l in err]
    lines = [m for m in lines if m]
    if len(lines) != 1:
        raise CheckFailed("expected one 'N functions, M probes attached' line:\n" + "\n".join(err))
    m = lines[0]
    if m.group(4) != attach:
        raise CheckFailed("attached with %s, expected %s:\n%s" % (m.group(4), attach, m.group(0)))
    if sleds is not None and int(m.group(2)) != sleds:
        raise CheckFailed("%s sleds probed, expected %d:\n%s" % (m.group(2), sleds, m.group(0)))
    return int(m.group(1)), int(m.group(3)), m.group(5)


def case_attach_line(ctx):
    ct = [ctx.fixture("calltree")]
    # calltree: one entry and one exit sled per function; plain C has no
    # unwind tables with a personality, so mixed means uretprobes (on the
    # entry sleds: only sled exits probe the exit sleds); auto probes both
    # sleds of the rewritten copy.
    sleds = {"auto": 6, "rewrite": 6, "mixed": 3, "sled": 6, "uretprobe": 3, "infer": 3}
    for exit_mode, nfuncs_probes_exits in (("auto", (3, 6, "rewritten sleds")),
                                           ("rewrite", (3, 6, "rewritten sleds")),
                                           ("mixed", (3, 6, "uretprobe")),
                                           ("sled", (3, 6, "sled")),
                                           ("uretprobe", (3, 6, "uretprobe")),
                                           ("infer", (3, 3, "infer"))):
        err = expect_trace(ctx, ["--exit=" + exit_mode, "-F", "^leaf_"], ct,
                           {"leaf_x", "leaf_y", "leaf_z"}, quiet=False)
        got = attach_line(err, sleds=sleds[exit_mode])
        if got != nfuncs_probes_exits:
            raise CheckFailed("--exit=%s: attach line says %s, expected %s"
                              % (exit_mode, got, nfuncs_probes_exits))
        print("  --exit=%s: %d functions, %d probes, exits %s" % ((exit_mode,) + got))
    err = expect_trace(ctx, ["--attach=perf", "--exit=infer", "-F", "^leaf_"], ct,
                       {"leaf_x", "leaf_y", "leaf_z"}, quiet=False)
    if attach_line(err, "perf events") != (3, 3, "infer"):
        raise CheckFailed("--attach=perf --exit=infer: attach line %s, expected (3, 3, 'infer')"
                          % (attach_line(err, "perf events"),))
    # C++ and Rust objects can unwind: mixed means inferred exits, except
    # for leaf functions (no call, no jump out), which no unwinder can cross.
    # Dog::sound and Cat::sound only bump a thread-local counter: leaves.
    cpp = [ctx.fixture("cpp")]
    err = expect_trace(ctx, ["--exit=mixed", "-F", "sound"], cpp, {"Dog::sound() const", "Cat::sound() const"},
                       exact_names=True, quiet=False)
    if attach_line(err) != (2, 4, "uretprobe, all leaf functions"):
        raise CheckFailed("C++ fixture: attach line %s, expected (2, 4, 'uretprobe, all leaf "
                          "functions')" % (attach_line(err),))
    # thrower(int) calls (itself, and __cxa_throw): inferred exits for it
    # alone (its entry sled only).
    err = expect_trace(ctx, ["--exit=mixed", "-F", "sound|thrower"], cpp,
                       {"Dog::sound() const", "Cat::sound() const", "thrower(int)"},
                       exact_names=True, quiet=False)
    if attach_line(err) != (3, 5, "infer, uretprobe for 2 leaf functions"):
        raise CheckFailed("C++ fixture: attach line %s, expected (3, 5, 'infer, uretprobe for "
                          "2 leaf functions')" % (attach_line(err),))
    rs = [ctx.fixture("rust_v0")]
    err = expect_trace(ctx, ["--exit=mixed", "-F", "^rust_shapes::measure::"], rs,
                       {"rust_shapes::measure::<u32>",
                        "rust_shapes::measure::<alloc::string::String>"},
                       exact_names=True, quiet=False)
    if attach_line(err) != (2, 4, "uretprobe, all leaf functions"):
        raise CheckFailed("Rust fixture: attach line %s, expected (2, 4, 'uretprobe, all leaf "
                          "functions')" % (attach_line(err),))


def case_mangled_names(ctx):
    cpp = [ctx.fixture("cpp")]
    # A pattern matches the demangled or the mangled name.
    for pat in ("^_ZNK3Dog5soundEv$", r"^Dog::sound\(\) const$"):
        expect_trace(ctx, ["-F", pat], cpp, {"Dog::sound() const"}, exact_names=True)
    expect_trace(ctx, ["-F", r"^int twice<int>\(int\)$"], cpp, {"int twice<int>(int)"},
                 exact_names=True)
    expect_trace(ctx, ["-F", r"^scale\(", "-N", "double"], cpp, {"scale(int)"},
                 exact_names=True)
    expect_trace(ctx, ["-F", r"main::\$_0"], cpp,
                 {"main::$_0::operator()(int) const",
                  "int apply<main::$_0>(main::$_0 const&, int)"}, exact_names=True)
    rs = [ctx.fixture("rust_v0")]
    expect_trace(ctx, ["-F", "^<rust_shapes::Dog as "], rs,
                 {"<rust_shapes::Dog as rust_shapes::Animal>::speak",
                  "<rust_shapes::Dog as core::ops::drop::Drop>::drop"}, exact_names=True)
    expect_trace(ctx, ["-F", r"\{closure#0\}$|::<u32>$"], rs,
                 {"rust_shapes::main::{closure#0}", "rust_shapes::measure::<u32>"},
                 exact_names=True)


def case_depth_of_selected(ctx):
    """--max-depth counts the nesting of traced (selected) calls only."""
    ct = [ctx.fixture("calltree")]
    # chain1 -> chain2 -> chain3: depths 1, 2, 3 among the selected.
    for exit_mode in ("auto", "infer"):
        expect_trace(ctx, ["--exit=" + exit_mode, "-F", "^chain", "--max-depth", "2"], ct,
                     {"chain1", "chain2"}, stats={"max_depth_dropped": 72})
    # branch_b left out: leaf_x is at depth 4 under branch_a (main, root,
    # branch_a, leaf_x: 2 * 3 * 1 = 6 calls, dropped) but at depth 3 under
    # branch_b (4 * 3 * 2 = 24 calls, kept).
    expect_trace(ctx, ["-F", "^(main|root|branch_a|leaf_x)$", "--max-depth=3"], ct,
                 {"main", "root", "branch_a", "leaf_x"}, fixed={"leaf_x": 24},
                 stats={"max_depth_dropped": 6})


def case_no_xray_needs_filter(ctx):
    plain = [ctx.fixture("plain")]
    out = ctx.path("nx.pftrace")
    expect_error(ctx, ["record", "-o", out, "--no-xray", "--"] + plain,
                 ["--no-xray", "-F", "--all"], out)
    expect_error(ctx, ["record", "-o", out, "--no-xray", "--exit=sled", "-F", "plain", "--"]
                 + plain, ["--exit=sled"], out)
    # Without --no-xray a plain build has no sleds: it runs (it might start
    # what has them), and one line says nothing had sleds.
    status, _, err, _ = ctx.record(["-F", "plain"], plain)
    if status != 0 or not any("no process of the tree mapped an object with sleds" in l
                              for l in err):
        raise CheckFailed("a plain build without --no-xray: status %d, stderr %s" % (status, err))
    err = expect_trace(ctx, ["--no-xray", "-F", "^plain_"], plain,
                       {"plain_main_loop", "plain_outer", "plain_inner", "plain_rec",
                        "plain_leaf"}, quiet=False)
    # Six plain_* symbols (plain_unused is never called), entry + return each.
    if attach_line(err)[:2] != (6, 12):
        raise CheckFailed("--no-xray -F ^plain_: attach line %s, expected 6 functions, "
                          "12 probes" % (attach_line(err),))


def case_no_xray_all(ctx):
    plain = [ctx.fixture("plain")]
    status, out, err, trace = ctx.record(["--no-xray", "--all"], plain)
    if status != 0:
        raise CheckFailed("--no-xray --all: record exited %d\n%s" % (status, "\n".join(err)))
    counts = by_name(parse_counts(out, "fixture")[0])
    rows = {}
    for (_, f), n in report_rows(ctx, trace).items():
        rows[f] = rows.get(f, 0) + n
    bad = ["  %s: fixture %d, trace %d" % (f, n, rows.get(f, 0))
           for f, n in sorted(counts.items()) if rows.get(f, 0) != n]
    if rows.get("main") != 1:
        bad.append("  main: trace %s, expected 1" % rows.get("main"))
    if rows.get("plain_unused", 0):
        bad.append("  plain_unused: traced, never called")
    if bad:
        raise CheckFailed("--no-xray --all counts differ:\n" + "\n".join(bad))
    print("  --no-xray --all: plain_* and main exact among %d traced functions" % len(rows))


def debian_python():
    """The python3 executable of Debian's python3-minimal package."""
    status, out, err = run(["dpkg-query", "-L", "python3-minimal"], TIMEOUT, "dpkg-query")
    for line in out.splitlines():
        if re.search(r"/bin/python3$", line) and os.path.exists(line):
            return os.path.realpath(line)
    raise CheckFailed("Debian's python3-minimal is not installed (meson depends on it)")


def case_no_xray_python(ctx):
    """Debian's python3 executable exports the C API in .dynsym: probe
    Py_IsInitialized and call it N and 2N times through ctypes."""
    py = debian_python()
    script = ("import ctypes\nf = ctypes.pythonapi.Py_IsInitialized\n"
              "for _ in range(%d):\n    assert f() == 1\n")
    n = 150
    for opts in (["--no-xray", "-F", "^Py_IsInitialized$"],
                 ["--no-xray", "-F", "^Py_IsInitialized$", "--exit=infer"],
                 ["--no-xray", "-F", "^Py_IsInitialized$", "--exit=uretprobe"]):
        calls = []
        for k in (n, 2 * n):
            status, out, err, trace = ctx.record(opts, [py, "-c", script % k], quiet=False)
            if status != 0:
                raise CheckFailed("record of python3 exited %d\n%s" % (status, "\n".join(err)))
            got = attach_line(err)
            want_probes = 1 if "--exit=infer" in opts else 2
            if got[:2] != (1, want_probes):
                raise CheckFailed("attach line %s, expected 1 function, %d probes"
                                  % (got, want_probes))
            rows = report_rows(ctx, trace)
            if set(f for (_, f) in rows) - {"Py_IsInitialized"}:
                raise CheckFailed("other functions traced: %s" % rows)
            calls.append(sum(rows.values()))
        if calls[1] - calls[0] != n:
            raise CheckFailed("%s: %d calls for N=%d, %d for 2N: difference %d, expected %d"
                              % (" ".join(opts), calls[0], n, calls[1], calls[1] - calls[0], n))
        print("  %s: %d and %d calls (difference %d = N)" % (" ".join(opts), calls[0],
                                                             calls[1], n))


CASES = {name[5:].replace("_", "-"): fn for name, fn in globals().items()
         if name.startswith("case_")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    for fx in ("calltree", "recursion", "cpp", "rust-v0", "plain"):
        ap.add_argument("--" + fx)
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    if not shutil.which("readelf"):
        print("FAIL: readelf (binutils) not found", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="sledtrace-filters-") as tmp:
        return verdict(CASES[args.case], Ctx(args, tmp))


if __name__ == "__main__":
    sys.exit(main())
