#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_x86_decoder.py: holds sledtrace's x86-64 length decoder and leaf
verdicts (user/arch/x86/x86_leaf.c, through tests/tools/x86_walk) against objdump's
disassembly of real binaries.  Every instruction start the decoder reports
must be one objdump reports, and every function it calls a leaf must, by
objdump, contain no call and no jump outside itself - a false "leaf" would
let a uretprobe sit where an exception could unwind.  Functions the decoder
gives up on are fine (they just keep exit sleds) but must stay few."""
import re
import subprocess
import sys

INSN = re.compile(r"^\s+([0-9a-f]+):\t(?:[0-9a-f]{2} )+\s*\t(\S+)\s*(.*)$")


def objdump(path):
    """{addr: (mnemonic, operands)} for every instruction objdump decodes."""
    out = subprocess.run(["objdump", "-d", "-w", path], capture_output=True, text=True,
                         check=True).stdout
    insns = {}
    for line in out.splitlines():
        m = INSN.match(line)
        if m:
            insns[int(m.group(1), 16)] = (m.group(2), m.group(3))
    return insns


def walk(tool, path):
    funcs, cur = {}, None
    for line in subprocess.run([tool, path], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        kind, addr, *rest = line.split()
        addr = int(addr, 16)
        if kind == "L":
            funcs[addr]["leaf"] = rest[0] == "1"
            cur = None
            continue
        if cur is None:
            cur = funcs.setdefault(addr, {"starts": [], "unknown": None, "leaf": False})
        if kind == "I":
            cur["starts"].append(addr)
        else:
            cur["unknown"] = addr
    return funcs


def leaves_body(mnemonic, operands, lo, hi):
    if mnemonic.startswith("call"):
        return True
    if mnemonic.startswith("j") or mnemonic.startswith("loop"):
        m = re.match(r"([0-9a-f]+)\b", operands)
        if not m or "*" in operands:
            return True
        return not lo <= int(m.group(1), 16) < hi
    return False


def check(tool, path):
    insns, funcs = objdump(path), walk(tool, path)
    bad, unknown, leaves = [], 0, 0
    for start, f in funcs.items():
        for a in f["starts"]:
            if a not in insns:
                bad.append("%s: decoder starts an instruction at %#x, objdump does not" % (path, a))
                break
        unknown += f["unknown"] is not None
        if f["leaf"]:
            leaves += 1
            hi = f["starts"][-1] + 16 if f["starts"] else start
            for a in f["starts"]:
                if leaves_body(*insns.get(a, ("?", "")), start, hi):
                    bad.append("%s: function %#x called a leaf, but %#x is %s" %
                               (path, start, a, " ".join(insns[a])))
    print("%s: %d functions, %d decoded to the end, %d leaves, %d mismatches" %
          (path, len(funcs), len(funcs) - unknown, leaves, len(bad)))
    if funcs and unknown > len(funcs) // 20:
        bad.append("%s: decoder gave up on %d of %d functions" % (path, unknown, len(funcs)))
    return bad


def main():
    tool, paths = sys.argv[1], sys.argv[2:]
    bad = []
    for p in paths:
        bad += check(tool, p)
    for line in bad[:20]:
        print(line)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
