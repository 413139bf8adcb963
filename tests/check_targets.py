#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_targets.py: the build recipes of docs/targets.md, run as written.

Each recipe in docs/targets.md is a fenced shell block preceded by a
marker line `<!-- check_targets: CASE -->`.  For one CASE this script
  1. copies the tiny project tests/targets/CASE/ into a temporary directory
     and runs the block there with bash (set -eu), exactly as the doc shows;
  2. checks with `sledtrace list BIN` that the functions the doc promises
     have sleds, and no others (for Rust: no others outside core::, alloc::,
     std:: and __rustc::, whose generic code is instantiated in the crate);
  3. records the program with tests/check_counts.py: the counts it prints
     for its own functions must be the trace's, exactly.

Usage: check_targets.py --sledtrace PATH --doc docs/targets.md
         --projects tests/targets --check-counts tests/check_counts.py
         [--path-prepend DIR] --case CASE
Python 3 standard library only.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_recipes  # noqa: E402

# case -> (binary relative to the project, arguments, functions with sleds,
#          sledtrace record arguments)
CASES = {
    "cmake": ("build/tiny_cmake", ["20"],
              {"main", "total(int)", "Square::area() const"}, []),
    "meson": ("build/tiny_meson", ["1000"], {"hot_parse", "hot_step"}, []),
    "autotools": ("tiny_autotools", ["12"], {"main", "worker", "fib"}, []),
    "cargo": ("target/xray/tiny_cargo", ["30"],
              {"tiny_cargo::main", "tiny_cargo::checksum",
               "<tiny_cargo::Square as tiny_cargo::Shape>::area"},
              ["-N", "^<?(core|alloc|std|__rustc)::"]),
}
RUST_GLUE = re.compile(r"^<?(core|alloc|std|__rustc)::")
LIST_ROW = re.compile(r"^\s*\d+\s+0x[0-9a-f]+\s+\d+/\d+/\d+\s+(.*)$")


def listed_functions(sledtrace, binary):
    proc = subprocess.run([sledtrace, "list", binary], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        sys.exit("sledtrace list %s failed: %s" % (binary, proc.stderr.strip()))
    names = set()
    for line in proc.stdout.splitlines():
        m = LIST_ROW.match(line)
        if m:
            names.add(m.group(1).split("  ")[0].strip())
    return names, proc.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--doc", required=True)
    ap.add_argument("--projects", required=True)
    ap.add_argument("--check-counts", required=True)
    ap.add_argument("--path-prepend", action="append", default=[])
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    a = ap.parse_args()
    binary, args, expected, record_args = CASES[a.case]
    script = doc_recipes.block(a.doc, "check_targets", a.case)

    env = doc_recipes.env_with_path(a.path_prepend)
    env["CARGO_NET_OFFLINE"] = "true"  # no crates: nothing to fetch
    with tempfile.TemporaryDirectory(prefix="sledtrace-target-") as tmp:
        proj = os.path.join(tmp, a.case)
        shutil.copytree(os.path.join(a.projects, a.case), proj)
        print("running the %s recipe of %s:\n%s" % (a.case, a.doc, script))
        status, output = doc_recipes.run(script, proj, env)
        if status != 0:
            sys.exit("the recipe failed (exit %d):\n%s" % (status, output[-6000:]))
        path = os.path.join(proj, binary)
        if not os.path.isfile(path):
            sys.exit("the recipe did not build %s" % binary)

        names, table = listed_functions(a.sledtrace, path)
        print(table)
        extra = names - expected
        if a.case == "cargo":
            extra = {n for n in extra if not RUST_GLUE.match(n)}
        if expected - names or extra:
            sys.exit("functions with sleds: missing %s, unexpected %s" %
                     (sorted(expected - names), sorted(extra)))

        argv = [sys.executable, a.check_counts, "--sledtrace", a.sledtrace, "--exact-names",
                "--timeout", "120"]
        argv += ["--record-arg=" + r for r in record_args]
        return subprocess.run(argv + ["--", path] + args, stdin=subprocess.DEVNULL).returncode


if __name__ == "__main__":
    sys.exit(main())
