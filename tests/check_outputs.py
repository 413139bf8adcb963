#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_outputs.py: what `-o PATH` of record, convert and filter does to PATH.

Run as root, in a fresh temporary directory, with device nodes made there by
mknod (never the system's own /dev nodes):
- a new and an existing regular file: written whole (a new inode, atomically);
- `-o -`: standard output;
- a null-like (1:3) device: nothing replaced, and record builds no trace but
  still reports the same event counts as a real recording;
- a full-like (1:7) device: one error line, exit 1, the node unharmed;
- a FIFO (read by a thread) and a listening unix socket: the output streams
  through them and they stay what they were; a FIFO whose reader leaves
  early makes record fail with one line while its command runs to the end;
- a symlink to a regular file: the target gets the output, the link stays;
  a symlink to a device is written through; a dangling symlink is refused;
- a directory, a missing directory, a block device and (as user nobody) a
  directory it cannot write: one `sledtrace: ` line, exit 1, nothing run,
  nothing created;
- record -o NAME.gz under the same rules, gzip from the first byte: an
  existing file replaced atomically, nothing else left in its directory, a
  symlink's target written, a FIFO streamed gzip'd, a full-like device one
  error line before the command runs.

Usage: check_outputs.py --sledtrace PATH --fixture CALLTREE --command CMD
Python 3 standard library only.
"""

import argparse
import gzip
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading

from checklib import CheckFailed

UNPRIVILEGED = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


class Ctx:
    def __init__(self, sledtrace, fixture, command, work):
        self.st, self.fixture, self.command, self.work = sledtrace, fixture, command, work
        self.trace = os.path.join(work, "input.pftrace")

    def argv(self, out, quiet=False):
        """The command under test writing to out."""
        if self.command == "record":
            return [self.st, "record"] + (["-q"] if quiet else []) + ["-o", out, "--",
                                                                     self.fixture]
        if self.command == "convert":
            return [self.st, "convert", "--weight=calls", self.trace, "-o", out]
        return [self.st, "filter", self.fixture, "-F", "^leaf", "-o", out]

    def run(self, out, prefix=(), env=None, stdout=subprocess.PIPE, quiet=False):
        argv = list(prefix) + self.argv(out, quiet)
        print("running: " + " ".join(argv))
        e = dict(os.environ, **(env or {}))
        p = subprocess.run(argv, cwd=self.work, stdin=subprocess.DEVNULL, stdout=stdout,
                           stderr=subprocess.PIPE, env=e, timeout=120)
        return p.returncode, p.stdout or b"", p.stderr.decode(errors="replace")

    def check_content(self, data, what):
        """data must be a complete output of the command."""
        if self.command == "record":
            p = subprocess.run([self.st, "report", "--format=tsv", "-"], input=data,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            text = p.stdout.decode(errors="replace")
            if p.returncode != 0 or "\tleaf_z" not in text:
                raise CheckFailed("%s: not a complete trace (report: %s)"
                                  % (what, p.stderr.decode(errors="replace").strip()))
        elif self.command == "convert":
            text = data.decode(errors="replace")
            if ";leaf_z 72\n" not in text:
                raise CheckFailed("%s: no '...;leaf_z 72' line in the folded output:\n%s"
                                  % (what, text[:500]))
        else:
            text = data.decode(errors="replace")
            if "# build-id: " not in text or "^leaf" not in text:
                raise CheckFailed("%s: not a filter file:\n%s" % (what, text))


def one_error_line(status, err, what):
    lines = err.splitlines()
    if status != 1:
        raise CheckFailed("%s: exit status %d, expected 1\n%s" % (what, status, err))
    if len(lines) != 1 or not lines[0].startswith("sledtrace: "):
        raise CheckFailed("%s: expected exactly one 'sledtrace: ' line on stderr, got:\n%s"
                          % (what, err))
    print("  ok: " + lines[0])


def nothing_ran(ctx, out, what):
    if ctx.command == "record" and b"COUNT " in out:
        raise CheckFailed("%s: the command ran" % what)
    if ctx.command == "filter" and b"wrote " in out:
        raise CheckFailed("%s: a filter was written" % what)


def summary(err):
    """record's summary line, up to its output part."""
    for line in err.splitlines():
        if " events, " in line and " functions hit, " in line:
            return line.split(" dropped, ")[0]
    raise CheckFailed("no summary line in:\n" + err)


def same_node(path, before, what):
    st = os.lstat(path)
    if (st.st_ino, st.st_mode, st.st_rdev) != (before.st_ino, before.st_mode, before.st_rdev):
        raise CheckFailed("%s: %s was replaced (mode %o -> %o)"
                          % (what, path, before.st_mode, st.st_mode))


def expect_ok(ctx, out, what, **kw):
    status, stdout, err = ctx.run(out, **kw)
    if status != 0:
        raise CheckFailed("%s: exit status %d\n%s" % (what, status, err))
    return stdout, err


def case_regular(ctx):
    new = os.path.join(ctx.work, "new.out")
    expect_ok(ctx, new, "new file")
    ctx.check_content(open(new, "rb").read(), "new file")
    old = os.path.join(ctx.work, "old.out")
    with open(old, "w") as f:
        f.write("old contents\n")
    ino = os.stat(old).st_ino
    expect_ok(ctx, old, "existing file")
    ctx.check_content(open(old, "rb").read(), "existing file")
    if os.stat(old).st_ino == ino:
        raise CheckFailed("existing file: rewritten in place, not replaced atomically")


def case_stdout(ctx):
    env = {"FIXTURE_STDERR": "1"} if ctx.command == "record" else None
    stdout, _ = expect_ok(ctx, "-", "-o -", env=env)
    ctx.check_content(stdout, "-o -")
    if os.path.exists(os.path.join(ctx.work, "-")):
        raise CheckFailed("-o - created a file named '-'")


def case_null(ctx):
    dev = os.path.join(ctx.work, "null-like")
    os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    before = os.lstat(dev)
    stdout, err = expect_ok(ctx, dev, "null-like device")
    same_node(dev, before, "null-like device")
    if ctx.command == "record":
        if "no trace built" not in err:
            raise CheckFailed("null-like device: record built a trace:\n" + err)
        ref = os.path.join(ctx.work, "ref.pftrace")
        _, ref_err = expect_ok(ctx, ref, "reference recording")
        if summary(err) != summary(ref_err):
            raise CheckFailed("null-like device: summary %r differs from a real recording's %r"
                              % (summary(err), summary(ref_err)))
        print("  same counts as a real recording: " + summary(err))


def case_full(ctx):
    dev = os.path.join(ctx.work, "full-like")
    os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    before = os.lstat(dev)
    status, stdout, err = ctx.run(dev)
    one_error_line(status, err, "full-like device")
    if "No space left" not in err:
        raise CheckFailed("full-like device: the error does not say why: " + err)
    nothing_ran(ctx, stdout, "full-like device")
    same_node(dev, before, "full-like device")


def read_all_into(chunks, fileobj):
    with fileobj:
        while True:
            b = fileobj.read(65536)
            if not b:
                return
            chunks.append(b)


def case_fifo(ctx):
    fifo = os.path.join(ctx.work, "fifo")
    os.mkfifo(fifo)
    before = os.lstat(fifo)
    chunks = []
    t = threading.Thread(target=lambda: read_all_into(chunks, open(fifo, "rb")))
    t.start()
    expect_ok(ctx, fifo, "FIFO")
    t.join(60)
    same_node(fifo, before, "FIFO")
    ctx.check_content(b"".join(chunks), "FIFO")


def case_fifo_closed(ctx):
    """record: a FIFO whose reader goes away mid-trace is one error line,
    and the traced command still runs to its end."""
    if ctx.command != "record":
        print("  (record only: the other commands die of SIGPIPE like any filter)")
        return
    fifo = os.path.join(ctx.work, "fifo")
    os.mkfifo(fifo)

    def read_a_little():
        with open(fifo, "rb") as f:
            f.read(10)
    t = threading.Thread(target=read_a_little)
    t.start()
    status, stdout, err = ctx.run(fifo, quiet=True)
    t.join(60)
    one_error_line(status, err, "FIFO closed by its reader")
    if "Broken pipe" not in err or b"COUNT " not in stdout:
        raise CheckFailed("FIFO closed by its reader: expected 'Broken pipe' and a "
                          "complete run of the command:\n%s" % err)


def case_socket(ctx):
    path = os.path.join(ctx.work, "sock")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    before = os.lstat(path)
    chunks = []

    def serve():
        conn, _ = srv.accept()
        read_all_into(chunks, conn.makefile("rb"))
        conn.close()
    t = threading.Thread(target=serve)
    t.start()
    expect_ok(ctx, path, "socket")
    t.join(60)
    srv.close()
    same_node(path, before, "socket")
    ctx.check_content(b"".join(chunks), "socket")


def case_symlinks(ctx):
    target = os.path.join(ctx.work, "target.out")
    with open(target, "w") as f:
        f.write("old\n")
    link = os.path.join(ctx.work, "link.out")
    os.symlink("target.out", link)
    expect_ok(ctx, link, "symlink to a file")
    if not os.path.islink(link) or os.readlink(link) != "target.out":
        raise CheckFailed("symlink to a file: the link was replaced")
    ctx.check_content(open(target, "rb").read(), "symlink's target")
    dev = os.path.join(ctx.work, "null-dev")
    os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    before = os.lstat(dev)
    devlink = os.path.join(ctx.work, "devlink")
    os.symlink(dev, devlink)
    expect_ok(ctx, devlink, "symlink to a device")
    same_node(dev, before, "symlink to a device")
    if not os.path.islink(devlink):
        raise CheckFailed("symlink to a device: the link was replaced")
    dangling = os.path.join(ctx.work, "dangling")
    os.symlink("nowhere/nothing", dangling)
    status, stdout, err = ctx.run(dangling)
    one_error_line(status, err, "dangling symlink")
    nothing_ran(ctx, stdout, "dangling symlink")
    if not os.path.islink(dangling) or os.path.exists(os.path.join(ctx.work, "nowhere")):
        raise CheckFailed("dangling symlink: something was created")


def case_refused(ctx):
    d = os.path.join(ctx.work, "adir")
    os.mkdir(d)
    blk = os.path.join(ctx.work, "blockdev")
    os.mknod(blk, stat.S_IFBLK | 0o600, os.makedev(7, 250))
    before_blk = os.lstat(blk)
    for out, what in ((d, "a directory"), (os.path.join(ctx.work, "missing", "x"),
                                           "a missing directory"), (blk, "a block device")):
        listing = sorted(os.listdir(ctx.work))
        status, stdout, err = ctx.run(out)
        one_error_line(status, err, what)
        nothing_ran(ctx, stdout, what)
        if sorted(os.listdir(ctx.work)) != listing or os.listdir(d):
            raise CheckFailed("%s: files were created or removed" % what)
    same_node(blk, before_blk, "block device")
    # A directory user nobody cannot write; copies of the program and the
    # fixture it can run.
    locked = os.path.join(ctx.work, "locked")
    os.mkdir(locked, 0o755)
    for src, name in ((ctx.st, "sledtrace"), (ctx.fixture, "calltree")):
        shutil.copyfile(src, os.path.join(ctx.work, name))
        os.chmod(os.path.join(ctx.work, name), 0o755)
    nobody = Ctx(os.path.join(ctx.work, "sledtrace"), os.path.join(ctx.work, "calltree"),
                 ctx.command, ctx.work)
    status, stdout, err = nobody.run(os.path.join(locked, "x"), prefix=UNPRIVILEGED)
    one_error_line(status, err, "an unwritable directory")
    if "Permission denied" not in err:
        raise CheckFailed("an unwritable directory: the error does not say why: " + err)
    nothing_ran(ctx, stdout, "an unwritable directory")
    if os.listdir(locked):
        raise CheckFailed("an unwritable directory: files were created")


def gunzipped(data, what):
    if data[:2] != b"\x1f\x8b":
        raise CheckFailed("%s: not gzip (starts %r)" % (what, data[:4]))
    try:
        return gzip.decompress(data)
    except (OSError, EOFError) as e:
        raise CheckFailed("%s: not a complete gzip stream: %s" % (what, e))


def case_gzip(ctx):
    if ctx.command != "record":
        print("  (record only: the other commands choose gzip by format, not by name)")
        return
    old = os.path.join(ctx.work, "old.gz")
    with open(old, "w") as f:
        f.write("old contents\n")
    ino = os.stat(old).st_ino
    expect_ok(ctx, old, "existing .gz file")
    ctx.check_content(gunzipped(open(old, "rb").read(), "existing .gz file"),
                      "existing .gz file")
    if os.stat(old).st_ino == ino:
        raise CheckFailed("existing .gz file: rewritten in place, not replaced atomically")
    if sorted(os.listdir(ctx.work)) != ["old.gz"]:
        raise CheckFailed(".gz: other files were left: %r" % os.listdir(ctx.work))
    target = os.path.join(ctx.work, "target.gz")
    with open(target, "w") as f:
        f.write("old\n")
    link = os.path.join(ctx.work, "link.gz")
    os.symlink("target.gz", link)
    expect_ok(ctx, link, "symlink to a .gz file")
    if not os.path.islink(link) or os.readlink(link) != "target.gz":
        raise CheckFailed("symlink to a .gz file: the link was replaced")
    ctx.check_content(gunzipped(open(target, "rb").read(), "symlink's .gz target"),
                      "symlink's .gz target")
    fifo = os.path.join(ctx.work, "fifo.gz")
    os.mkfifo(fifo)
    before = os.lstat(fifo)
    chunks = []
    t = threading.Thread(target=lambda: read_all_into(chunks, open(fifo, "rb")))
    t.start()
    expect_ok(ctx, fifo, "FIFO named .gz")
    t.join(60)
    same_node(fifo, before, "FIFO named .gz")
    ctx.check_content(gunzipped(b"".join(chunks), "FIFO named .gz"), "FIFO named .gz")
    dev = os.path.join(ctx.work, "full.gz")
    os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 7))
    before = os.lstat(dev)
    listing = sorted(os.listdir(ctx.work))
    status, stdout, err = ctx.run(dev)
    one_error_line(status, err, "full-like device named .gz")
    if "No space left" not in err:
        raise CheckFailed("full-like device named .gz: the error does not say why: " + err)
    nothing_ran(ctx, stdout, "full-like device named .gz")
    same_node(dev, before, "full-like device named .gz")
    if sorted(os.listdir(ctx.work)) != listing:
        raise CheckFailed("full-like device named .gz: files were created or removed")


CASES = {
    "regular": case_regular, "stdout": case_stdout, "null": case_null, "full": case_full,
    "fifo": case_fifo, "fifo-closed": case_fifo_closed, "socket": case_socket, "symlinks": case_symlinks,
    "refused": case_refused, "gzip": case_gzip,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--fixture", required=True, help="the calltree fixture")
    ap.add_argument("--command", required=True, choices=["record", "convert", "filter"])
    ap.add_argument("--case", action="append", help="run only this case (repeatable)")
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    if os.geteuid() != 0:
        sys.exit("check_outputs.py needs root (mknod)")
    failed = 0
    for name in args.case or list(CASES):
        with tempfile.TemporaryDirectory(prefix="sledtrace-out-") as work:
            os.chmod(work, 0o755)
            ctx = Ctx(os.path.abspath(args.sledtrace), os.path.abspath(args.fixture),
                      args.command, work)
            if args.command == "convert":
                subprocess.run([ctx.st, "record", "-q", "-o", ctx.trace, "--", ctx.fixture],
                               check=True, stdout=subprocess.DEVNULL)
                os.chmod(ctx.trace, 0o644)
            try:
                CASES[name](ctx)
                print("PASS %s %s" % (args.command, name))
            except (CheckFailed, subprocess.TimeoutExpired) as e:
                failed += 1
                print("FAIL %s %s: %s" % (args.command, name, e))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
