#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# build_core.py: builds the fuzzers' copy of the core library - the same
# source list meson builds sledtrace_core from - with clang and the fuzzing
# sanitizers, whatever compiler the project itself uses.
# usage: build_core.py OUT.a CC AR [FLAGS...] -- SOURCES...
import concurrent.futures
import os
import subprocess
import sys


def main():
    out, cc, ar = sys.argv[1:4]
    sep = sys.argv.index("--")
    flags, sources = sys.argv[4:sep], sys.argv[sep + 1:]
    objdir = out + ".d"
    os.makedirs(objdir, exist_ok=True)

    def compile_one(i_src):
        i, src = i_src
        obj = os.path.join(objdir, "%03d_%s.o" % (i, os.path.basename(src)))
        subprocess.run([cc] + flags + ["-c", src, "-o", obj], check=True)
        return obj

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        objs = list(ex.map(compile_one, enumerate(sources)))
    if os.path.exists(out):
        os.unlink(out)
    subprocess.run([ar, "rcs", out] + objs, check=True)


if __name__ == "__main__":
    try:
        main()
    except subprocess.CalledProcessError as e:
        sys.exit("build_core.py: %s failed (%d)" % (e.cmd[0], e.returncode))
