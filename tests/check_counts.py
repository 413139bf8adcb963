#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_counts.py: end-to-end exactness check of `sledtrace record`.

Runs a fixture untraced, then under `sledtrace record`, and checks that
  1. the traced run behaves like the untraced one: same exit status (the
     expected one) and the same stdout, COUNT tids aside;
  2. `sledtrace report --by-thread --format=tsv` of the trace gives, for
     every `COUNT <tid> <function> <n>` line the fixture printed, exactly n
     calls for (tid, function), and no calls of any function on any thread
     the fixture did not report.

Names may hold blanks (C++: `COUNT 7 Dog::sound() const 8`).  A fixture may
also print `STAT <name> <n>` lines; then the `stats:` line of the table
report must say `<name>=<n>` (max_depth_dropped, short_dropped, ...).

With --expect-signal the traced target is expected to die by that signal
(the uretprobe + C++ exception hazard); then the trace must still be
readable and hold no more calls per function than a full untraced run.

Usage: check_counts.py --sledtrace PATH [--exit MODE] [--attach MODE]
         [--expect-status N | --expect-signal NAME] [--record-arg=ARG]...
         [--exact-names] -- FIXTURE [ARGS...]
--record-arg passes ARG on to `sledtrace record` (e.g. --record-arg=-Fleaf);
--exact-names compares whole display names, parameter lists included.
Python 3 standard library only.
"""

import argparse
import collections
import difflib
import os
import re
import signal
import subprocess
import sys
import tempfile

# The one CheckFailed of every checker: those that import it from here
# catch what checklib's helpers raise too.
from checklib import CheckFailed, verdict

REPORT_HEADER = "tid\tfunction\tcalls\ttotal_ns\tself_ns"
COUNT_RE = re.compile(r"^COUNT (\d+) (\S.*?) (\d+)$")
STAT_RE = re.compile(r"^STAT ([a-z_]+) (\d+)$")


def status_of(returncode):
    """A shell-style exit status: a death by signal N becomes 128 + N."""
    return 128 - returncode if returncode < 0 else returncode


def run(argv, timeout, what, cwd=None, env=None):
    """Run argv in its own session (so a timeout kills the whole tree)."""
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise CheckFailed("%s timed out after %ss: %s\n--- stderr ---\n%s"
                          % (what, timeout, " ".join(argv), err.decode(errors="replace")))
    return status_of(proc.returncode), out.decode(errors="replace"), err.decode(errors="replace")


def parse_counts(stdout, what):
    """COUNT lines -> ({(tid, function): n}, [lines with tids renumbered])."""
    counts = {}
    normalized = []
    tids = {}
    for line in stdout.splitlines():
        if line.startswith("COUNT"):
            m = COUNT_RE.match(line)
            if not m:
                raise CheckFailed("%s printed a malformed COUNT line: %r" % (what, line))
            tid, func, n = int(m.group(1)), m.group(2), int(m.group(3))
            if (tid, func) in counts:
                raise CheckFailed("%s printed (%d, %s) twice" % (what, tid, func))
            counts[(tid, func)] = n
            tids.setdefault(tid, "T%d" % len(tids))
            line = "COUNT %s %s %d" % (tids[tid], func, n)
        normalized.append(line)
    return counts, normalized


def base_name(func):
    """`name(int, char*)` (a demangled C++ name) -> `name`; others unchanged."""
    i = func.find("(")
    return func[:i] if i > 0 else func


def parse_stats_lines(stdout):
    """The fixture's `STAT <name> <n>` lines -> {name: n}."""
    return {m.group(1): int(m.group(2))
            for m in map(STAT_RE.match, stdout.splitlines()) if m}


RUST_HASH_RE = re.compile(r"::h[0-9a-f]{16}$")


def merge_rust_hashes(rows):
    """Functions whose legacy Rust names collide once the hash is stripped
    are told apart by sledtrace with their hash; the fixture cannot know
    the hashes, so sum them back per stripped name.  Returns the rows and
    how many hashed names there were."""
    merged, hashed = {}, 0
    for (tid, func), (calls, total, self_ns) in rows.items():
        stripped = RUST_HASH_RE.sub("", func)
        hashed += stripped != func
        c, t, s_ = merged.get((tid, stripped), (0, 0, 0))
        merged[(tid, stripped)] = (c + calls, t + total, s_ + self_ns)
    return merged, hashed


def parse_report(text, exact_names=False):
    """The TSV report -> {(tid, function): (calls, total_ns, self_ns)}."""
    # Columns after the first five and the closing "# stats:" line are
    # the report's own (docs/exports.md); this check needs the first five.
    lines = [l for l in text.splitlines() if not l.startswith("#")]
    if not lines or lines[0].split("\t")[:5] != REPORT_HEADER.split("\t"):
        raise CheckFailed("report header is %r, expected %r"
                          % (lines[0] if lines else "<empty output>", REPORT_HEADER))
    rows = {}
    for num, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) < 5:
            raise CheckFailed("report line %d has %d fields, expected at least 5: %r"
                              % (num, len(fields), line))
        try:
            tid, calls, total, self_ns = (int(fields[0]), int(fields[2]),
                                          int(fields[3]), int(fields[4]))
        except ValueError:
            raise CheckFailed("report line %d is not numeric where it should be: %r"
                              % (num, line))
        func = fields[1] if exact_names else base_name(fields[1])
        if calls < 0 or total < 0 or self_ns < 0 or self_ns > total:
            raise CheckFailed("report line %d is inconsistent (negative, or self > total): %r"
                              % (num, line))
        if (tid, func) in rows:
            raise CheckFailed("report lists (%d, %s) twice" % (tid, func))
        rows[(tid, func)] = (calls, total, self_ns)
    return rows


def get_report(sledtrace, trace, timeout, exact_names=False):
    # raw times: self <= total holds by construction only for them (a
    # calibration above the callees' real probe cost can take more out of
    # a compensated total than out of its self time)
    argv = [sledtrace, "report", "--by-thread", "--format=tsv", "--times=raw", trace]
    status, out, err = run(argv, timeout, "sledtrace report")
    if status != 0:
        raise CheckFailed("`%s` exited %d\n--- stderr ---\n%s" % (" ".join(argv), status, err))
    return parse_report(out, exact_names), out


def get_stats(sledtrace, trace, timeout):
    """The `stats:` line of the table report -> {name: n}."""
    argv = [sledtrace, "report", trace]
    status, out, err = run(argv, timeout, "sledtrace report")
    if status != 0:
        raise CheckFailed("`%s` exited %d\n--- stderr ---\n%s" % (" ".join(argv), status, err))
    lines = [l for l in out.splitlines() if l.startswith("stats:")]
    if len(lines) != 1:
        raise CheckFailed("the table report has %d `stats:` lines, expected 1:\n%s"
                          % (len(lines), out))
    stats = {}
    for field in lines[0].split()[1:]:
        name, _, value = field.partition("=")
        if not value.isdigit():
            raise CheckFailed("malformed stats field %r in %r" % (field, lines[0]))
        stats[name] = int(value)
    return stats, out


def compare_counts(expected, rows):
    """Exact comparison; returns a list of human-readable problems."""
    problems = []
    for (tid, func), n in sorted(expected.items()):
        got = rows.get((tid, func), (0, 0, 0))[0]
        if got != n:
            problems.append("  tid %-8d %-24s fixture %-10d trace %d" % (tid, func, n, got))
    for (tid, func), (calls, _, _) in sorted(rows.items()):
        if (tid, func) not in expected and calls != 0:
            problems.append("  tid %-8d %-24s fixture %-10s trace %d   (not called per fixture)"
                            % (tid, func, "-", calls))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--exit", dest="exit_mode", default=None,
                    help="auto, rewrite, mixed, sled, uretprobe or infer")
    ap.add_argument("--attach", default=None, help="auto, multi or perf")
    ap.add_argument("--expect-status", type=int, default=0,
                    help="exit status of the fixture, traced and untraced (default 0)")
    ap.add_argument("--expect-signal", default=None,
                    help="the traced fixture must die by this signal (e.g. SIGABRT)")
    ap.add_argument("--timeout", type=float, default=600, help="per command, seconds")
    ap.add_argument("--record-arg", action="append", default=[], metavar="ARG",
                    help="pass ARG on to sledtrace record (repeatable; write --record-arg=-F...)")
    ap.add_argument("--exact-names", action="store_true",
                    help="compare whole display names (default: up to the first '(')")
    ap.add_argument("--rust-hashed-names", type=int, default=None, metavar="N",
                    help="exactly N trace names carry a legacy Rust hash (to tell apart "
                         "names that collide without it); compare them without it")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        ap.error("no fixture command given")
    cmd[0] = os.path.abspath(cmd[0])
    args.sledtrace = os.path.abspath(args.sledtrace)

    return verdict(check, args, cmd)


def check(args, cmd):
    # The reference: the fixture on its own.
    ref_status, ref_out, ref_err = run(cmd, args.timeout, "untraced fixture")
    if ref_status != args.expect_status:
        raise CheckFailed("untraced fixture exited %d, expected %d\n--- stderr ---\n%s"
                          % (ref_status, args.expect_status, ref_err))
    ref_counts, ref_norm = parse_counts(ref_out, "untraced fixture")
    if not ref_counts:
        raise CheckFailed("untraced fixture printed no COUNT lines")

    with tempfile.TemporaryDirectory(prefix="sledtrace-check-") as tmp:
        trace = os.path.join(tmp, "trace.pftrace")
        argv = [args.sledtrace, "record", "--quiet", "-o", trace]
        if args.exit_mode:
            argv.append("--exit=" + args.exit_mode)
        if args.attach:
            argv.append("--attach=" + args.attach)
        argv += args.record_arg
        argv += ["--"] + cmd
        print("running: " + " ".join(argv))
        status, out, err = run(argv, args.timeout, "sledtrace record")
        if err.strip():
            print("--- sledtrace record stderr ---\n" + err.rstrip())

        if args.expect_signal:
            check_killed(args, trace, status, ref_counts)
            return

        if status != args.expect_status:
            raise CheckFailed("traced fixture exited %d, expected %d (untraced: %d)"
                              % (status, args.expect_status, ref_status))
        counts, norm = parse_counts(out, "traced fixture")
        if norm != ref_norm:
            diff = "\n".join(difflib.unified_diff(ref_norm, norm, "untraced stdout",
                                                  "traced stdout", lineterm=""))
            raise CheckFailed("traced stdout differs from untraced stdout "
                              "(COUNT tids renumbered T0, T1, ...):\n" + diff)
        if not os.path.isfile(trace) or os.path.getsize(trace) == 0:
            raise CheckFailed("sledtrace record left no trace (or an empty one) at " + trace)

        rows, report = get_report(args.sledtrace, trace, args.timeout, args.exact_names)
        if args.rust_hashed_names is not None:
            rows, hashed = merge_rust_hashes(rows)
            if hashed != args.rust_hashed_names:
                raise CheckFailed("expected %d hash-suffixed names in the trace, found %d\n%s"
                                  % (args.rust_hashed_names, hashed, report))
        problems = compare_counts(counts, rows)
        if problems:
            raise CheckFailed("call counts differ between the fixture and the trace:\n"
                              + "\n".join(problems) + "\n--- report ---\n" + report.rstrip())
        print("%d (tid, function) counts match exactly" % len(counts))
        expected_stats = parse_stats_lines(out)
        if expected_stats:
            stats, table = get_stats(args.sledtrace, trace, args.timeout)
            bad = ["  %s: fixture %d, report %s" % (k, v, stats.get(k, "missing"))
                   for k, v in sorted(expected_stats.items()) if stats.get(k) != v]
            if bad:
                raise CheckFailed("trace stats differ from the fixture's:\n" + "\n".join(bad)
                                  + "\n--- report ---\n" + table.rstrip())
            print("stats match: " + " ".join("%s=%d" % kv for kv in sorted(expected_stats.items())))


def check_killed(args, trace, status, ref_counts):
    signum = getattr(signal, args.expect_signal.upper(), None)
    if signum is None:
        raise CheckFailed("unknown signal name %r" % args.expect_signal)
    if status != 128 + signum:
        raise CheckFailed("traced fixture exited %d, expected death by %s (status %d)"
                          % (status, args.expect_signal, 128 + signum))
    if not os.path.isfile(trace) or os.path.getsize(trace) == 0:
        raise CheckFailed("no readable trace after the target died: %s missing or empty" % trace)
    rows, report = get_report(args.sledtrace, trace, args.timeout)
    full_run = collections.Counter()
    for (_, func), n in ref_counts.items():
        full_run[func] += n
    seen = collections.Counter()
    for (_, func), (calls, _, _) in rows.items():
        seen[func] += calls
    problems = ["  %-24s trace %d > full untraced run %d" % (f, seen[f], full_run[f])
                for f in sorted(seen) if seen[f] > full_run[f]]
    if not sum(seen.values()):
        problems.append("  the trace holds no calls at all")
    if problems:
        raise CheckFailed("trace of the killed target is implausible:\n" + "\n".join(problems)
                          + "\n--- report ---\n" + report.rstrip())
    print("target died by %s as expected; trace readable with %d calls"
          % (args.expect_signal, sum(seen.values())))


if __name__ == "__main__":
    sys.exit(main())
