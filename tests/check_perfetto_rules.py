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
open; and the slice count equals the trace's call count per function.
Usage: check_perfetto_rules.py SLEDTRACE FIXTURE [ARGS...]"""
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


class Checker:
    def __init__(self):
        self.seqs = collections.defaultdict(Sequence)
        self.tracks = {}
        self.used_tracks = set()
        self.open = collections.defaultdict(list)
        self.slices = collections.Counter()
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
        seq = self.seqs[p[10][0]]
        flags = p[13][0] if 13 in p else 0
        if flags & CLEARED:
            seq.__init__()
            seq.cleared = True
        elif not seq.cleared and (flags & NEEDS_STATE or 11 in p or 12 in p):
            raise Bad("sequence %d uses incremental state before clearing it" % p[10][0])
        if 6 in p:
            clocks = [msg(c) for c in msg(p[6][0])[1]]
            seq.clock_ok = any(c[1][0] == 64 and c.get(3, [0])[0] for c in clocks)
        if 59 in p:
            d = msg(p[59][0])
            if 11 in d:
                seq.default_track = msg(d[11][0]).get(11, [None])[0]
            seq.default_clock = d.get(58, [None])[0]
            if seq.default_clock == 64 and not seq.clock_ok:
                raise Bad("clock 64 used as default before its ClockSnapshot")
        if 12 in p:
            self.interned(seq, msg(p[12][0]))
        if 60 in p:
            td = msg(p[60][0])
            self.tracks[td[1][0]] = td
        clock = p[58][0] if 58 in p else seq.default_clock
        if 8 in p and clock == 64:
            if not seq.clock_ok:
                raise Bad("incremental timestamp on a sequence without its ClockSnapshot")
            seq.time += p[8][0]
        if 11 in p:
            self.event(seq, msg(p[11][0]))

    def interned(self, seq, d):
        for field, table in ((2, seq.names), (4, seq.locations)):
            for entry in d.get(field, []):
                e = msg(entry)
                iid = e[1][0]
                if iid == 0 or iid in table:
                    raise Bad("interned iid %d (field %d) is 0 or redefined" % (iid, field))
                table[iid] = bytes(e[2][0]).decode() if field == 2 else e

    def event(self, seq, ev):
        track = ev.get(11, [seq.default_track])[0]
        self.used_tracks.add(track)
        kind = ev.get(9, [0])[0]
        stack = self.open[track]
        if kind == BEGIN:
            iid = ev.get(10, [0])[0]
            if iid not in seq.names:
                raise Bad("BEGIN names iid %d, not interned on its sequence" % iid)
            if 34 in ev and ev[34][0] not in seq.locations:
                raise Bad("source location iid %d not interned" % ev[34][0])
            stack.append(seq.names[iid])
            if len(stack) > MAX_DEPTH:
                raise Bad("slices nest %d deep on track %#x" % (len(stack), track))
        elif kind == END:
            if not stack:
                raise Bad("END with no open slice on track %#x" % track)
            self.slices[stack.pop()] += 1

    def finish(self):
        for t in self.used_tracks:
            if t not in self.tracks:
                raise Bad("events on track %#x, which no TrackDescriptor describes" % t)
        left = {t: s for t, s in self.open.items() if s}
        if left:
            raise Bad("slices left open: %s" % {hex(t): len(s) for t, s in left.items()})
        threads = [t for t in self.tracks.values() if 4 in t]
        for t in threads:
            th = msg(t[4][0])
            if 1 not in th or 2 not in th:
                raise Bad("thread descriptor without pid and tid")


def main():
    sledtrace, cmd = os.path.abspath(sys.argv[1]), sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.pftrace")
        subprocess.run([sledtrace, "record", "-q", "-o", trace, "--"] + cmd,
                       stdout=subprocess.DEVNULL, check=False)
        report = subprocess.run([sledtrace, "report", "--format=tsv", trace], check=True,
                                capture_output=True, text=True).stdout
        stats, _ = get_stats(sledtrace, trace, 120)
        with open(trace, "rb") as f:
            data = f.read()
    c = Checker()
    try:
        for num, wt, v in fields(data):
            if num != 1 or wt != 2:
                raise Bad("top level holds field %d, not TracePacket" % num)
            c.packet(v)
        c.finish()
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


if __name__ == "__main__":
    main()
