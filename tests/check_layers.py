#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_layers.py: each user/ directory includes only headers of its own
directory and of the levels below it in the pipeline (docs/DESIGN.md,
"Pipeline"), so the tree shows the order in which a trace is made and read.
util/ is the floor everyone may use; cli/ sits on top.  arch/ (and its
per-architecture folders) holds what sledtrace knows of an instruction
set, above object/ (sled maps) and below what probes and copies.  Directories that
share a level are peers and include none of each other: select/ (which
functions), probes/ (which probes, attached how) and process/ (the traced
process and its copies).  format/ has two layers of its own below its
writers: codec/ (wire encodings that know no format: protobuf, Thrift
compact, gzip) and perfetto/ (the trace format, written with codec/).
diff/ (`sledtrace diff`: reading runs, estimating, judging, printing)
sits above analysis/, whose per-function report it compares.
bench/ (`sledtrace bench`'s runs and comparison) is a peer of record/:
it runs `sledtrace record` as a child process and includes none of it.
record/ has two layers below it: collect/ (ring-buffer records rebuilt
into frames), which the recording feeds and nothing of it knows, and
hold/ (the traced objects and processes: -p targets, holds at new
mappings, copies, coverage), which registers objects with the collector.
Every directory under user/ must be placed here, so a new one cannot go
unchecked.  Prints every include that goes upward or across peers and
exits 1 if there is one.

Inside a directory the files of one module (X.c, X.h and its internal
X_int.h) may use each other; between modules, includes must not go round in
a circle (A includes B's header, B includes A's), so that each file can be
read knowing only what it includes.  Every directory is held to that: a
header that two modules both need (constants, a shared struct) gets a
file of its own below both."""
import os
import re
import sys

LEVELS = [["util"], ["object"], ["arch/x86"], ["arch"], ["select", "probes", "process"], ["model"], ["format/codec"],
          ["format/perfetto"], ["format"], ["analysis"], ["diff"], ["record/collect"], ["record/hold"],
          ["record", "bench"],
          ["cli"]]
LEVEL = {d: i for i, ds in enumerate(LEVELS) for d in ds}
INCLUDE = re.compile(r'\s*#\s*include\s+"([a-z_][a-z_0-9]*(?:/[a-z_0-9]+)*)/[^/"]+"')


def check_file(path, layer, name):
    bad = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            to = m.group(1)
            where = "user/%s/%s:%d" % (layer, name, n)
            if to not in LEVEL:
                bad.append("%s includes unknown directory %s/" % (where, to))
            elif LEVEL[to] > LEVEL[layer]:
                bad.append("%s: %s/ includes %s/, which is above it" % (where, layer, to))
            elif LEVEL[to] == LEVEL[layer] and to != layer:
                bad.append("%s: %s/ includes %s/, its peer" % (where, layer, to))
    return bad


def module(name):
    """report_int.h, report.h and report.c are one module: report."""
    base = name.rsplit(".", 1)[0]
    return base[:-4] if base.endswith("_int") else base


def circles(d, layer, files):
    """Circles among the modules of one directory, each as a list of names."""
    deps = {}
    own = re.compile(r'\s*#\s*include\s+"%s/([a-z_0-9]+\.h)"' % re.escape(layer))
    for name in files:
        if not name.endswith((".c", ".h")):
            continue
        with open(os.path.join(d, name), encoding="utf-8") as f:
            for line in f:
                m = own.match(line)
                if m and module(m.group(1)) != module(name):
                    deps.setdefault(module(name), set()).add(module(m.group(1)))
    found, state = [], {}

    def visit(u, path):
        state[u] = "open"
        path.append(u)
        for v in sorted(deps.get(u, ())):
            if state.get(v) == "open":
                found.append(path[path.index(v):] + [v])
            elif v not in state:
                visit(v, path)
        path.pop()
        state[u] = "done"

    for u in sorted(deps):
        if u not in state:
            visit(u, [])
    return found


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "user")
    bad = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        layer = os.path.relpath(d, root).replace(os.sep, "/")
        if layer == ".":
            continue
        if layer not in LEVEL:
            bad.append("user/%s/ is not a layer of check_layers.py" % layer)
            continue
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                bad += check_file(os.path.join(d, name), layer, name)
        for c in circles(d, layer, files):
            bad.append("user/%s/: %s include each other in a circle" % (layer, " -> ".join(c)))
    for b in bad:
        print(b)
    print("check_layers: %d problem(s)" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
