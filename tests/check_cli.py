#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_cli.py: one command line, one way, for every command.

- `sledtrace help COMMAND` is `sledtrace COMMAND --help`, exit 0, and every
  option there has a description and a default; --version works everywhere.
- Every spelling of an option means the same: --x=V, --x V, -xV, -x V,
  options before or after the operand, `--` before it.
- -F/-N select the same functions in list, filter and record.
- record's options end at COMMAND: what follows is COMMAND's own.
- record -v prints the probe plan and the phase timings; without it, not.

Usage: check_cli.py SLEDTRACE CALLTREE
"""

import functools
import os
import re
import sys
import tempfile

import checklib
from checklib import CheckFailed, verdict

# Every command must exit 0; they keep the test's own stdin, as they
# always have here.
run = functools.partial(checklib.run, stdin=None)


def check_help(st):
    top = run([st, "help"]).stdout
    if run([st, "--help"]).stdout != top or "--version" not in top:
        raise CheckFailed("sledtrace --help differs from sledtrace help, or lacks --version")
    cmds = [l.split()[0] for l in top.split("commands:\n")[1].split("\n\n")[0].splitlines()]
    for cmd in cmds:
        if cmd == "help":
            continue
        text = run([st, cmd, "--help"]).stdout
        if run([st, "help", cmd]).stdout != text or run([st, cmd, "-h"]).stdout != text:
            raise CheckFailed("help %s, %s --help and %s -h differ" % (cmd, cmd, cmd))
        opts = re.split(r"\n(?=  (?:-\w, |    )--)", text.split("\noptions:\n")[1])
        for o in opts:
            o = " ".join(o.split())
            if o.startswith(("-h, --help", "--version")):
                continue
            if not re.search(r"^(-\w, )?--[a-z-]+(=[A-Z]+)? \S.*\(.*default: [^)]+\)", o):
                raise CheckFailed("%s: no description or default in --help: %s" % (cmd, o))
        if not run([st, cmd, "--version"]).stdout.startswith("sledtrace "):
            raise CheckFailed("%s --version" % cmd)
        print("  ok: %s --help: %d options, each with its default" % (cmd, len(opts) - 2))


def check_spellings(st, ct):
    want = run([st, "list", "-F", "^leaf", "-N", "leaf_y", ct]).stdout
    for argv in (["list", ct, "-F", "^leaf", "-N", "leaf_y"],
                 ["list", "--filter=^leaf", "--exclude=leaf_y", ct],
                 ["list", "--filter", "^leaf", "--exclude", "leaf_y", ct],
                 ["list", "-F^leaf", "-Nleaf_y", "--", ct]):
        if run([st] + argv).stdout != want:
            raise CheckFailed("'%s' lists differently from 'list -F ^leaf -N leaf_y'"
                              % " ".join(argv))
    if "2 of 11 functions selected" not in want:
        raise CheckFailed("list -F ^leaf -N leaf_y:\n" + want)
    print("  ok: list: every spelling of -F/-N selects the same 2 of 11")
    return want


def check_same_selection(st, ct, work):
    out = run([st, "filter", ct, "-F", "^leaf", "-N", "leaf_y", "-o", "-"])
    if "2 of 11 instrumented functions selected" not in out.stderr:
        raise CheckFailed("filter -F ^leaf -N leaf_y -o -:\n" + out.stderr)
    flt = os.path.join(work, "f.filter")
    with open(flt, "w") as f:
        f.write(out.stdout)
    lst = run([st, "list", "--filter-file", flt, ct]).stdout
    if "2 of 11 functions selected" not in lst:
        raise CheckFailed("list --filter-file of that filter:\n" + lst)
    rec = run([st, "record", "-o", os.path.join(work, "t.pftrace"), "-F", "^leaf", "-N",
               "leaf_y", "--", ct])
    if not re.search(r"^sledtrace: 2 functions, ", rec.stderr, re.M):
        raise CheckFailed("record -F ^leaf -N leaf_y did not attach 2 functions:\n"
                          + rec.stderr)
    print("  ok: -F/-N select the same 2 functions in list, filter and record")


def check_record_argv(st, ct, work):
    trace = os.path.join(work, "t.pftrace")
    # -qoFILE: bundled flags, the last one taking the rest as its value.
    for argv in (["record", "-qo" + trace, ct, "--help", "-v"],
                 ["record", "-q", "-o", trace, "--", ct, "--help", "-v"]):
        p = run([st] + argv)
        if "COUNT " not in p.stdout or p.stderr:
            raise CheckFailed("'%s': COMMAND's --help/-v were not COMMAND's:\n%s%s"
                              % (" ".join(argv), p.stdout, p.stderr))
    print("  ok: record: options end at COMMAND")
    p = run([st, "record", "-v", "-o", trace, "--", ct])
    for what in (r"^sledtrace: plan: .*: 11 of 11 functions selected",
                 r"^sledtrace: timing: open [\d.]+ ms, load [\d.]+ ms, start [\d.]+ ms, "
                 r"run [\d.]+ ms, finish [\d.]+ ms, detach [\d.]+ ms$",
                 r"^sledtrace: timing: attach [\d.]+ ms, detach [\d.]+ ms, 22 probes$"):
        if not re.search(what, p.stderr, re.M):
            raise CheckFailed("record -v: no line matching %r:\n%s" % (what, p.stderr))
    p = run([st, "record", "-o", trace, "--", ct])
    if "plan:" in p.stderr or "timing:" in p.stderr:
        raise CheckFailed("record without -v printed plan or timing:\n" + p.stderr)
    print("  ok: record -v: the plan and the phase timings")


def check(st, ct):
    check_help(st)
    check_spellings(st, ct)
    with tempfile.TemporaryDirectory(prefix="sledtrace-cli-") as work:
        check_same_selection(st, ct, work)
        check_record_argv(st, ct, work)


def main():
    st, ct = map(os.path.abspath, sys.argv[1:3])
    return verdict(check, st, ct, fail_to=sys.stdout)


if __name__ == "__main__":
    sys.exit(main())
