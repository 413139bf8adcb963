#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_fixtures.py: guards the e2e fixtures against the compiler.

The e2e tests trust each fixture's own COUNT lines.  That only holds if
every counted function really is an instrumented function of its own
(not inlined away, not turned into a loop) and the tail-call fixture
really has tail sleds.  This checks, with `llvm-xray extract`, that
  - every function a fixture counts has an entry sled, and every
    instrumented function is one the fixture knows about (counted, or
    listed with --uncalled);
  - the functions given with --tail have a tail sled (function-tail,
    shown by llvm-xray 14 as `tail-exit`);
  - the functions given with --recursive still call themselves (objdump
    shows a `call` or `jmp` to their own address).

Usage: check_fixtures.py --llvm-xray PATH --objdump PATH [--tail F]...
         [--recursive F]... [--uncalled F]... -- FIXTURE [ARGS...]
"""

import argparse
import collections
import re
import subprocess
import sys

SLED_RE = re.compile(r"kind: ([a-z-]+),.*function-name: ([^,]+),")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--llvm-xray", required=True)
    ap.add_argument("--objdump", required=True)
    ap.add_argument("--tail", action="append", default=[])
    ap.add_argument("--recursive", action="append", default=[])
    ap.add_argument("--uncalled", action="append", default=[])
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    binary = cmd[0]
    problems = []

    out = subprocess.run(cmd, stdout=subprocess.PIPE, check=False).stdout.decode()
    counted = {line.split()[2] for line in out.splitlines() if line.startswith("COUNT ")}

    extract = subprocess.run([args.llvm_xray, "extract", "--symbolize", binary],
                             stdout=subprocess.PIPE, check=True).stdout.decode()
    kinds = collections.defaultdict(set)
    for m in SLED_RE.finditer(extract):
        kinds[m.group(2)].add(m.group(1))

    for f in sorted(counted):
        if "function-enter" not in kinds.get(f, ()):
            problems.append("%s is counted but has no entry sled (inlined?)" % f)
    for f in sorted(set(kinds) - counted - set(args.uncalled)):
        problems.append("%s is instrumented but the fixture does not count it" % f)
    for f in args.tail:
        if "tail-exit" not in kinds.get(f, ()) and "function-tail" not in kinds.get(f, ()):
            problems.append("%s has no tail sled: %s" % (f, sorted(kinds.get(f, ()))))

    if args.recursive:
        disasm = subprocess.run([args.objdump, "-d", "--no-show-raw-insn", binary],
                                stdout=subprocess.PIPE, check=True).stdout.decode()
        bodies = {}
        for block in disasm.split("\n\n"):
            m = re.search(r"^[0-9a-f]+ <([^>]+)>:$", block, re.M)
            if m:
                bodies[m.group(1)] = block
        for f in args.recursive:
            if not re.search(r"\t(call|jmp) +[0-9a-f]+ <%s>" % re.escape(f), bodies.get(f, "")):
                problems.append("%s does not call itself any more (a loop now?)" % f)

    for p in problems:
        print("FAIL: " + p)
    if not problems:
        print("PASS: %d functions, sled kinds as expected" % len(kinds))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
