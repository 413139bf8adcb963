#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_debug_symbols.py: `record --no-xray` on a stripped binary reads its
function symbols from its separate debug file, where Debian puts them.

A stripped copy of the plain_syms fixture (`objcopy --strip-all` with a
.gnu_debuglink) and its debug file (`objcopy --only-keep-debug`):
- under DIR/.build-id/xx/yyyy.debug, with --debug-dir=DIR: exact counts;
- found by its debuglink name next to the binary: exact counts;
- nowhere: one error line naming the build-id path looked for, exit 1;
- the debug file of another build at the build-id path: one error line;
- and a stripped Debian binary (/usr/bin/true) without its -dbgsym
  installed: the message names coreutils-dbgsym (dpkg -S).

Usage: check_debug_symbols.py SLEDTRACE PLAIN_SYMS OTHER_FIXTURE
"""

import os
import shutil
import subprocess
import sys
import tempfile

from checklib import CheckFailed, verdict

EXPECTED = {"plain_main_loop": 1, "plain_outer": 4, "plain_inner": 12, "plain_rec": 32,
            "plain_leaf": 16}


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], stdout=subprocess.PIPE, text=True,
                         check=True).stdout
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split("Build ID:")[1].strip()
    raise CheckFailed("%s has no build-id" % path)


def record(st, binary, work, debug_dir):
    trace = os.path.join(work, "t.pftrace")
    if os.path.exists(trace):
        os.unlink(trace)
    argv = [st, "record", "-q", "--no-xray", "--debug-dir=" + debug_dir, "-F", "^plain_",
            "-o", trace, "--", binary]
    print("running: " + " ".join(argv))
    p = subprocess.run(argv, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=120)
    return p, trace


def expect_counts(st, binary, work, debug_dir, what):
    p, trace = record(st, binary, work, debug_dir)
    if p.returncode != 0 or p.stderr:
        raise CheckFailed("%s: exit %d, stderr:\n%s" % (what, p.returncode, p.stderr))
    rep = subprocess.run([st, "report", "--format=tsv", trace], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    got = {}
    for line in rep.splitlines()[1:]:
        f = line.split("\t")
        if len(f) >= 5 and f[2].isdigit():  # the first five columns are stable
            got[f[1]] = got.get(f[1], 0) + int(f[2])
    if got != EXPECTED:
        raise CheckFailed("%s: traced %s, expected %s" % (what, got, EXPECTED))
    print("  ok: %s: exact counts" % what)


def expect_error(st, binary, work, debug_dir, what, words):
    p, trace = record(st, binary, work, debug_dir)
    lines = p.stderr.splitlines()
    if p.returncode != 1 or len(lines) != 1 or not lines[0].startswith("sledtrace: "):
        raise CheckFailed("%s: expected exit 1 and one line, got %d:\n%s"
                          % (what, p.returncode, p.stderr))
    for w in words:
        if w not in lines[0]:
            raise CheckFailed("%s: %r not in: %s" % (what, w, lines[0]))
    if os.path.exists(trace) or "COUNT" in p.stdout:
        raise CheckFailed("%s: the command ran or a trace was written" % what)
    print("  ok: %s: %s" % (what, lines[0]))


def debian_hint(st):
    """A stripped Debian binary: the message names its -dbgsym package."""
    true = "/usr/bin/true"
    bid = build_id(true)
    installed = os.path.exists("/usr/lib/debug/.build-id/%s/%s.debug" % (bid[:2], bid[2:]))
    p = subprocess.run([st, "list", "--no-xray", true], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if installed:
        if p.returncode != 0 or "main" not in p.stdout:
            raise CheckFailed("coreutils-dbgsym is installed but list found no main")
        print("  ok: coreutils-dbgsym installed, its symbols were read")
    elif p.returncode != 1 or "install coreutils-dbgsym" not in p.stderr:
        raise CheckFailed("no coreutils-dbgsym hint for %s:\n%s" % (true, p.stderr))
    else:
        print("  ok: " + p.stderr.strip())


def check(st, plain, other):
    with tempfile.TemporaryDirectory(prefix="sledtrace-dbg-") as work:
        debug = os.path.join(work, "plain.debug")
        stripped = os.path.join(work, "stripped")
        subprocess.run(["objcopy", "--only-keep-debug", plain, debug], check=True)
        subprocess.run(["objcopy", "--strip-all", "--add-gnu-debuglink=" + debug,
                        plain, stripped], check=True)
        bid = build_id(stripped)
        root = os.path.join(work, "root")
        bdir = os.path.join(root, ".build-id", bid[:2])
        os.makedirs(bdir)
        shutil.copyfile(debug, os.path.join(bdir, bid[2:] + ".debug"))
        empty = os.path.join(work, "empty")
        os.mkdir(empty)
        # The build-id path first; then the debuglink beside the binary.
        expect_counts(st, stripped, work, root, "by build-id")
        expect_counts(st, stripped, work, empty, "by .gnu_debuglink")
        os.unlink(debug)
        expect_error(st, stripped, work, empty, "no debug file",
                     ["is stripped", "%s/.build-id/%s/%s.debug" % (empty, bid[:2], bid[2:])])
        shutil.copyfile(other, os.path.join(bdir, bid[2:] + ".debug"))
        expect_error(st, stripped, work, root, "another build's debug file",
                     ["has build-id %s" % build_id(other)])
    debian_hint(st)


def main():
    st, plain, other = map(os.path.abspath, sys.argv[1:4])
    return verdict(check, st, plain, other, errors=(subprocess.CalledProcessError,),
                   fail_to=sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
