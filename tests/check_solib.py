#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_solib.py: rewritten sleds for the objects a launched command's tree
maps after it started (record/hold/copies.h): each object found at a hold gets a
rewritten copy bound over its path in the command's mount namespace, so the
processes that map it later run nop5 sleds with exact exits.

Cases (--case):
  later    sh -c 'F; F; F' for a fixture F: the first process maps the
           original (probed with mixed exits), the two later ones the copy.
           Counts exact per thread; `record -v` says the copy of F is bound;
           the tree's inferred exits equal those of one process of F under
           --exit=mixed plus two under --exit=rewrite (F must infer more
           under mixed: recursion deeper than the uretprobe cap, non-leaf
           C++/Rust functions; exceptions and panics unwind in both).
  dlopen   sh -c 'M B; M B wait' for the shared-library fixture: while the
           second process waits (before its dlopen), its maps show M and
           libsl_a.so on the copies' tmpfs inodes, its mountinfo shows them
           bound, and no process of our namespace sees them; then it is
           released, dlopens B (bound after the first process mapped it),
           and every count is exact.
  linked   M B wait run directly: already the first process maps the
           copies of M and of libsl_a.so, which M links (resolved before
           the launch), and counts are exact.
  nonop5   sh -c 'F; F' with SLEDTRACE_NO_NOP5=1 (record runs as on a kernel
           without optimized nop5 uprobes; seccomp cannot hide the `uprobe`
           system call, the kernel lets it pass every filter): `record -v`
           says so, nothing is rewritten or
           bound, counts are exact and both processes infer exactly as one
           --exit=mixed run of F does, twice.  (`later` checks that -v
           says this kernel has the optimization.)
  cxx      M (solib_cxx_main) and its library L (libsl_cxx.so), in which
           C++ exceptions unwind through traced frames: run directly and
           as the second process of sh -c 'M; M'; -v says L's copy is
           bound (before the launch), the status is 0 and the counts are
           exact, so exceptions unwind through the rewritten copies; run
           directly, it infers fewer exits than under --exit=mixed (which
           infers those of non-leaf functions that returned normally).
  sigint, sigkill
           as dlopen, but at the wait sledtrace and the tree get SIGINT
           (as from a terminal), or sledtrace alone SIGKILL; then the
           target is released.  After the tree is gone no process has the
           copies mounted, none is left in the tree's namespace, none holds
           a copy; the output directory has only the trace (none after
           SIGKILL); after SIGKILL the tree's output is as untraced.
Usage: check_solib.py --sledtrace PATH [--record-arg=ARG]... --case later -- FIXTURE
       check_solib.py --sledtrace PATH --case nonop5 -- FIXTURE
       check_solib.py --sledtrace PATH --case cxx -- MAIN LIB
       check_solib.py --sledtrace PATH --case dlopen|linked|sigint|sigkill -- MAIN LIBSL_B
"""
import argparse
import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_counts as cc  # noqa: E402
from checklib import verdict  # noqa: E402

CheckFailed = cc.CheckFailed
PR_SET_CHILD_SUBREAPER = 36
BOUND = "rewritten copy bound in the command's namespace"
FAST = "sledtrace: this kernel runs uprobes on 5-byte nops as calls"
SLOW = "sledtrace: this kernel does not run uprobes on 5-byte nops as calls"


def record(args, tmp, cmd, extra=()):
    trace = os.path.join(tmp, "t.pftrace")
    argv = ([args.sledtrace, "record", "-v", "-o", trace] + args.record_arg + list(extra)
            + ["--"] + cmd)
    print("running: " + " ".join(argv))
    return argv, trace


def check_counts(args, trace, out, ref_out):
    counts, norm = cc.parse_counts(out, "traced tree")
    ref_counts, ref_norm = cc.parse_counts(ref_out, "untraced tree")
    if norm != ref_norm:
        raise CheckFailed("traced stdout differs from untraced:\n%s\n---\n%s"
                          % ("\n".join(ref_norm), "\n".join(norm)))
    rows, report = cc.get_report(args.sledtrace, trace, 60)
    problems = cc.compare_counts(counts, rows)
    if problems:
        raise CheckFailed("call counts differ:\n" + "\n".join(problems) + "\n" + report)
    print("%d (tid, function) counts match exactly" % len(counts))


def bound_lines(err, path):
    return [l for l in err.splitlines() if l.startswith("sledtrace: %s: " % path) and BOUND in l]


def inferred_alone(args, tmp, fx, ref_status, mode):
    """Exits inferred by one process of fx under --exit=mode."""
    one = os.path.join(tmp, "one.pftrace")
    status, _, err = cc.run([args.sledtrace, "record", "-q", "--exit=" + mode, "-o", one]
                            + args.record_arg + ["--", fx], 120,
                            "sledtrace record --exit=" + mode)
    if status != ref_status:
        raise CheckFailed("one %s run exited %d: %s" % (mode, status, err))
    n = cc.get_stats(args.sledtrace, one, 60)[0]["inferred_exits"]
    os.unlink(one)
    return n


def mixed_inferred(args, tmp, fx, ref_status):
    """Exits inferred by one process of fx under --exit=mixed (> 0)."""
    single = inferred_alone(args, tmp, fx, ref_status, "mixed")
    if single == 0:
        raise CheckFailed("the fixture infers no exits under mixed: this case cannot fail")
    return single


def case_later(args, tmp):
    fx = args.files[0]
    runs = 3 if args.case == "later" else 2
    sh = "; ".join([fx] * runs)
    ref_status, ref_out, _ = cc.run(["sh", "-c", sh], 120, "untraced tree")
    single = mixed_inferred(args, tmp, fx, ref_status)
    argv, trace = record(args, tmp, ["sh", "-c", sh])
    env = dict(os.environ, SLEDTRACE_NO_NOP5="1") if args.case == "nonop5" else None
    status, out, err = cc.run(argv, 300, "sledtrace record", env=env)
    print("--- record stderr ---\n" + err.rstrip())
    if status != ref_status:
        raise CheckFailed("traced tree exited %d, untraced %d" % (status, ref_status))
    check_counts(args, trace, out, ref_out)
    tree = cc.get_stats(args.sledtrace, trace, 60)[0]["inferred_exits"]
    # What an unwinding exception or panic ends is inferred in every mode.
    rewritten = inferred_alone(args, tmp, fx, ref_status, "rewrite")
    print("inferred exits: tree of %d processes %d, one process under mixed %d, "
          "under rewrite %d" % (runs, tree, single, rewritten))
    if rewritten >= single:
        raise CheckFailed("the fixture infers as much under rewrite as under mixed: "
                          "this case cannot fail")
    if args.case == "nonop5":
        if SLOW not in err or BOUND in err or "rewritten sleds" in err:
            raise CheckFailed("without the uprobe system call auto must not rewrite, and say so")
        if tree != runs * single:
            raise CheckFailed("the processes did not all run with mixed exits")
        return
    if FAST not in err:
        raise CheckFailed("record -v does not say this kernel runs nop5 uprobes as calls")
    if len(bound_lines(err, fx)) != 1:
        raise CheckFailed("record -v does not say once that the copy of %s is bound" % fx)
    if tree != single + (runs - 1) * rewritten:
        raise CheckFailed("the later processes did not all run the copy's exact exits")


def case_cxx(args, tmp):
    main, lib = args.files
    for cmd in ([main], ["sh", "-c", "%s; %s" % (main, main)]):
        ref_status, ref_out, _ = cc.run(cmd, 120, "untraced run")
        argv, trace = record(args, tmp, cmd)
        status, out, err = cc.run(argv, 120, "sledtrace record")
        print("--- record stderr ---\n" + err.rstrip())
        if status != ref_status or status != 0:
            raise CheckFailed("traced run exited %d, untraced %d" % (status, ref_status))
        check_counts(args, trace, out, ref_out)
        if len(bound_lines(err, lib)) != 1:
            raise CheckFailed("record -v does not say once that the copy of %s is bound" % lib)
        if cmd == [main]:
            # Rewritten, only frames an exception unwound end inferred;
            # mixed also infers the non-leaf functions that returned.
            got = cc.get_stats(args.sledtrace, trace, 60)[0]["inferred_exits"]
            mixed = mixed_inferred(args, tmp, main, 0)
            print("inferred exits: auto %d, mixed %d" % (got, mixed))
            if got >= mixed:
                raise CheckFailed("auto inferred as many exits as mixed: no rewritten sleds")
        os.unlink(trace)


def mounts_of(pid, paths):
    try:
        with open("/proc/%s/mountinfo" % pid) as f:
            return [l.split() for l in f if l.split()[4] in paths]
    except OSError:
        return []


def ns_of(pid):
    try:
        return os.readlink("/proc/%s/ns/mnt" % pid)
    except OSError:
        return None


def all_pids():
    return [p for p in os.listdir("/proc") if p.isdigit()]


def parent_of(pid):
    try:
        with open("/proc/%s/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[1]
    except (OSError, IndexError):
        return None


def waiting_main(main, root):
    """The process of root's tree that runs main (there is one at a time)."""
    for pid in all_pids():
        try:
            if os.readlink("/proc/%s/exe" % pid) != main:
                continue
        except OSError:
            continue
        up = pid
        while up not in (None, "0", "1") and up != str(root):
            up = parent_of(up)
        if up == str(root):
            return pid
    raise CheckFailed("no process of the tree runs %s" % main)


def check_maps(pid, paths):
    """Each path is mapped from the inode bound over it in pid's namespace,
    a tmpfs file (device major 0), not from the original file."""
    maps = {}
    with open("/proc/%s/maps" % pid) as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) == 6:
                maps[parts[5].strip()] = (parts[3], int(parts[4]))
    for p in paths:
        if p not in maps:
            raise CheckFailed("process %s does not map %s" % (pid, p))
        dev, ino = maps[p]
        copy = os.stat("/proc/%s/root%s" % (pid, p))
        if not dev.startswith("00:") or ino != copy.st_ino or ino == os.stat(p).st_ino:
            raise CheckFailed("process %s maps %s from %s inode %d, not the copy (inode %d)"
                              % (pid, p, dev, ino, copy.st_ino))
    print("process %s maps the copies of %s" % (pid, ", ".join(paths)))


def drive(argv, cwd_env=None):
    """Starts argv, waits for the second fixture's WAITING, returns (proc, pid)."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    lines = []
    while True:
        line = proc.stdout.readline().decode()
        if not line:
            raise CheckFailed("no WAITING from the fixture: %s" % proc.stderr.read().decode())
        if line.strip() == "WAITING":
            break
        lines.append(line)
    return proc, lines


def finish(proc, lines, pid):
    try:
        os.kill(int(pid), signal.SIGUSR1)
    except ProcessLookupError:
        pass  # ended by the SIGINT
    out, err = proc.communicate(timeout=120)
    return cc.status_of(proc.returncode), "".join(lines) + out.decode(), err.decode()


def case_dlopen(args, tmp):
    main, lib = args.files
    lib_a = os.path.join(os.path.dirname(main), "libsl_a.so")
    sh = "%s %s; %s %s wait" % (main, lib, main, lib)
    cmd = [main, lib, "wait"] if args.case == "linked" else ["sh", "-c", sh]
    proc, lines = drive(cmd)
    pid = waiting_main(main, proc.pid)
    ref_status, ref_out, _ = finish(proc, lines, pid)
    if args.case != "dlopen":
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
            raise CheckFailed("prctl(PR_SET_CHILD_SUBREAPER) failed")
    argv, trace = record(args, tmp, cmd)
    proc, lines = drive(argv)
    try:
        check_tree(args, proc, lines, main, lib, lib_a, ref_status, ref_out, trace, tmp)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass


def check_tree(args, proc, lines, main, lib, lib_a, ref_status, ref_out, trace, tmp):
    pid = waiting_main(main, proc.pid)
    check_maps(pid, [main, lib_a])
    paths = (main, lib_a, lib)
    ours, theirs = ns_of("self"), ns_of(pid)
    # linked: libsl_b.so is bound once the process has dlopened it
    if len(mounts_of(pid, paths)) != 2 + (args.case != "linked") or theirs == ours:
        raise CheckFailed("the target's namespace lacks the copies: %s" % mounts_of(pid, paths))
    outside = [p for p in all_pids() if ns_of(p) == ours and mounts_of(p, paths)]
    if outside:
        raise CheckFailed("the copies are visible outside the tree: pids %s" % outside)
    if args.case == "sigint":
        os.killpg(proc.pid, signal.SIGINT)
    elif args.case == "sigkill":
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    status, out, err = finish(proc, lines, pid)
    print("--- record stderr ---\n" + err.rstrip())
    if args.case == "sigkill" and cc.parse_counts(out, "t")[1] != cc.parse_counts(ref_out, "u")[1]:
        raise CheckFailed("after SIGKILL of sledtrace the tree printed:\n%s\nuntraced:\n%s"
                          % (out, ref_out))
    if args.case in ("dlopen", "linked"):
        if status != ref_status:
            raise CheckFailed("traced tree exited %d, untraced %d" % (status, ref_status))
        check_counts(args, trace, out, ref_out)
        # linked: the executable's own copy is made at the launch
        for p in paths[args.case == "linked":]:
            if len(bound_lines(err, p)) != 1:
                raise CheckFailed("record -v does not say once that the copy of %s is bound" % p)
    deadline = time.monotonic() + 60
    while any(ns_of(p) == theirs for p in all_pids()) and time.monotonic() < deadline:
        try:
            os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            pass
        time.sleep(0.05)
    left = [p for p in all_pids() if mounts_of(p, paths)]
    if left:
        raise CheckFailed("the copies are still mounted in pids %s" % left)
    if any(ns_of(p) == theirs for p in all_pids()):
        raise CheckFailed("a process still lives in the tree's mount namespace")
    want = {"t.pftrace"} if args.case != "sigkill" else set()
    if set(os.listdir(tmp)) != want:
        raise CheckFailed("output directory holds %s, expected %s"
                          % (sorted(os.listdir(tmp)), sorted(want)))
    print("nothing left mounted or on disk after %s" % args.case)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--case", required=True,
                    choices=["later", "nonop5", "cxx", "dlopen", "linked", "sigint", "sigkill"])
    ap.add_argument("--record-arg", action="append", default=[], metavar="ARG",
                    help="pass ARG on to sledtrace record (write --record-arg=-N...)")
    ap.add_argument("files", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    files = args.files[1:] if args.files[:1] == ["--"] else args.files
    args.files = [os.path.abspath(f) for f in files]
    args.sledtrace = os.path.abspath(args.sledtrace)
    cases = {"later": case_later, "nonop5": case_later, "cxx": case_cxx}
    with tempfile.TemporaryDirectory(prefix="sledtrace-solib-") as tmp:
        return verdict(cases.get(args.case, case_dlopen), args, tmp)


if __name__ == "__main__":
    sys.exit(main())
