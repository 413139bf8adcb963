#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_perfetto_rules.py: an independent check of the Perfetto traces
sledtrace writes, against the rules trace_processor applies (docs/FORMATS.md).
It shares no code with the C writer or reader: it walks the protobuf wire
format itself (compressed_packets inflated with zlib) and checks:
every packet carries a trusted_packet_sequence_id; a sequence's first
packet clears incremental state and nothing needs it before; interned
names and source locations are defined before use and never redefined; an
incremental clock has a ClockSnapshot first; every event's track is
described; slices nest at most 512 deep, no END without a BEGIN, none left
open; an END's probe_calls is the number of slices closed inside it; and
the slice count equals the trace's call count per function.
Thread states: a state track is a child of a thread track, described and
used on that thread's sequence; its slices do not overlap, go in time
order and are named by the known states; the first is Running from the
thread's first event, the last ends at its last event, and every later
one is a switch: their number is the trace's `switches` with its
`switches_inferred`, and a track exists only for a thread with one.  A
call begins and ends on a CPU: never after its thread left it and before
it is back (Running).
Usage: check_perfetto_rules.py [--record-arg=ARG]... [--sleeping=N|none]
                               [--realtime] SLEDTRACE FIXTURE [ARGS...]
--sleeping=N: at least N Sleeping slices; none: no state track at all.
--realtime: record at SCHED_FIFO 1 (sleeps, not preemption, switch it)."""
import argparse
import collections
import os
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_counts import get_stats  # noqa: E402  (one stats parser)

CLEARED, NEEDS_STATE = 1, 2
BEGIN, END = 1, 2
MAX_DEPTH = 512
BOOTTIME, SEQ_CLOCK = 6, 64
STATE_TRACK = "state"
STATES = {"Running", "Runnable", "Sleeping", "Uninterruptible Sleep", "Stopped"}


class Bad(Exception):
    pass


def varint(buf, i):
    shift = value = 0
    while True:
        if i >= len(buf):
            raise Bad("truncated varint")
        b = buf[i]
        i += 1
        value |= (b & 0x7f) << shift
        if not b & 0x80:
            return value, i
        shift += 7


def fields(buf):
    """Yields (field number, wire type, value) of one message."""
    i = 0
    while i < len(buf):
        key, i = varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(buf, i)
        elif wt == 1:
            v, i = int.from_bytes(buf[i:i + 8], "little"), i + 8
        elif wt == 5:
            v, i = int.from_bytes(buf[i:i + 4], "little"), i + 4
        elif wt == 2:
            n, i = varint(buf, i)
            v, i = buf[i:i + n], i + n
            if i > len(buf):
                raise Bad("truncated length-delimited field %d" % num)
        else:
            raise Bad("wire type %d" % wt)
        yield num, wt, v


def msg(buf):
    """{field: [values]} of one message."""
    d = collections.defaultdict(list)
    for num, _, v in fields(buf):
        d[num].append(v)
    return d


class Sequence:
    def __init__(self):
        self.cleared = False
        self.names, self.locations = {}, {}
        self.clock_ok = False
        self.default_track = None
        self.default_clock = None
        self.time = 0
        self.first_ts = self.last_ts = None


class StateTrack:
    def __init__(self, seq_id, parent):
        self.seq_id, self.parent = seq_id, parent
        self.names = []  # of the slices, in order
        self.open_since = None
        self.last_end = None
        self.end_is_last = False


class Checker:
    def __init__(self):
        self.seqs = collections.defaultdict(Sequence)
        self.tracks = {}
        self.used_tracks = set()
        self.open = collections.defaultdict(list)
        self.slices = collections.Counter()
        self.states = {}  # state track uuid -> StateTrack
        self.state_of = {}  # thread track uuid -> its StateTrack
        self.npackets = 0

    def packet(self, buf):
        p = msg(buf)
        if 50 in p:
            for blob in p[50]:
                for num, _, inner in fields(zlib.decompress(blob)):
                    if num != 1:
                        raise Bad("compressed_packets holds field %d, not packets" % num)
                    self.packet(inner)
            return
        self.npackets += 1
        if 10 not in p:
            raise Bad("packet without trusted_packet_sequence_id: fields %s" % sorted(p))
        seq_id = p[10][0]
        seq = self.seqs[seq_id]
        flags = p[13][0] if 13 in p else 0
        if flags & CLEARED:
            seq.__init__()
            seq.cleared = True
        elif not seq.cleared and (flags & NEEDS_STATE or 11 in p or 12 in p):
            raise Bad("sequence %d uses incremental state before clearing it" % p[10][0])
        if 6 in p:
            clocks = [msg(c) for c in msg(p[6][0])[1]]
            seq.clock_ok = any(c[1][0] == SEQ_CLOCK and c.get(3, [0])[0] for c in clocks)
            seq.time = next((c[2][0] for c in clocks if c[1][0] == SEQ_CLOCK), 0)
        if 59 in p:
            d = msg(p[59][0])
            if 11 in d:
                seq.default_track = msg(d[11][0]).get(11, [None])[0]
            seq.default_clock = d.get(58, [None])[0]
            if seq.default_clock == SEQ_CLOCK and not seq.clock_ok:
                raise Bad("clock 64 used as default before its ClockSnapshot")
        if 12 in p:
            self.interned(seq, msg(p[12][0]))
        if 60 in p:
            self.describe(seq_id, seq, msg(p[60][0]))
        clock = p[58][0] if 58 in p else seq.default_clock
        ts = None
        if 8 in p and clock == SEQ_CLOCK:
            if not seq.clock_ok:
                raise Bad("incremental timestamp on a sequence without its ClockSnapshot")
            seq.time += p[8][0]
            ts = seq.time
        elif 8 in p and clock in (None, BOOTTIME):
            ts = p[8][0]
        if ts is not None:
            seq.first_ts = ts if seq.first_ts is None else seq.first_ts
            seq.last_ts = ts if seq.last_ts is None else max(seq.last_ts, ts)
        if 11 in p:
            self.event(seq_id, seq, msg(p[11][0]), ts)

    def describe(self, seq_id, seq, td):
        uuid = td[1][0]
        if uuid in self.tracks:
            raise Bad("track %#x described twice" % uuid)
        self.tracks[uuid] = td
        if 2 not in td or bytes(td[2][0]).decode() != STATE_TRACK or 4 in td:
            return
        parent = td.get(5, [None])[0]
        if parent not in self.tracks or 4 not in self.tracks[parent]:
            raise Bad("state track %#x: its parent %s is no thread track described before it"
                      % (uuid, parent))
        if seq.default_track != parent:
            raise Bad("state track %#x is not on its thread's sequence" % uuid)
        self.states[uuid] = StateTrack(seq_id, parent)
        self.state_of[parent] = self.states[uuid]

    def interned(self, seq, d):
        for field, table in ((2, seq.names), (4, seq.locations)):
            for entry in d.get(field, []):
                e = msg(entry)
                iid = e[1][0]
                if iid == 0 or iid in table:
                    raise Bad("interned iid %d (field %d) is 0 or redefined" % (iid, field))
                table[iid] = bytes(e[2][0]).decode() if field == 2 else e

    def event(self, seq_id, seq, ev, ts):
        track = ev.get(11, [seq.default_track])[0]
        self.used_tracks.add(track)
        kind = ev.get(9, [0])[0]
        if track in self.states:
            return self.state_event(self.states[track], seq_id, seq, ev, kind, ts)
        stack = self.open[track]
        self.check_running(track, ts, kind)
        if kind == BEGIN:
            iid = ev.get(10, [0])[0]
            if iid not in seq.names:
                raise Bad("BEGIN names iid %d, not interned on its sequence" % iid)
            if 34 in ev and ev[34][0] not in seq.locations:
                raise Bad("source location iid %d not interned" % ev[34][0])
            stack.append([seq.names[iid], 0])
            if len(stack) > MAX_DEPTH:
                raise Bad("slices nest %d deep on track %#x" % (len(stack), track))
        elif kind == END:
            if not stack:
                raise Bad("END with no open slice on track %#x" % track)
            name, below = stack.pop()
            self.slices[name] += 1
            if stack:
                stack[-1][1] += below + 1
            said = probe_calls(ev)
            if said != (below or None) and said != "values":
                raise Bad("END of %s says probe_calls %s, but %d slices closed inside it"
                          % (name, said, below))

    def check_running(self, track, ts, kind):
        """A call begins or ends on a CPU: never inside a state slice other
        than Running that began before it."""
        st = self.state_of.get(track)
        if st and st.open_since is not None and st.names[-1] != "Running" \
                and ts is not None and ts > st.open_since:
            raise Bad("a call %s at %d on track %#x, %s since %d"
                      % ("begins" if kind == BEGIN else "ends", ts, track, st.names[-1],
                         st.open_since))

    def state_event(self, st, seq_id, seq, ev, kind, ts):
        if seq_id != st.seq_id:
            raise Bad("state of track %#x on sequence %d, not its thread's" % (st.parent, seq_id))
        if ts is None:
            raise Bad("state event without a time")
        if kind == BEGIN:
            name = seq.names.get(ev.get(10, [0])[0])
            if name not in STATES:
                raise Bad("state slice named %r, not a known state" % name)
            if st.open_since is not None:
                raise Bad("state slices overlap on track of %#x" % st.parent)
            if not st.names and (name != "Running" or ts != seq.first_ts):
                raise Bad("the first state slice is %s at %d, not Running at the thread's "
                          "first event (%d)" % (name, ts, seq.first_ts))
            if st.last_end is not None and ts < st.last_end:
                raise Bad("state slice begins at %d, before the previous one ended (%d)"
                          % (ts, st.last_end))
            st.names.append(name)
            st.open_since = ts
        elif kind == END:
            if st.open_since is None or ts < st.open_since:
                raise Bad("state END without a slice open before it, track of %#x" % st.parent)
            st.open_since, st.last_end = None, ts
            st.end_is_last = ts == seq.last_ts

    def finish(self):
        for t in self.used_tracks:
            if t not in self.tracks:
                raise Bad("events on track %#x, which no TrackDescriptor describes" % t)
        for st in self.states.values():
            if st.open_since is not None or len(st.names) < 2:
                raise Bad("state track of %#x left open or without a switch" % st.parent)
            if not st.end_is_last:
                raise Bad("the states of %#x end before the thread's last event" % st.parent)
        left = {t: s for t, s in self.open.items() if s}
        if left:
            raise Bad("slices left open: %s" % {hex(t): len(s) for t, s in left.items()})
        threads = [t for t in self.tracks.values() if 4 in t]
        for t in threads:
            th = msg(t[4][0])
            if 1 not in th or 2 not in th:
                raise Bad("thread descriptor without pid and tid")


def probe_calls(ev):
    """An END's probe_calls annotation (None: none), or "values" for an
    END that carries captured values instead."""
    got = None
    for a in ev.get(4, []):
        ann = msg(a)
        name = bytes(ann.get(10, [b""])[0])
        if name == b"probe_calls":
            got = ann[3][0]
        elif name != b"exit_inferred":
            return "values"
    return got


def read_trace(checker, data):
    """Feeds every packet of a trace's bytes to checker, then finishes it."""
    for num, wt, v in fields(data):
        if num != 1 or wt != 2:
            raise Bad("top level holds field %d, not TracePacket" % num)
        checker.packet(v)
    checker.finish()
    return checker


def check_states(c, stats, sleeping):
    """The switches the trace counts, with those it inferred (a return to
    a CPU the kernel never reported), are the state slices after each
    first."""
    switches = sum(len(st.names) - 1 for st in c.states.values())
    asleep = sum(st.names.count("Sleeping") for st in c.states.values())
    counted = stats["switches"] + stats["switches_inferred"]
    print("%d state tracks, %d switches (stats: %d, %d of them inferred), %d Sleeping slices"
          % (len(c.states), switches, counted, stats["switches_inferred"], asleep))
    if switches != counted:
        sys.exit("the state slices hold %d switches, the stats %d" % (switches, counted))
    if sleeping == "none" and c.states:
        sys.exit("state tracks in a trace that should have none")
    if sleeping not in (None, "none") and asleep < int(sleeping):
        sys.exit("%d Sleeping slices, expected at least %s" % (asleep, sleeping))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--record-arg", action="append", default=[])
    ap.add_argument("--sleeping")
    ap.add_argument("--realtime", action="store_true",
                    help="record at SCHED_FIFO 1, where sleeps are exact switches")
    ap.add_argument("sledtrace")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    sledtrace, cmd = os.path.abspath(args.sledtrace), args.cmd
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.pftrace")
        fifo = (lambda: os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))) \
            if args.realtime else None
        subprocess.run([sledtrace, "record", "-q", "-o", trace] + args.record_arg + ["--"] + cmd,
                       stdout=subprocess.DEVNULL, check=False, preexec_fn=fifo)
        report = subprocess.run([sledtrace, "report", "--format=tsv", trace], check=True,
                                capture_output=True, text=True).stdout
        stats, _ = get_stats(sledtrace, trace, 120)
        with open(trace, "rb") as f:
            data = f.read()
    try:
        c = read_trace(Checker(), data)
    except (Bad, zlib.error, KeyError, IndexError) as e:
        sys.exit("rule broken: %s" % e)
    calls = {l.split("\t")[1]: int(l.split("\t")[2]) for l in report.splitlines()[1:]
             if not l.startswith("#")}
    # Calls deeper than the cap are not slices; the trace counts them apart.
    deep = {f: n - c.slices.get(f, 0) for f, n in calls.items() if n != c.slices.get(f, 0)}
    capped = stats["depth_capped"]
    print("%d packets, %d tracks, %d slices; calls beyond the depth cap: %s (stats: %d)"
          % (c.npackets, len(c.tracks), sum(c.slices.values()), deep or "none", capped))
    if set(c.slices) - set(calls) or any(n < 0 for n in deep.values()) \
            or sum(deep.values()) != capped:
        sys.exit("slices and the report's calls disagree: %s" % deep)
    check_states(c, stats, args.sleeping)


if __name__ == "__main__":
    main()
