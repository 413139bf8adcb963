#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# bench/exit_modes.py: what each --exit mode costs, side by side.
# Programs: the loop fixture (1M calls), the cpp_shapes and exception
# fixtures, and two non-leaf-heavy programs of our own (bench/nonleaf.cc,
# bench/nonleaf.rs: recursive tree evaluation through helpers that can
# throw or panic).  Configurations: untraced, auto (rewritten sleds),
# sled (original exit sleds), uretprobe, infer, mixed (the fallback).
# Wall-time medians of N interleaved runs (default 5), ns per call over
# untraced, ratios to uretprobe, for wall time and for the CPU time of
# sledtrace and the target (steadier on a shared machine); then, for inferred exits, the mean
# duration per call of each function under mixed against rewrite.
# Needs root and a release build: meson setup build-rel --buildtype=release
# (bench/README.md).
# Usage: bench/exit_modes.py [--build build-rel] [--reps N] [--skip-sled]
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODES = ["auto", "sled", "uretprobe", "infer", "mixed"]


def build_programs(build, out):
    """The bench's own programs, built with XRay sleds into out/."""
    cxx = ["clang++", "-O2", "-fxray-instrument", "-fxray-instruction-threshold=1",
           "-fnoxray-link-deps"]
    subprocess.run(cxx + [os.path.join(ROOT, "bench", "nonleaf.cc"), "-o",
                          os.path.join(out, "nonleaf_cc")], check=True)
    rustc = shutil.which("rustc", path=os.path.expanduser("~/.cargo/bin") + ":" +
                         os.environ.get("PATH", ""))
    progs = {
        "loop": [os.path.join(build, "tests", "fixtures", "loop"), "1000000"],
        "cpp_shapes": [os.path.join(build, "tests", "fixtures", "cpp_shapes")],
        "exception": [os.path.join(build, "tests", "fixtures", "exception")],
        "nonleaf_cc": [os.path.join(out, "nonleaf_cc")],
    }
    if rustc:
        env = dict(os.environ, RUSTC_BOOTSTRAP="1")
        subprocess.run([rustc, "--edition=2021", "-O", "-Zinstrument-xray=always",
                        os.path.join(ROOT, "bench", "nonleaf.rs"), "-o",
                        os.path.join(out, "nonleaf_rs")], check=True, env=env)
        progs["nonleaf_rs"] = [os.path.join(out, "nonleaf_rs")]
    return progs


def timed(argv, may_abort=False):
    """Wall seconds; None when the target aborted and that was expected
    (uretprobes under an exception)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode == 128 + 6 and may_abort:
        return None
    if p.returncode:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, " ".join(argv), p.stderr.decode()))
    # CPU of sledtrace and the target it reaped: what the probes cost,
    # less disturbed than wall time by other work on the machine.
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return (dt, cpu)


def record_argv(sledtrace, mode, trace, cmd):
    return [sledtrace, "record", "-q", "--exit=" + mode, "-o", trace, "--"] + cmd


def report_rows(sledtrace, trace):
    out = subprocess.run([sledtrace, "report", "--format=tsv", trace], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    rows = {}
    for line in out[1:]:  # tid function calls total_ns self_ns ...
        f = line.split("\t")
        if len(f) >= 5 and f[2].isdigit():
            rows[f[1]] = (int(f[2]), int(f[3]))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--build", default=os.path.join(ROOT, "build-rel"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--skip-sled", action="store_true", help="leave out --exit=sled (slow)")
    args = ap.parse_args()
    sledtrace = os.path.join(args.build, "sledtrace")
    modes = [m for m in MODES if not (args.skip_sled and m == "sled")]
    with tempfile.TemporaryDirectory(prefix="sledtrace-bench-") as tmp:
        progs = build_programs(args.build, tmp)
        trace = os.path.join(tmp, "t.pftrace")
        calls, times = {}, {}
        for name, cmd in progs.items():
            timed(record_argv(sledtrace, "auto", trace, cmd))
            calls[name] = sum(c for c, _ in report_rows(sledtrace, trace).values())
        for rep in range(args.reps):
            for name, cmd in progs.items():
                times.setdefault((name, "untraced"), []).append(timed(cmd))
                for m in modes:
                    times.setdefault((name, m), []).append(
                        timed(record_argv(sledtrace, m, trace, cmd), m == "uretprobe"))
            print("rep %d/%d done" % (rep + 1, args.reps), file=sys.stderr)
        print_table(progs, calls, times, modes)
        print_inferred(sledtrace, progs, trace)


def print_table(progs, calls, times, modes):
    for idx, what in ((0, "wall"), (1, "CPU (user+sys, sledtrace + target)")):
        print_metric(progs, calls, times, modes, idx, what)


def print_metric(progs, calls, times, modes, idx, what):
    cols = ["untraced"] + modes
    print("\n%s s: median (min-max) of the runs; ns/call over untraced; x uretprobe" % what)
    print("%-11s %8s " % ("program", "calls") + " ".join("%-29s" % c for c in cols))
    for name in progs:
        base = statistics.median(t[idx] for t in times[(name, "untraced")])
        rets = times[(name, "uretprobe")]
        ret = None if None in rets else statistics.median(t[idx] for t in rets)
        cells = []
        for c in cols:
            if None in times[(name, c)]:
                cells.append("%-29s" % "target aborts")
                continue
            v = [t[idx] for t in times[(name, c)]]
            med = statistics.median(v)
            ns = (med - base) * 1e9 / max(calls[name], 1)
            if c == "untraced":
                cell = "%.3f" % med
            else:
                cell = "%.3f (%.2f-%.2f) %.0fns %s" % (
                    med, min(v), max(v), ns, "%.2fx" % (med / ret) if ret else "")
            cells.append("%-29s" % cell)
        print("%-11s %8d " % (name, calls[name]) + " ".join(cells))


def print_inferred(sledtrace, progs, trace):
    """Inferred exit times (mixed) against exact ones (rewritten sleds):
    mean duration per call of each function, one run each."""
    print("\nmean ns per call: rewrite (exact exits) vs mixed (non-leaf exits inferred)")
    for name in ["nonleaf_cc", "nonleaf_rs", "exception", "cpp_shapes"]:
        if name not in progs:
            continue
        res = {}
        for m in ["auto", "mixed"]:
            timed(record_argv(sledtrace, m, trace, progs[name]))
            res[m] = report_rows(sledtrace, trace)
        for fn, (c, tot) in sorted(res["auto"].items(), key=lambda kv: -kv[1][0])[:6]:
            c2, tot2 = res["mixed"].get(fn, (0, 0))
            a, b = tot / max(c, 1), tot2 / max(c2, 1)
            print("  %-11s %-40.40s %8d calls  %10.0f  %10.0f  %+7.0f ns (%+.0f%%)"
                  % (name, fn, c, a, b, b - a, 100 * (b - a) / a if a else 0))


if __name__ == "__main__":
    main()
