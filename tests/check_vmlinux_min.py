#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_vmlinux_min.py: the build works on a host without kernel BTF.

Configures a second build of the source tree with -Dvmlinux_btf pointing
at a file that does not exist, as on a container build host, so that
bpf/vmlinux_min.h stands in for the dumped vmlinux.h, and checks that
  1. meson says it used the minimal header;
  2. the BPF object built from it has exactly the instructions of the
     object the main build made from the kernel's BTF (when the main build
     had BTF: otherwise there is nothing to compare and the test fails);
  3. the sledtrace built that way records a fixture with exact counts
     (tests/check_counts.py), i.e. libbpf relocates the hand-written types
     against the running kernel and the kernel accepts the programs;
  4. which kernel BTF each sledtrace relocates against (record -v): the
     main build embeds the minimal BTF cut from this kernel's and uses it,
     the build without kernel BTF embeds none and uses the kernel's own.

Usage: check_vmlinux_min.py --source-root DIR --build-dir DIR
         --main-bpf-object OBJ --check-counts PY --fixture BIN
The second build lives in --build-dir and is reused between runs.
Python 3 standard library only.
"""

import argparse
import os
import subprocess
import sys

MISSING_BTF = "/nonexistent/vmlinux"


def run(argv, what, timeout=900):
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=timeout)
    if proc.returncode != 0:
        sys.exit("%s failed (exit %d):\n%s" % (what, proc.returncode, proc.stdout[-4000:]))
    return proc.stdout


def instructions(obj):
    """The disassembly of every section, without the file name line."""
    out = run(["llvm-objdump", "-d", "--no-show-raw-insn", obj], "llvm-objdump " + obj)
    return [l for l in out.splitlines() if "file format" not in l]


def check_btf_line(sledtrace, fixture, want):
    """record -v names the BTF the CO-RE reads were relocated against."""
    proc = subprocess.run([sledtrace, "record", "-v", "-o", "/dev/null", "--", fixture],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, timeout=120)
    lines = [l for l in proc.stderr.splitlines() if "kernel BTF for CO-RE" in l]
    if proc.returncode != 0 or len(lines) != 1 or want not in lines[0]:
        sys.exit("%s: expected one 'kernel BTF for CO-RE: %s...' line (exit %d):\n%s" %
                 (sledtrace, want, proc.returncode, proc.stderr[-2000:]))
    print("%s: %s" % (sledtrace, lines[0]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-root", required=True)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--main-bpf-object", required=True)
    ap.add_argument("--check-counts", required=True)
    ap.add_argument("--fixture", required=True)
    a = ap.parse_args()

    opts = ["--buildtype=debugoptimized", "-Dvmlinux_btf=" + MISSING_BTF]
    if os.path.exists(os.path.join(a.build_dir, "meson-private", "coredata.dat")):
        setup = ["meson", "setup", "--reconfigure", a.build_dir, a.source_root] + opts
    else:
        setup = ["meson", "setup", a.build_dir, a.source_root] + opts
    log = run(setup, "meson setup without kernel BTF")
    if "vmlinux.h from bpf/vmlinux_min.h" not in log:
        sys.exit("meson did not fall back to bpf/vmlinux_min.h:\n" + log[-4000:])
    run(["meson", "compile", "-C", a.build_dir, "sledtrace"], "building without kernel BTF")

    main_build = os.path.dirname(os.path.dirname(os.path.abspath(a.main_bpf_object)))
    main_log = os.path.join(main_build, "meson-logs", "meson-log.txt")
    with open(main_log, errors="replace") as f:
        if "vmlinux.h from kernel BTF" not in f.read():
            sys.exit("the main build did not use kernel BTF: nothing to compare with")
    mine = instructions(os.path.join(a.build_dir, "bpf", "sledtrace.bpf.o"))
    theirs = instructions(a.main_bpf_object)
    if mine != theirs:
        diff = [l for l in set(mine) ^ set(theirs)][:20]
        sys.exit("BPF code differs between vmlinux_min.h and kernel BTF:\n" + "\n".join(diff))
    print("BPF object: %d lines of disassembly identical to the kernel-BTF build" % len(mine))

    for exe, want in ((os.path.join(main_build, "sledtrace"), "embedded minimal BTF"),
                      (os.path.join(a.build_dir, "sledtrace"),
                       "/sys/kernel/btf/vmlinux (none embedded")):
        check_btf_line(exe, a.fixture, want)

    proc = subprocess.run([sys.executable, a.check_counts, "--sledtrace",
                           os.path.join(a.build_dir, "sledtrace"), "--timeout", "120",
                           "--", a.fixture], stdin=subprocess.DEVNULL)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
