#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_layers.py: each user/ directory includes only headers of its own
directory and of the directories below it in the pipeline (docs/DESIGN.md,
"Pipeline"), so the tree shows the order in which a trace is made and read.
util/ is the floor everyone may use; cli/ sits on top.  format/ has two
layers of its own below its writers: codec/ (wire encodings that know no
format: protobuf, Thrift compact, gzip) and perfetto/ (the trace format,
written with codec/).  Every directory under user/ must be a layer, so a
new one cannot go unchecked.  Prints every include that goes upward and
exits 1 if there is one."""
import os
import re
import sys

ORDER = ["util", "object", "probe", "model", "format/codec", "format/perfetto", "format",
         "analysis", "record", "cli"]
INCLUDE = re.compile(r'\s*#\s*include\s+"([a-z_]+(?:/[a-z_]+)*)/[^/"]+"')


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "user")
    bad = []
    for d, dirs, files in os.walk(root):
        dirs.sort()
        layer = os.path.relpath(d, root).replace(os.sep, "/")
        if layer == ".":
            continue
        if layer not in ORDER:
            bad.append("user/%s/ is not a layer of check_layers.py" % layer)
            continue
        for name in sorted(files):
            if not name.endswith((".c", ".h")):
                continue
            with open(os.path.join(d, name), encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    to = m.group(1)
                    if to not in ORDER:
                        bad.append("user/%s/%s:%d includes unknown directory %s/"
                                   % (layer, name, n, to))
                    elif ORDER.index(to) > ORDER.index(layer):
                        bad.append("user/%s/%s:%d: %s/ includes %s/, which is above it"
                                   % (layer, name, n, layer, to))
    for b in bad:
        print(b)
    print("check_layers: %d problem(s)" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
