#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_vmlinux_min.py: the build works on a host without kernel BTF.

Configures a second build of the source tree with -Dvmlinux_btf pointing
at a file that does not exist, as on a container build host, so that
bpf/vmlinux_min.h stands in for the dumped vmlinux.h, and checks what
matters on any kernel (the header's offsets are not this kernel's, nor
any kernel's):
  1. meson says it used the minimal header;
  2. the BPF object built from it loads on this kernel, and libbpf's
     debug log (record -vvv) shows a CO-RE relocation for every field the
     header declares, each patched against this kernel's BTF: no field is
     read at an offset written by hand, and none is declared unused (no
     padding);
  3. each field lands at the offset the main build's object, made from
     the kernel's own BTF, relocates it to;
  4. which kernel BTF each sledtrace relocates against (record -v): the
     main build embeds the minimal BTF cut from this kernel's and uses it,
     the build without kernel BTF embeds none and uses the kernel's own;
  5. the sledtrace built that way records a fixture with exact counts
     (tests/check_counts.py).

Usage: check_vmlinux_min.py --source-root DIR --build-dir DIR
         --main-bpf-object OBJ --check-counts PY --fixture BIN
The second build lives in --build-dir and is reused between runs.
Python 3 standard library only.
"""

import argparse
import os
import re
import subprocess
import sys

MISSING_BTF = "/nonexistent/vmlinux"


def run(argv, what, timeout=900):
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=timeout)
    if proc.returncode != 0:
        sys.exit("%s failed (exit %d):\n%s" % (what, proc.returncode, proc.stdout[-4000:]))
    return proc.stdout


STRUCT_RE = re.compile(r"^struct (\w+) \{\n(.*?)^\};", re.M | re.S)
FIELD_RE = re.compile(r"(\w+)(?:\[[^]]*\])?;")
FOUND_RE = re.compile(r"^libbpf: sec '[^']+': found (\d+) CO-RE relocations$")
SPEC_RE = re.compile(r"^libbpf: prog '(\w+)': relo #(\d+): <byte_off> \[\d+\] "
                     r"struct (\w+)\.(\w+) \(")
PATCH_RE = re.compile(r"^libbpf: prog '(\w+)': relo #(\d+): patched insn #\d+ "
                      r"\([A-Z/0-9]+\) (?:off|imm) -?\d+ -> (-?\d+)$")


def header_fields(header):
    """Every struct.field vmlinux_min.h declares."""
    with open(header) as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    fields = set()
    for name, body in STRUCT_RE.findall(text):
        for line in body.splitlines():
            m = FIELD_RE.search(line)
            if m:
                fields.add("%s.%s" % (name, m.group(1)))
    if not fields:
        sys.exit("%s: no struct fields found" % header)
    return fields


def relocations(sledtrace, fixture):
    """struct.field -> the offsets libbpf patched in, from record -vvv; every
    CO-RE relocation the object carries must have been patched.  --capture,
    so that the capture programs (loaded only with it) are relocated too."""
    proc = subprocess.run([sledtrace, "record", "-vvv", "--capture=.", "-o", "/dev/null", "--",
                           fixture],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, timeout=120)
    if proc.returncode != 0:
        sys.exit("%s did not load and record (exit %d):\n%s" %
                 (sledtrace, proc.returncode, proc.stderr[-4000:]))
    found, specs, offsets = 0, {}, {}
    for line in proc.stderr.splitlines():
        if "CO-RE" in line and ("fail" in line or "substituting" in line):
            sys.exit("%s: a CO-RE relocation did not resolve:\n%s" % (sledtrace, line))
        m = FOUND_RE.match(line)
        if m:
            found += int(m.group(1))
        m = SPEC_RE.match(line)
        if m:
            specs[(m.group(1), m.group(2))] = "%s.%s" % (m.group(3), m.group(4))
        m = PATCH_RE.match(line)
        if m:
            field = specs.get((m.group(1), m.group(2)))
            if not field:
                sys.exit("%s: patched a relocation it did not name:\n%s" % (sledtrace, line))
            offsets.setdefault(field, set()).add(int(m.group(3)))
    patched = sum(1 for l in proc.stderr.splitlines() if PATCH_RE.match(l))
    if not found or patched != found or len(specs) != found:
        sys.exit("%s: %d CO-RE relocations in the object, %d named, %d patched:\n%s" %
                 (sledtrace, found, len(specs), patched, proc.stderr[-4000:]))
    return offsets


def check_relocations(header, min_sledtrace, main_sledtrace, fixture):
    declared = header_fields(header)
    mine = relocations(min_sledtrace, fixture)
    if set(mine) != declared:
        sys.exit("fields declared in %s but never relocated: %s; relocated but not declared: %s"
                 % (header, sorted(declared - set(mine)) or "none",
                    sorted(set(mine) - declared) or "none"))
    theirs = relocations(main_sledtrace, fixture)
    for field in sorted(declared):
        if len(mine[field]) != 1 or mine[field] != theirs.get(field):
            sys.exit("%s relocated to %s from vmlinux_min.h, %s from the kernel's BTF" %
                     (field, sorted(mine[field]), sorted(theirs.get(field, ()))))
    print("CO-RE: all %d fields of vmlinux_min.h relocated, to the kernel-BTF build's offsets: %s"
          % (len(declared), ", ".join("%s@%d" % (f, min(mine[f])) for f in sorted(declared))))


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
    check_relocations(os.path.join(a.source_root, "bpf", "vmlinux_min.h"),
                      os.path.join(a.build_dir, "sledtrace"),
                      os.path.join(main_build, "sledtrace"), a.fixture)

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
