#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_pnpm.py: `sledtrace record -- pnpm test` on a pnpm workspace.

tests/pnpm/ holds a workspace whose `pnpm test` runs node's test runner in
every package, all at pnpm's default concurrency; node runs every test file
in a process of its own, several at once, and each loads the Node-API addon
named by --addon (tests/pnpm/addon/addon.c built with clang XRay, or
addon.rs built with rustc's XRay sleds) through counted.js, which writes
the addon's own call counters at exit.  The trace must hold exactly those
calls in every node process that ran a test file, and nothing else: node
and pnpm have no sleds and are left alone.  How many such processes there
are comes from the workspace itself: every `test/**/*.test.js` of every
package pnpm-workspace.yaml lists.  Nothing is downloaded: pnpm and the
headers come from scripts/bootstrap, the workspace has no dependencies.

--expect-causes CAUSED=CAUSE (docs/DESIGN.md, "Causes"): the trace, read
back through the pola export by DuckDB (tests/npm/read_parquet.mjs), gives
every call of CAUSED (as many as the processes counted, at least one) a
wakeup as cause, from a call of CAUSE on the main thread of CAUSED's own
process (another thread), one CAUSE call each, every CAUSE call used:
addon.c's work_execute runs on libuv's pool because queue_work queued it.

--runs N records the workspace N times; every run must be exact (a run
that fails is reported and the others still run: this is no retry).

--follow PARENT_ADDON attaches instead: launcher.js (a node process that
has loaded PARENT_ADDON) waits, `record -p PID --follow` attaches to it,
and only then does it start `pnpm test` and call its addon.  Its own
calls after the attach and every test process's calls must be exact.

--expect-once FUNCTION: every test process calls FUNCTION exactly once
(napi_register_module_v1, the module's init) and the trace has that call.
A function both addons define carries its object's file name in the
trace; it is compared under its own name.
Functions the record options exclude (-N REGEX, read as a Python regex)
are not expected in the trace.  A trace with coverage gaps (sledtrace
saying it could not cover a window) fails too; a failed run shows
sledtrace's own stderr lines, and --keep-failed DIR keeps its trace,
counts and output there.  With -v among the record options (without
--follow), record must also say once that the addon's rewritten copy is
bound for the node processes that load it later.

Usage: check_pnpm.py --sledtrace S --workspace DIR --addon A --pnpm P
         [--runs N] [--follow PARENT_ADDON] [--expect-once FUNCTION]
         [--expect-causes CAUSED=CAUSE] [--keep-failed DIR] [-- RECORD_OPTION...]
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_counts  # noqa: E402
from check_counts import CheckFailed  # noqa: E402

TIMEOUT = 300
READER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "npm", "read_parquet.mjs")
WAKEUP = 2  # pola's cause_kind
SUMMARY_RE = re.compile(r"^(?:\S+ test: )?# (tests|pass|fail) (\d+)$")
GAPS_RE = re.compile(r"\bcoverage_gaps=(\d+)")


def workspace_packages(ws):
    """The package directories pnpm-workspace.yaml's `packages:` globs name."""
    globs, in_packages = [], False
    with open(os.path.join(ws, "pnpm-workspace.yaml")) as f:
        for line in f:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if not line[0].isspace():
                in_packages = line.strip() == "packages:"
            elif in_packages and line.strip().startswith("- "):
                globs.append(line.strip()[2:].strip().strip("'\""))
    dirs = sorted({d for g in globs for d in glob.glob(os.path.join(ws, g))
                   if os.path.isfile(os.path.join(d, "package.json"))})
    if not dirs:
        raise CheckFailed("pnpm-workspace.yaml in %s names no package" % ws)
    return dirs


def expected_test_files(ws):
    """{package: number of test files} for the packages with a test script."""
    files = {}
    for d in workspace_packages(ws):
        with open(os.path.join(d, "package.json")) as f:
            if "test" not in json.load(f).get("scripts", {}):
                continue
        n = len(glob.glob(os.path.join(d, "test", "**", "*.test.js"), recursive=True))
        files[os.path.basename(d)] = n
    return files


def record_command(a, ws, env, trace):
    argv = [a.sledtrace, "record", "-o", trace] + a.record_options + ["--", a.pnpm, "test"]
    status, out, err = check_counts.run(argv, TIMEOUT, "sledtrace record -- pnpm test",
                                        cwd=ws, env=env)
    if status != 0:
        raise CheckFailed("sledtrace record -- pnpm test exited %d\n--- stdout ---\n%s\n"
                          "--- stderr ---\n%s" % (status, out[-3000:], err))
    return out, err, None


def stop(proc):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def wait_attached(rec):
    """record -p's stderr up to its `attached` line."""
    err = ""
    for line in rec.stderr:
        err += line
        if "attached" in line:
            return err
    raise CheckFailed("record -p did not attach (status %s):\n%s" % (rec.wait(), err))


def record_follow(a, ws, env, trace, tmp):
    """launcher.js waits; record -p attaches; then the launcher starts
    `pnpm test`.  Returns its output, record's stderr and its pid."""
    node = shutil.which("node", path=env["PATH"])
    if not node:
        raise CheckFailed("node is not on PATH")
    env = dict(env, SLEDTRACE_PARENT_ADDON=a.follow)
    with open(os.path.join(tmp, "launcher.err"), "w+") as lerr:
        launcher = subprocess.Popen([node, os.path.join(ws, "addon", "launcher.js"), a.pnpm,
                                     "test"], cwd=ws, env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=lerr, text=True,
                                    start_new_session=True)
        rec = None
        try:
            if launcher.stdout.readline() != "READY\n":
                raise CheckFailed("launcher.js did not start (status %s)" % launcher.wait())
            rec = subprocess.Popen([a.sledtrace, "record", "-p", str(launcher.pid), "--follow",
                                    "-o", trace] + a.record_options,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True, start_new_session=True)
            err = wait_attached(rec)
            os.kill(launcher.pid, signal.SIGUSR2)
            out = launcher.communicate(timeout=TIMEOUT)[0]
            err += rec.communicate(timeout=TIMEOUT)[1]
        except subprocess.TimeoutExpired:
            raise CheckFailed("launcher.js or record -p did not finish in %ds" % TIMEOUT)
        finally:
            for p in (launcher, rec):
                if p:
                    stop(p)
        lerr.seek(0)
        if launcher.returncode != 0 or rec.returncode != 0:
            raise CheckFailed("launcher.js (pnpm test) exited %d, record -p %d\n--- stdout ---\n"
                              "%s\n--- launcher stderr ---\n%s\n--- record stderr ---\n%s"
                              % (launcher.returncode, rec.returncode, out[-3000:],
                                 lerr.read()[-3000:], err))
    return out, err, launcher.pid


def test_summaries(out, packages):
    """node's `# tests/pass/fail N` lines: one set per package, all passed."""
    seen = {"tests": [], "pass": [], "fail": []}
    for line in out.splitlines():
        m = SUMMARY_RE.match(line)
        if m:
            seen[m.group(1)].append(int(m.group(2)))
    if any(len(v) != packages for v in seen.values()) or any(seen["fail"]) \
            or sum(seen["tests"]) != sum(seen["pass"]) or not all(seen["tests"]):
        return ["the test runs reported %s, expected %d packages' tests all passed"
                % (seen, packages)]
    return []


def read_counts(counts_dir):
    """{pid: {(pid, function): n}} from every process's counts file."""
    per_pid = {}
    for name in glob.glob(os.path.join(counts_dir, "*.txt")):
        with open(name) as f:
            counts = check_counts.parse_counts(f.read(), name)[0]
        per_pid[int(os.path.basename(name)[:-4])] = counts
    return per_pid


def excluded_patterns(options):
    """The -N/--exclude regexes among record's options (as text)."""
    pats, it = [], iter(options)
    for o in it:
        if o in ("-N", "--exclude"):
            pats.append(next(it, ""))
        elif o.startswith("--exclude="):
            pats.append(o.split("=", 1)[1])
        elif o.startswith("-N"):
            pats.append(o[2:])
    return pats


def expected_calls(per_pid, excluded):
    want = {}
    for counts in per_pid.values():
        want.update({k: n for k, n in counts.items()
                     if not any(p.search(k[1]) for p in excluded)})
    return want


def without_objects(rows, objects):
    """A name both addons define is shown with its object's file name,
    `napi_register_module_v1 [sledtrace_addon.node]`; each process loads
    one addon, so the counts it wrote name the function alone."""
    merged = {}
    for (tid, func), (calls, total, self_ns) in rows.items():
        for o in objects:
            if func.endswith(" [%s]" % o):
                func = func[:-len(o) - 3]
        c, t, s_ = merged.get((tid, func), (0, 0, 0))
        merged[(tid, func)] = (c + calls, t + total, s_ + self_ns)
    return merged


def process_problems(per_pid, rows, launcher, expect_once):
    """Processes absent from the trace; the init function once per process."""
    problems = []
    traced = {tid for tid, _ in rows}
    for pid in sorted(per_pid):
        if per_pid[pid] and pid not in traced:
            problems.append("node process %d counted %d calls and is missing from the trace"
                            % (pid, sum(per_pid[pid].values())))
        if expect_once and pid != launcher:
            counted = per_pid[pid].get((pid, expect_once), 0)
            traced_n = rows.get((pid, expect_once), (0, 0, 0))[0]
            if counted != 1 or traced_n != 1:
                problems.append("node process %d: %s counted %d times, traced %d, expected once"
                                % (pid, expect_once, counted, traced_n))
    return problems


def gap_problems(report):
    """The report's coverage gaps: windows sledtrace says it did not cover."""
    stats = [l for l in report.splitlines() if l.startswith("# stats:")]
    m = GAPS_RE.search(stats[0]) if stats else None
    if not m or m.group(1) == "0":
        return []
    return ["the trace has %s coverage gaps:" % m.group(1)] + [
        "  " + l[2:] for l in report.splitlines() if l.startswith("# coverage gap:")]


def prepare(tmp, workspace, addon, pnpm, env=None):
    """A copy of the workspace in tmp, where the counters go, and the
    environment its tests need (env, or ours, plus what the tests read):
    (workspace copy, counts dir, env)."""
    ws = os.path.join(tmp, "ws")
    shutil.copytree(workspace, ws)
    counts_dir = os.path.join(tmp, "counts")
    os.mkdir(counts_dir)
    env = dict(env or os.environ)
    env.update(SLEDTRACE_ADDON=addon, SLEDTRACE_COUNTS=counts_dir,
               PATH=os.path.dirname(pnpm) + ":" + env.get("PATH", ""))
    return ws, counts_dir, env


def check_trace(sledtrace, trace, ws, counts_dir, stdout, uncounted=(), objects=(),
                launcher=None, expect_once=None):
    """Problems with a recording of `pnpm test` in the workspace copy ws:
    every package's tests passed, every test file's node process (and the
    launcher, given its pid) wrote counts, and the trace holds exactly
    those calls, no coverage gap and nothing else.  Functions matching a
    regex of `uncounted` are neither expected nor compared; `objects` are
    the addons' file names (without_objects).  Returns (problems, a
    one-line summary, the counts compared summed per process, as report
    --by-process shows them: {(pid, function): calls})."""
    files = expected_test_files(ws)
    per_pid = read_counts(counts_dir)
    problems = test_summaries(stdout, len(files))
    want_procs = sum(files.values()) + (launcher is not None)
    if len(per_pid) != want_procs or (launcher and launcher not in per_pid):
        problems.append("%d node processes wrote counts, expected %d (test files: %s%s)"
                        % (len(per_pid), want_procs, files, ", and the launcher" if launcher
                           else ""))
    rows, report = check_counts.get_report(sledtrace, trace, 60)
    problems += gap_problems(report)
    uncounted = [re.compile(u) for u in uncounted]
    rows = {k: v for k, v in without_objects(rows, objects).items()
            if not any(u.search(k[1]) for u in uncounted)}
    want = expected_calls(per_pid, uncounted)
    problems += process_problems(per_pid, rows, launcher, expect_once)
    problems += check_counts.compare_counts(want, rows)
    others = sorted({f for _, f in rows} - {f for _, f in want})
    if others:
        problems.append("functions in the trace that no process counted: %s" % others)
    summary = "%d node processes, %d (thread, function) counts compared" % (
        len(per_pid), len(want))
    by_process = {}
    for pid, counts in per_pid.items():
        for (_, f), n in expected_calls({pid: counts}, uncounted).items():
            by_process[(pid, f)] = by_process.get((pid, f), 0) + n
    return problems, summary, by_process


def read_causes(sledtrace, trace, tmp, env):
    """Every entry with a cause, from the pola export as DuckDB reads it:
    [{fn, tid, frame, kind, cause_fn, cause_tid, cause_frame}]."""
    pola = os.path.join(tmp, "t.pola")
    node = shutil.which("node", path=env["PATH"])
    for argv, what in (([sledtrace, "convert", "--to=pola", "-o", pola, trace], "convert"),
                       ([node or "node", READER, "duckdb", pola, pola + ".symtab"],
                        "read_parquet.mjs")):
        status, out, err = check_counts.run(argv, 120, what)
        if status != 0:
            raise CheckFailed("`%s` exited %d:\n%s" % (" ".join(argv), status, err))
    keys = ["fn", "tid", "frame", "kind", "cause_fn", "cause_tid", "cause_frame"]
    # a name both addons define carries its object's file name (without_objects)
    return [dict(zip(keys, r), fn=r[0].split(" [")[0], cause_fn=(r[4] or "").split(" [")[0])
            for r in json.loads(out)["causes"]]


def cause_problems(expect, causes, per_pid):
    """--expect-causes CAUSED=CAUSE against the causes the trace gives:
    (problems, how many calls of CAUSED have a cause)."""
    caused_fn, cause_fn = expect.split("=", 1)
    owner = {tid: pid for pid, counts in per_pid.items() for tid, f in counts
             if f == caused_fn}
    calls = sum(n for counts in per_pid.values() for (_, f), n in counts.items()
                if f == caused_fn)
    queued = sum(n for pid, counts in per_pid.items() for (tid, f), n in counts.items()
                 if f == cause_fn and tid == pid and pid in owner.values())
    got = [c for c in causes if c["fn"] == caused_fn]
    problems = []
    if not calls:
        problems.append("no process counted a call of %s" % caused_fn)
    if len(got) != calls:
        problems.append("%d of the %d calls of %s have a cause" % (len(got), calls, caused_fn))
    bad = [c for c in got if (c["kind"], c["cause_fn"]) != (WAKEUP, cause_fn)
           or c["cause_tid"] == c["tid"] or c["cause_tid"] != owner.get(c["tid"])]
    if bad:
        problems.append("%d calls of %s not woken from %s on their process's main thread, "
                        "e.g. %s" % (len(bad), caused_fn, cause_fn, bad[:3]))
    frames = {c["cause_frame"] for c in got}
    if len(frames) != len(got) or len(frames) != queued:
        problems.append("%d calls of %s name %d distinct %s frames; %d %s calls were counted"
                        % (len(got), caused_fn, len(frames), cause_fn, queued, cause_fn))
    return problems, len(got)


def check_run(a, tmp):
    ws, counts_dir, env = prepare(tmp, a.workspace, a.addon, a.pnpm)
    trace = os.path.join(tmp, "t.pftrace")
    start = time.monotonic()
    if a.follow:
        out, err, launcher = record_follow(a, ws, env, trace, tmp)
    else:
        out, err, launcher = record_command(a, ws, env, trace)
    took = time.monotonic() - start
    problems, summary, _ = check_trace(
        a.sledtrace, trace, ws, counts_dir, out, excluded_patterns(a.record_options),
        {os.path.basename(p) for p in (a.addon, a.follow) if p}, launcher, a.expect_once)
    if a.expect_causes:
        causes = read_causes(a.sledtrace, trace, tmp, env)
        got, caused = cause_problems(a.expect_causes, causes, read_counts(counts_dir))
        problems += got
        summary += "; %d calls with a cause (%s)" % (caused, a.expect_causes)
    if "-v" in a.record_options and not a.follow:
        # The first node process maps the addon at a hold; its copy is
        # bound for the later ones (record/hold/copies.h).
        what = "%s: rewritten copy bound in the command's namespace" % os.path.basename(a.addon)
        bound = sum(what in l for l in err.splitlines())
        if bound != 1:
            problems.append("record -v says %d times that the addon's copy is bound, "
                            "expected once" % bound)
    own = [l for l in err.splitlines() if l.startswith("sledtrace:")]
    summary += " in %.1f s; %s" % (took, own[-1] if own else "(record said nothing)")
    if problems:
        problems += ["sledtrace's stderr:"] + ["  " + l for l in own]
        with open(os.path.join(tmp, "output.txt"), "w") as f:
            f.write("--- stdout ---\n%s\n--- stderr ---\n%s" % (out, err))
    return summary, problems


def keep(tmp, dest, run):
    """A failed run's trace, counts and output, for a closer look."""
    target = os.path.join(dest, "run%d" % run)
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(tmp, target, ignore=shutil.ignore_patterns("ws"))
    return target


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for opt in ("--sledtrace", "--workspace", "--addon", "--pnpm"):
        ap.add_argument(opt, required=True, type=os.path.abspath)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--follow", type=os.path.abspath, metavar="PARENT_ADDON")
    ap.add_argument("--expect-once", metavar="FUNCTION")
    ap.add_argument("--expect-causes", metavar="CAUSED=CAUSE")
    ap.add_argument("--keep-failed", type=os.path.abspath, metavar="DIR")
    ap.add_argument("record_options", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    if a.expect_causes and "=" not in a.expect_causes:
        ap.error("--expect-causes takes CAUSED=CAUSE")
    if a.record_options[:1] == ["--"]:
        a.record_options = a.record_options[1:]
    failed = 0
    for i in range(1, a.runs + 1):
        with tempfile.TemporaryDirectory() as tmp:
            try:
                summary, problems = check_run(a, tmp)
            except CheckFailed as e:
                summary, problems = "failed", [str(e)]
            if problems and a.keep_failed:
                problems.append("kept in " + keep(tmp, a.keep_failed, i))
        failed += bool(problems)
        print("run %d/%d: %s" % (i, a.runs, summary))
        for p in problems:
            print("  " + p)
        sys.stdout.flush()
    if failed:
        print("%d of %d runs failed" % (failed, a.runs))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
