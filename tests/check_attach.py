#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_attach.py: `sledtrace record -p` on processes that are already running.

Each target is tests/fixtures/attachee.c: it waits inside traced functions
until SIGUSR1, then calls functions until SIGUSR2 and prints how many calls
each thread made in that window.  No traced call happens outside the
window, so the trace of the whole attachment must hold exactly those calls.

Cases (--case):
  sigint, sigterm, sighup   stop sledtrace with that signal after the window
  duration                  --duration ends the recording by itself
  exit                      the target exits after the window; sledtrace
                            must notice and finish on its own
  killed                    SIGKILL sledtrace after the window: no trace
                            file, the target runs on
  two                       -p A,B: two processes at once, each exact
  race                      targets that exit while sledtrace attaches, at
                            varied moments: each run either records until
                            the exit (status 0, a trace) or fails with one
                            `sledtrace: ` line (status 1, no file)
In every case the target keeps running (except `exit`) and exits 0 on
SIGTERM, and after detach its executable mappings in memory
(/proc/PID/mem) equal the file byte for byte; while attached they must
differ (the breakpoints), which shows the comparison can fail.
"""
import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_counts  # noqa: E402

WINDOW_S = 2.0


class Target:
    def __init__(self, path, exit_after):
        self.path = os.path.realpath(path)
        argv = [path] + (["exit"] if exit_after else [])
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                     text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("READY"):
            raise check_counts.CheckFailed("fixture said %r, not READY" % line)
        self.pid = self.proc.pid

    def text_mappings(self):
        """(start, end, file offset) of the fixture's executable mappings."""
        out = []
        with open("/proc/%d/maps" % self.pid) as f:
            for line in f:
                fields = line.split()
                if len(fields) >= 6 and fields[5] == self.path and "x" in fields[1]:
                    start, end = (int(x, 16) for x in fields[0].split("-"))
                    out.append((start, end, int(fields[2], 16)))
        return out

    def code_equals_file(self):
        maps = self.text_mappings()
        if not maps:
            raise check_counts.CheckFailed("no executable mapping of %s in %d"
                                           % (self.path, self.pid))
        with open(self.path, "rb") as f:
            data = f.read()
        with open("/proc/%d/mem" % self.pid, "rb") as mem:
            for start, end, off in maps:
                want = data[off:off + end - start]
                mem.seek(start)
                if mem.read(len(want)) != want:
                    return False
        return True

    def read_counts(self):
        lines = []
        for line in self.proc.stdout:
            if line.strip() == "DONE":
                break
            lines.append(line)
        return check_counts.parse_counts("".join(lines), "attachee")[0]

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def finish(self, expect_running=True):
        if expect_running:
            if self.proc.poll() is not None:
                raise check_counts.CheckFailed("the target died: status %s" % self.proc.returncode)
            self.proc.send_signal(signal.SIGTERM)
        status = self.proc.wait(timeout=30)
        if status != 0:
            raise check_counts.CheckFailed("the target exited %d, expected 0" % status)


def wait_attached(rec):
    """Reads sledtrace's stderr up to its 'attached' line."""
    lines = []
    while True:
        line = rec.stderr.readline()
        if not line:
            raise check_counts.CheckFailed("sledtrace ended before attaching: %s" % "".join(lines))
        lines.append(line)
        if " attached to " in line:
            return lines


def run_case(args, tmp, targets):
    case = args.case
    trace = os.path.join(tmp, "t.pftrace")
    targets.append(Target(args.fixture, case == "exit"))
    if case == "two":
        targets.append(Target(args.fixture, False))
    argv = [args.sledtrace, "record", "-o", trace, "-p", ",".join(str(t.pid) for t in targets)]
    if args.exit_mode:
        argv.append("--exit=" + args.exit_mode)
    if case == "duration":
        argv.append("--duration=%gs" % (WINDOW_S + 3))
    rec = subprocess.Popen(argv, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    problems = []
    try:
        wait_attached(rec)
        if all(t.code_equals_file() for t in targets):
            problems.append("while attached, the target's code equals the file: "
                            "the memory check cannot see breakpoints")
        expected = {}
        for t in targets:
            t.proc.send_signal(signal.SIGUSR1)
        time.sleep(WINDOW_S)
        for t in targets:
            t.proc.send_signal(signal.SIGUSR2)
        for t in targets:
            expected.update(t.read_counts())
        stop = {"sigint": signal.SIGINT, "sigterm": signal.SIGTERM, "sighup": signal.SIGHUP,
                "two": signal.SIGTERM, "killed": signal.SIGKILL}.get(case)
        if stop:
            rec.send_signal(stop)
        err = rec.communicate(timeout=60)[1]
    finally:
        if rec.poll() is None:
            rec.kill()
            rec.wait()
    if case == "killed":
        if os.path.exists(trace):
            problems.append("a trace appeared although sledtrace was killed")
    elif rec.returncode != 0:
        problems.append("sledtrace exited %d: %s" % (rec.returncode, err))
    for t in targets:
        if case != "exit" and not t.code_equals_file():
            problems.append("after detach, the code of %d differs from %s" % (t.pid, t.path))
        t.finish(expect_running=case != "exit")
    if case != "killed" and not problems:
        rows, _ = check_counts.get_report(args.sledtrace, trace, 60)
        problems += check_counts.compare_counts(expected, rows)
        if not expected:
            problems.append("the fixture made no calls in the window")
        # Each thread returns from the session it was in when sledtrace
        # attached: under exit sleds that is an exit without an entry,
        # counted as unmatched and drawn as nothing.
        stats, _ = check_counts.get_stats(args.sledtrace, trace, 60)
        # Inferred exits need a later event: the window's last calls stay
        # open under --exit=infer and are closed (counted) at the end.
        want = {"unmatched_exits": 2 * len(targets) if args.exit_mode == "sled" else 0,
                "ringbuf_drops": 0}
        if args.exit_mode != "infer":
            want["unfinished"] = 0
        for name, n in want.items():
            if stats.get(name) != n:
                problems.append("stats %s=%s, expected %d" % (name, stats.get(name), n))
        print("%d (thread, function) counts compared" % len(expected))
    return problems


def run_race(args, tmp, targets):
    """Twenty attachments to a fixture that is exiting at varied moments."""
    problems, outcomes = [], {0: 0, 1: 0}
    for i in range(20):
        trace = os.path.join(tmp, "r%d.pftrace" % i)
        t = Target(args.fixture, True)
        targets.append(t)
        rec = subprocess.Popen([args.sledtrace, "record", "-q", "-o", trace, "-p", str(t.pid)],
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        time.sleep(0.02 * i)
        t.proc.send_signal(signal.SIGUSR1)
        t.proc.send_signal(signal.SIGUSR2)
        err = rec.communicate(timeout=60)[1]
        t.read_counts()
        t.finish(expect_running=False)
        lines = err.splitlines()
        if rec.returncode == 0 and not err and os.path.exists(trace):
            outcomes[0] += 1
        elif (rec.returncode == 1 and len(lines) == 1 and lines[0].startswith("sledtrace: -p ")
              and not os.path.exists(trace)):
            outcomes[1] += 1
        else:
            problems.append("run %d: status %d, trace %s, stderr %r"
                            % (i, rec.returncode, os.path.exists(trace), err))
    print("recorded until exit: %d, refused with one line: %d" % (outcomes[0], outcomes[1]))
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--case", required=True,
                    choices=["sigint", "sigterm", "sighup", "duration", "exit", "killed", "two",
                             "race"])
    ap.add_argument("--exit", dest="exit_mode", default=None)
    ap.add_argument("fixture")
    args = ap.parse_args()
    targets = []
    with tempfile.TemporaryDirectory() as tmp:
        try:
            run = run_race if args.case == "race" else run_case
            problems = run(args, tmp, targets)
        except check_counts.CheckFailed as e:
            problems = [str(e)]
        finally:
            for t in targets:
                t.kill()
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
