#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_errors.py: sledtrace's behaviour on bad input.

For every command given a missing file, a file that is not ELF, an
ELF without XRay sleds, a command that is not on PATH, bad option values,
and for `record` run without the privilege to load BPF, sledtrace must
exit 2 for a usage error and 1 for any other failure, with exactly one
line on stderr starting `sledtrace: `,
print nothing on stdout (nothing was run, nothing listed) and leave no
output file behind.  Every case runs in a fresh empty directory, which
must still be empty (bar the inputs put there) afterwards.

Usage: check_errors.py --sledtrace PATH --nosleds BIN --not-elf FILE --xray BIN
                       [--case NAME]...
With no --case, runs every case.  Python 3 standard library only.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

MISSING = "does-not-exist"
NOT_FOUND = "sledtrace-test-no-such-command"


# Runs sledtrace as user nobody: no CAP_BPF, no CAP_PERFMON.
UNPRIVILEGED = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


# Usage errors exit 2, runtime failures 1 (every command, every case).
def expected_status(name):
    usage = ("-bad-", "-usage-")
    return 2 if any(u in name for u in usage) else 1


# Processes started for the -p cases, killed and reaped at the end.
helpers = []


def spawn(argv, ready):
    """Starts argv and waits until ready(pid) holds; returns the pid."""
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    helpers.append(p)
    for _ in range(500):
        if ready(p.pid):
            return p.pid
        time.sleep(0.01)
    sys.exit("helper %s never got ready" % argv)


def proc_field(pid, what):
    try:
        if what == "exe":
            return os.readlink("/proc/%d/exe" % pid)
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def free_pid():
    with open("/proc/sys/kernel/pid_max") as f:
        pid = int(f.read()) - 1
    while os.path.exists("/proc/%d" % pid):
        pid -= 1
    return pid


def pid_cases(nosleds, xray):
    prec = lambda *o: ["record", "--quiet", "-o", "out.pftrace"] + list(o)
    sleep = shutil.which("sleep")
    return {
        "record-pid-missing": lambda d: prec("-p", str(free_pid())),
        "record-pid-kernel-thread": lambda d: prec("-p", "2"),
        "record-pid-no-sleds": lambda d: prec("-p", str(spawn(
            [sleep, "60"], lambda pid: proc_field(pid, "exe") == os.path.realpath(sleep)))),
        # Exited but not yet reaped: the pid exists, its process is gone.
        "record-pid-exited": lambda d: prec("-p", str(spawn(
            [nosleds], lambda pid: proc_field(pid, "stat") == "Z"))),
        "record-pid-bad-value": lambda d: prec("-p", "12x"),
        "record-pid-usage-and-command": lambda d: prec("-p", "1", "--", xray),
        "record-usage-duration-without-pid": lambda d: prec("--duration=1s", "--", xray),
    }


def cases(nosleds, xray):
    """name -> (argv after `sledtrace`, as a function of the work dir)."""
    rec = lambda *cmd: ["record", "--quiet", "-o", "out.pftrace", "--"] + list(cmd)
    opt = lambda *o: ["record", "--quiet", "-o", "out.pftrace"] + list(o) + ["--", xray]
    return {
        "record-bad-exit": lambda d: opt("--exit=bogus"),
        "record-bad-ring-size": lambda d: opt("--ring-size=3M"),
        "record-bad-min-duration": lambda d: opt("--min-duration=2parsecs"),
        "record-bad-regex": lambda d: opt("-F", "a(b"),
        "record-empty-filter": lambda d: opt("-F", "^no_such_function$"),
        "record-no-privilege": lambda d: rec(os.path.join(d, "xray")),
        "record-missing-file": lambda d: rec(os.path.join(d, MISSING)),
        "record-not-elf": lambda d: rec(os.path.join(d, "not_elf")),
        "record-no-sleds": lambda d: rec(nosleds),
        "record-command-not-found": lambda d: rec(NOT_FOUND),
        "list-missing-file": lambda d: ["list", os.path.join(d, MISSING)],
        "list-not-elf": lambda d: ["list", os.path.join(d, "not_elf")],
        "list-no-sleds": lambda d: ["list", nosleds],
        "list-command-not-found": lambda d: ["list", NOT_FOUND],
        # The command line itself: one parser, one line, exit 2.
        "record-usage-bare-duration": lambda d: opt("--min-duration=5"),
        # --budget: a share in (0, 100%], not without events, never empty
        "record-bad-budget": lambda d: opt("--budget=150%"),
        "record-bad-budget-zero": lambda d: opt("--budget=0%"),
        "record-usage-budget-no-events": lambda d: opt("--budget=5%", "--no-events"),
        "record-usage-budget-from-alone": lambda d: opt("--budget-from=" + MISSING),
        "record-usage-budget-probes-nothing": lambda d: opt("--budget=0.000001%"),
        "record-budget-from-missing": lambda d: opt("--budget=5%",
                                                    "--budget-from=" + MISSING),
        "record-usage-all-without-no-xray": lambda d: opt("--all"),
        "record-usage-allow-empty-alone": lambda d: opt("--allow-empty"),
        "record-usage-quiet-verbose": lambda d: opt("-v"),
        "record-usage-no-command": lambda d: ["record", "-o", "out.pftrace"],
        "record-bad-option": lambda d: opt("--bogus"),
        "list-usage-two-objects": lambda d: ["list", xray, xray],
        "list-bad-option-value-missing": lambda d: ["list", xray, "-F"],
        "report-bad-option": lambda d: ["report", "-n", "3", "T"],
        "report-bad-format": lambda d: ["report", "--format=xml", "T"],
        "report-usage-no-trace": lambda d: ["report"],
        "report-missing-file": lambda d: ["report", os.path.join(d, MISSING)],
        "convert-bad-to": lambda d: ["convert", "--to=bogus", "T"],
        "convert-missing-file": lambda d: ["convert", os.path.join(d, MISSING), "-o", "x"],
        "filter-usage-no-output": lambda d: ["filter", xray, "-F", "leaf"],
        "filter-bad-old-function-option": lambda d: ["filter", xray, "--function", "x",
                                                     "-o", "f"],
        "main-usage-no-command": lambda d: [],
        "main-usage-unknown-command": lambda d: ["bogus"],
        "main-usage-help-unknown": lambda d: ["help", "bogus"],
        **pid_cases(nosleds, xray),
    }


def run_case(sledtrace, not_elf, xray, make_argv, timeout, unprivileged, status):
    problems = []
    with tempfile.TemporaryDirectory(prefix="sledtrace-err-") as d:
        # An executable text file: exec would fail with ENOEXEC.
        shutil.copyfile(not_elf, os.path.join(d, "not_elf"))
        os.chmod(os.path.join(d, "not_elf"), 0o755)
        if unprivileged:
            # Everything user nobody needs, where it can read and write.
            os.chmod(d, 0o777)
            for src, name in ((sledtrace, "sledtrace"), (xray, "xray")):
                shutil.copyfile(src, os.path.join(d, name))
                os.chmod(os.path.join(d, name), 0o755)
            sledtrace = os.path.join(d, "sledtrace")
        before = set(os.listdir(d))
        argv = (UNPRIVILEGED if unprivileged else []) + [sledtrace] + make_argv(d)
        print("running: " + " ".join(argv))
        try:
            p = subprocess.run(argv, cwd=d, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, timeout=timeout)
        except subprocess.TimeoutExpired:
            return ["timed out after %ss" % timeout]
        out = p.stdout.decode(errors="replace")
        err = p.stderr.decode(errors="replace")
        if p.returncode < 0:
            problems.append("killed by signal %d" % -p.returncode)
        elif p.returncode != status:
            problems.append("exit status %d, expected %d" % (p.returncode, status))
        lines = err.splitlines()
        if len(lines) != 1 or not err.endswith("\n"):
            problems.append("stderr has %d lines, expected exactly one (newline-terminated)"
                            % len(lines))
        if not lines or not lines[0].startswith("sledtrace: "):
            problems.append("stderr does not start with 'sledtrace: '")
        if out:
            problems.append("stdout is not empty")
        left = sorted(set(os.listdir(d)) - before)
        if left:
            problems.append("files left behind: " + ", ".join(left))
        if problems:
            problems.append("--- stderr ---\n" + err.rstrip())
            problems.append("--- stdout ---\n" + out.rstrip())
        else:
            print("ok: exit %d, stderr: %s" % (p.returncode, lines[0]))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--nosleds", required=True, help="an ELF executable without XRay")
    ap.add_argument("--not-elf", required=True, help="a text file")
    ap.add_argument("--xray", required=True, help="an XRay-instrumented executable")
    ap.add_argument("--case", action="append", help="run only this case (repeatable)")
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    table = cases(os.path.abspath(args.nosleds), os.path.abspath(args.xray))
    names = args.case or list(table)
    failed = 0
    for name in names:
        if name not in table:
            ap.error("unknown case %r (known: %s)" % (name, ", ".join(table)))
        problems = run_case(os.path.abspath(args.sledtrace), os.path.abspath(args.not_elf),
                            os.path.abspath(args.xray), table[name], args.timeout,
                            name.endswith("no-privilege"), expected_status(name))
        if problems:
            failed += 1
            print("FAIL %s:\n  %s" % (name, "\n  ".join(problems)))
        else:
            print("PASS %s" % name)
    for p in helpers:
        p.kill()
        p.wait()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
