#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_drops.py: nothing is lost silently.  sledtrace runs with a ring
buffer far too small and is stopped (SIGSTOP; the target keeps running) for
half a second, so the kernel must drop events; the trace must account for
every one: events consumed + ring-buffer drops = the events the fixture's
calls produce (2 per call with uretprobe exits, +2 for main) + 1 for its
thread's exit.  The target itself must be unaffected."""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_counts import get_stats  # noqa: E402  (one stats parser)

sledtrace, loop = map(os.path.abspath, sys.argv[1:3])
calls = 3000000
with tempfile.TemporaryDirectory() as tmp:
    trace = os.path.join(tmp, "t.pftrace")
    rec = subprocess.Popen([sledtrace, "record", "--ring-size=4K", "--exit=uretprobe", "-o", trace,
                            "--", loop, str(calls)], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    rec.send_signal(signal.SIGSTOP)
    time.sleep(0.5)
    rec.send_signal(signal.SIGCONT)
    out, err = rec.communicate(timeout=120)
    if rec.returncode != 0:
        sys.exit("record exited %d: %s" % (rec.returncode, err))
    if "tick %d" % calls not in out:
        sys.exit("the fixture's own output changed: %r" % out)
    stats, _ = get_stats(sledtrace, trace, 120)
want = 2 * calls + 2 + 1
got = stats["events"] + stats["ringbuf_drops"]
print("events %d + drops %d = %d (expected %d)" % (stats["events"], stats["ringbuf_drops"], got, want))
if stats["ringbuf_drops"] == 0:
    sys.exit("a stalled 4 KiB ring dropped nothing: the test proves nothing")
m = re.search(r"sledtrace: \d+ events, .*?(\d+) dropped", err)
if not m or int(m.group(1)) != stats["ringbuf_drops"]:
    sys.exit("the summary line does not report the drops: %r" % err)
sys.exit(0 if got == want else 1)
