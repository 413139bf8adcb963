#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_rewrite.py: the rewritten-sled copy (--exit=auto/rewrite) is
refused when a sled holds unexpected bytes, and leaves nothing behind.

Cases (--case):
  corrupt         a copy of the fixture with one entry sled's nop changed
                  (still a nop: the program runs the same): auto prints one
                  line saying which sled and falls back; counts stay exact
                  (tests/check_counts.py with --exit=auto).
  refuse          the same copy under --exit=rewrite: exit 1, exactly one
                  `sledtrace: ` line naming the sled, no trace file.
  nomount         sledtrace without CAP_SYS_ADMIN (setpriv; uprobe_multi
                  still attaches) cannot make the namespace: auto prints one
                  line saying so and falls back to mixed, and a C++
                  exception through traced frames keeps exact counts.
  end, sigint, sigkill
                  a long run of the loop fixture under --exit=rewrite;
                  while it runs, the target's mountinfo shows the copy
                  bound over the fixture's path and no other process's
                  does; after a normal end, a SIGINT to sledtrace and the
                  target (as a terminal sends it) or a SIGKILL of
                  sledtrace alone, once the target is gone: no mount of
                  the path in any process, no process holding the copy,
                  no new file next to the fixture, and in the output
                  directory only the trace (none after SIGKILL).
Usage: check_rewrite.py --sledtrace PATH --case CASE -- FIXTURE
"""
import argparse
import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from checklib import CheckFailed, verdict

PR_SET_CHILD_SUBREAPER = 36
HERE = os.path.dirname(os.path.abspath(__file__))


def load_segments(path):
    out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True,
                         check=True).stdout
    segs = []
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
    return segs


def first_function_offset(sledtrace, path):
    """File offset of the first traced function (its entry sled)."""
    out = subprocess.run([sledtrace, "list", path], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        m = re.match(r"\s*\d+\s+0x([0-9a-f]+)\s", line)
        if m:
            addr = int(m.group(1), 16)
            for off, vaddr, filesz in load_segments(path):
                if vaddr <= addr < vaddr + filesz:
                    return addr, addr - vaddr + off
    raise CheckFailed("no function listed for " + path)


ENTRY_SLED = bytes.fromhex("eb09660f1f840000020000")


def corrupt_copy(sledtrace, fixture, tmp):
    """A copy whose first entry sled reads `jmp +9; nopw 0x300(...)`."""
    copy = os.path.join(tmp, os.path.basename(fixture))
    shutil.copy2(fixture, copy)
    addr, off = first_function_offset(sledtrace, copy)
    with open(copy, "r+b") as f:
        f.seek(off)
        if f.read(11) != ENTRY_SLED:
            raise CheckFailed("no XRay entry sled at 0x%x of %s" % (addr, copy))
        f.seek(off + 8)
        f.write(b"\x03")
    return copy, addr


def case_corrupt(args, tmp):
    copy, addr = corrupt_copy(args.sledtrace, args.fixture, tmp)
    trace = os.path.join(tmp, "t.pftrace")
    p = subprocess.run([args.sledtrace, "record", "-o", trace, "--", copy], capture_output=True,
                       text=True, timeout=120)
    why = [l for l in p.stderr.splitlines() if "sleds not rewritten" in l]
    want = "entry sled at 0x%x reads eb 09 66 0f 1f 84 00 00 03 00 00" % addr
    if len(why) != 1 or want not in why[0]:
        raise CheckFailed("expected one fallback line with %r, stderr:\n%s" % (want, p.stderr))
    print("fallback line: " + why[0])
    if "exits: rewritten" in p.stderr:
        raise CheckFailed("the corrupted copy was rewritten anyway:\n" + p.stderr)
    r = subprocess.run([sys.executable, os.path.join(HERE, "check_counts.py"), "--sledtrace",
                        args.sledtrace, "--exit", "auto", "--timeout", "100", "--", copy],
                       timeout=300)
    if r.returncode:
        raise CheckFailed("counts under the fallback are not exact")


def case_refuse(args, tmp):
    copy, addr = corrupt_copy(args.sledtrace, args.fixture, tmp)
    trace = os.path.join(tmp, "t.pftrace")
    p = subprocess.run([args.sledtrace, "record", "--exit=rewrite", "-o", trace, "--", copy],
                       capture_output=True, text=True, timeout=120)
    lines = p.stderr.splitlines()
    if p.returncode != 1 or len(lines) != 1 or not lines[0].startswith("sledtrace: ") or \
            ("entry sled at 0x%x" % addr) not in lines[0]:
        raise CheckFailed("expected exit 1 and one line naming the sled, got %d:\n%s"
                          % (p.returncode, p.stderr))
    if p.stdout:
        raise CheckFailed("the command ran although the rewrite was refused:\n" + p.stdout)
    if os.path.exists(trace):
        raise CheckFailed("a trace was written although the run failed")
    print("refused: " + lines[0])


def case_nomount(args, tmp):
    wrapper = os.path.join(tmp, "sledtrace-no-sys-admin")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\nexec setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin "
                "'%s' \"$@\"\n" % args.sledtrace)
    os.chmod(wrapper, 0o755)
    trace = os.path.join(tmp, "t.pftrace")
    p = subprocess.run([wrapper, "record", "-o", trace, "--", args.fixture],
                       capture_output=True, text=True, timeout=120)
    why = [l for l in p.stderr.splitlines() if "sleds not rewritten" in l]
    if p.returncode or len(why) != 1 or "cannot mount the copy" not in why[0] or \
            "exits: infer, uretprobe for" not in p.stderr:
        raise CheckFailed("expected one line about the mount and mixed exits, got %d:\n%s"
                          % (p.returncode, p.stderr))
    print("fallback line: " + why[0])
    r = subprocess.run([sys.executable, os.path.join(HERE, "check_counts.py"), "--sledtrace",
                        wrapper, "--exit", "auto", "--timeout", "100", "--", args.fixture],
                       timeout=300)
    if r.returncode:
        raise CheckFailed("counts under the fallback are not exact")


def mounts_of(pid, path):
    try:
        with open("/proc/%s/mountinfo" % pid) as f:
            return [l for l in f if l.split()[4] == path]
    except OSError:
        return []


def ns_of(pid):
    try:
        return os.readlink("/proc/%s/ns/mnt" % pid)
    except OSError:
        return None


def exe_of(pid):
    try:
        return os.readlink("/proc/%s/exe" % pid)
    except OSError:
        return None


def all_pids():
    return [p for p in os.listdir("/proc") if p.isdigit()]


def holders_of_copy():
    """Processes with a file open or mapped that is our copy."""
    found = []
    for pid in all_pids():
        try:
            fds = os.listdir("/proc/%s/fd" % pid)
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink("/proc/%s/fd/%s" % (pid, fd))
            except OSError:
                continue
            # the sealed memfd, or the tmpfs file sledtrace attaches to
            if "sledtrace-rewrite" in link or link == "/copy":
                found.append((pid, link))
    return found


def wait_orphans(deadline):
    status = None
    while time.monotonic() < deadline:
        try:
            pid, st = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return status
        if pid:
            status = os.waitstatus_to_exitcode(st)
            continue
        time.sleep(0.05)
    raise CheckFailed("the target did not finish in time")


def case_leftovers(args, tmp):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise CheckFailed("prctl(PR_SET_CHILD_SUBREAPER) failed")
    fixture = args.fixture
    before = set(os.listdir(os.path.dirname(fixture)))
    trace = os.path.join(tmp, "t.pftrace")
    rec = subprocess.Popen([args.sledtrace, "record", "-q", "--exit=rewrite", "-o", trace, "--",
                            fixture, "3000000"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, start_new_session=True)
    target = None
    deadline = time.monotonic() + 20
    while target is None and time.monotonic() < deadline:
        try:
            kids = open("/proc/%d/task/%d/children" % (rec.pid, rec.pid)).read().split()
        except OSError:
            kids = []
        # held children run sledtrace's image until released to exec;
        # sledtrace may have other children (its keeper)
        for kid in kids:
            if mounts_of(kid, fixture) and exe_of(kid) == fixture:
                target = kid
        time.sleep(0.05)
    if target is None:
        raise CheckFailed("no child of sledtrace with the copy mounted: %s"
                          % rec.stderr.read1().decode(errors="replace"))
    print("target %s runs the copy: %s" % (target, mounts_of(target, fixture)[0].strip()))
    # Other runs (tests in parallel) may have namespaces of their own:
    # what matters is that ours shows nothing.
    ours, theirs = ns_of("self"), ns_of(target)
    # Held open so that its number cannot be given to another run's new
    # namespace once the target's is gone (the kernel reuses them at once).
    theirs_fd = os.open("/proc/%s/ns/mnt" % target, os.O_RDONLY)
    outside = [p for p in all_pids() if ns_of(p) == ours and mounts_of(p, fixture)]
    if outside or theirs == ours:
        raise CheckFailed("the mount is visible outside the target: pids %s" % outside)
    time.sleep(0.3)  # well into the traced run
    if args.case == "sigint":
        os.killpg(rec.pid, signal.SIGINT)
    elif args.case == "sigkill":
        rec.send_signal(signal.SIGKILL)
    rec.wait(timeout=300)
    wait_orphans(time.monotonic() + 300)
    left = [p for p in all_pids() if ns_of(p) in (ours, theirs) and mounts_of(p, fixture)]
    if left:
        raise CheckFailed("the copy is still mounted in pids %s" % left)
    still = [p for p in all_pids() if ns_of(p) == theirs]
    os.close(theirs_fd)
    if still:
        raise CheckFailed("a process still lives in the target's mount namespace: %s" % still)
    held = holders_of_copy()
    if held:
        raise CheckFailed("processes still hold the copy: %s" % held)
    new = set(os.listdir(os.path.dirname(fixture))) - before
    if new:
        raise CheckFailed("files appeared next to the fixture: %s" % sorted(new))
    # ^C ends the command, and sledtrace finishes the trace of what ran.
    want_trace = args.case != "sigkill"
    extra = set(os.listdir(tmp)) - ({"t.pftrace"} if want_trace else set())
    if extra:
        raise CheckFailed("files left in the output directory: %s" % sorted(extra))
    if want_trace and not os.path.exists(trace):
        raise CheckFailed("no trace after a normal end: %s" % rec.stderr.read().decode())
    print("nothing left mounted, held or on disk after %s" % args.case)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--case", required=True,
                    choices=["corrupt", "refuse", "nomount", "end", "sigint", "sigkill"])
    ap.add_argument("fixture", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    fx = args.fixture[1:] if args.fixture[:1] == ["--"] else args.fixture
    args.fixture = os.path.abspath(fx[0])
    args.sledtrace = os.path.abspath(args.sledtrace)
    cases = {"corrupt": case_corrupt, "refuse": case_refuse, "nomount": case_nomount}
    with tempfile.TemporaryDirectory(prefix="sledtrace-rewrite-") as tmp:
        return verdict(cases.get(args.case, case_leftovers), args, tmp)


if __name__ == "__main__":
    sys.exit(main())
