#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare_xray.py: per-function call counts of a real program, sledtrace vs
LLVM's own XRay basic mode.  --program zstd: Debian's zstd CLI (built by
build_zstd.sh), compressing at two levels and decompressing; --program lua:
Debian's Lua 5.4 interpreter (build_lua.sh) running workload.lua.

For each command the same binary with the same arguments runs three times:
  - untraced (the reference for exit status, stdout and output bytes);
  - under LLVM XRay basic mode (patch_premain, no duration threshold), whose
    log `llvm-xray account` turns into per-function call counts; the raw log
    is also decoded here to check that account's stack matching kept every
    logged entry (Lua leaves frames by longjmp, on errors and coroutine
    yields, which account cannot pair: its calls are the log's entry
    records, named by `llvm-xray extract`);
  - under `sledtrace record` (once per --exit mode asked for), then
    `sledtrace report --format=tsv`.
Every function's call count must be equal in both traces; exit statuses,
stdout and the produced file must be identical in all runs.

No exclusions: neither program runs an instrumented function before main or
after basic mode's exit flush (their .init_array/.fini_array hold only runtime and
crt code), so both tracers see every call.

Usage: compare_xray.py --sledtrace PATH --build-dir DIR
         [--exit default|auto|sled|uretprobe|infer ...] [--size-mb N] [--keep]
Python 3 standard library only.
"""

import argparse
import collections
import csv
import glob
import io
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import check_counts  # noqa: E402  (the shared process runner)
from check_counts import CheckFailed  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT_HEADER = "tid\tfunction\tcalls\ttotal_ns\tself_ns"

# sledtrace tells apart functions that show the same name by a suffix: the
# source location ` (file.c:N)`, then the address `@0x...` if that is not
# enough (copies of one header function).  llvm-xray names
# them alike, so counts are compared per name and same-named functions are
# summed on both sides.  In this zstd that is one name only:
# ZSTD_count_2segments, a static inline function of a header emitted as four
# local copies (when more than one copy is called, the summary says so).
DISAMBIGUATION = re.compile(r"( \([^()]+:[0-9]+\))?(@0x[0-9a-f]+)?$")

# XRay basic mode.  func_duration_threshold_us=0: the default (5 us) drops
# short calls.  max_stack_depth: basic mode silently drops entries nested
# deeper than this (default 64); the raw-log check below verifies the run
# stayed well under it.
# Basic mode's depth is its entries less its exits, so every frame left by
# longjmp stays counted: Lua's coroutine yields and errors leave ~18,000 in
# workload.lua, hence its far larger limit (16 bytes of shadow stack each).
XRAY_MAX_DEPTH = {"zstd": 1024, "lua": 1 << 20}


def xray_basic_options(prog):
    return "func_duration_threshold_us=0 max_stack_depth=%d" % XRAY_MAX_DEPTH[prog]

# Raw basic-mode log (compiler-rt xray_records.h): a 32-byte file header
# {u16 version, u16 type, u32 bitfield, u64 cycle frequency, 16 free bytes},
# then 32-byte records.  NORMAL records: {u16 record type (0), u8 cpu,
# u8 entry type, i32 function id, u64 tsc, u32 tid, u32 pid, 8 pad}.
# Entry types: 0 ENTRY, 1 EXIT, 2 TAIL (exit by tail call), 3 LOG_ARGS_ENTRY.
# Record type 1 is an argument payload that follows a LOG_ARGS_ENTRY record.
RAW_HEADER = struct.Struct("<HHIQ16x")
RAW_RECORD = struct.Struct("<HBBiQII8x")


def run(argv, timeout, what, cwd=None, env=None):
    """check_counts.run, timed: returns (status, stdout, stderr, seconds)."""
    start = time.monotonic()
    status, out, err = check_counts.run(argv, timeout, what, cwd=cwd, env=env)
    return status, out, err, time.monotonic() - start


def clean_env():
    """The environment minus anything that would switch XRay's runtime on."""
    return {k: v for k, v in os.environ.items() if not k.startswith("XRAY_")}


# ---- Input -----------------------------------------------------------------

class XorShift:
    """xorshift64*: a tiny PRNG whose output never depends on Python's version."""

    def __init__(self, seed):
        self.s = seed & 0xFFFFFFFFFFFFFFFF or 1

    def next(self):
        s = self.s
        s ^= s >> 12
        s ^= (s << 25) & 0xFFFFFFFFFFFFFFFF
        s ^= s >> 27
        self.s = s
        return (s * 0x2545F4914F6CDD1D) & 0xFFFFFFFFFFFFFFFF

    def below(self, n):
        return (self.next() >> 11) % n


def make_input(path, size):
    """Deterministic data that takes several of zstd's paths: skewed word text
    (compressed blocks), a long run of one byte (RLE blocks) and random bytes
    (raw, incompressible blocks)."""
    rng = XorShift(0x5EED5EED)
    letters = "etaoinshrdlcumwfgypbvkjxqz"
    vocab = []
    for _ in range(3000):
        n = 2 + rng.below(9)
        vocab.append("".join(letters[min(rng.below(26), rng.below(26))] for _ in range(n)))
    parts = []
    text_size = size * 7 // 10
    n = 0
    while n < text_size:
        # The product of two uniforms favours low indexes: a Zipf-like mix.
        words = [vocab[rng.below(len(vocab)) * rng.below(len(vocab)) // len(vocab)]
                 for _ in range(1 + rng.below(16))]
        s = " ".join(words) + ".\n"
        parts.append(s.encode())
        n += len(s)
    parts.append(b"=" * (size // 10))
    raw = bytearray()
    while len(raw) < size // 10:
        raw += rng.next().to_bytes(8, "little")
    parts.append(bytes(raw))
    data = b"".join(parts)
    # The tail: the text again, so long-distance matches exist.
    data += data[: max(0, size - len(data))]
    with open(path, "wb") as f:
        f.write(data[:size])


# ---- XRay basic mode ---------------------------------------------------------

def find_llvm_xray(given):
    for cand in ([given] if given else ["llvm-xray", "llvm-xray-14"]):
        path = shutil.which(cand)
        if path:
            return path
    raise CheckFailed("llvm-xray not found (Debian package llvm-14); pass --llvm-xray")


def decode_raw_log(path):
    """A basic-mode log -> ({funcid: entries}, {funcid: exits}, tids, max depth)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < RAW_HEADER.size or (len(data) - RAW_HEADER.size) % RAW_RECORD.size:
        raise CheckFailed("%s: %d bytes is not a header plus whole 32-byte records"
                          % (path, len(data)))
    version, log_type, _, _ = RAW_HEADER.unpack_from(data, 0)
    if log_type != 0:
        raise CheckFailed("%s: log type %d, expected 0 (basic/naive)" % (path, log_type))
    entries = collections.Counter()
    exits = collections.Counter()
    depth = collections.Counter()
    max_depth = 0
    tids = set()
    for off in range(RAW_HEADER.size, len(data), RAW_RECORD.size):
        rtype, _, etype, fid, _, tid, _ = RAW_RECORD.unpack_from(data, off)
        if rtype == 1:
            continue  # argument payload
        if rtype != 0:
            raise CheckFailed("%s: record type %d at offset %d" % (path, rtype, off))
        tids.add(tid)
        if etype in (0, 3):
            entries[fid] += 1
            depth[tid] += 1
            max_depth = max(max_depth, depth[tid])
        elif etype in (1, 2):
            exits[fid] += 1
            depth[tid] = max(0, depth[tid] - 1)
        else:
            raise CheckFailed("%s: entry type %d at offset %d" % (path, etype, off))
    return entries, exits, tids, max_depth, version


EXTRACT_LINE = re.compile(r"id: (\d+),.*kind: function-enter,.*function-name: ([^,}]+?)(?:,| \})")


def xray_names(llvm_xray, binary, timeout):
    """{funcid: name} from `llvm-xray extract --symbolize` (the sled map)."""
    argv = [llvm_xray, "extract", "--symbolize", binary]
    status, out, err, _ = run(argv, timeout, "llvm-xray extract")
    if status != 0:
        raise CheckFailed("`%s` exited %d\n%s" % (" ".join(argv), status, err))
    names = {int(m.group(1)): m.group(2) for m in map(EXTRACT_LINE.search, out.splitlines())
             if m}
    if not names:
        raise CheckFailed("llvm-xray extract listed no function entries")
    return names


def xray_entry_counts(llvm_xray, binary, log, timeout, max_depth_allowed):
    """The calls of one log counted from its raw entry records, for a program
    that leaves functions without their exits (Lua's errors and coroutine
    yields longjmp across C frames): `llvm-xray account` pairs entries with
    exits on a stack and gives up on such a log, while every entry record is
    one call whatever happens after it."""
    entries, _, tids, max_depth, version = decode_raw_log(log)
    if max_depth >= max_depth_allowed:
        raise CheckFailed("nesting reached basic mode's max_stack_depth (%d): "
                          "deeper entries were dropped" % max_depth_allowed)
    names = xray_names(llvm_xray, binary, timeout)
    counts = collections.Counter()
    copies = collections.defaultdict(list)
    for fid, n in sorted(entries.items()):
        if fid not in names:
            raise CheckFailed("the log has entries of funcid %d, which the sled map lacks" % fid)
        counts[names[fid]] += n
        copies[names[fid]].append("%d" % n)
    detail = {"functions": len(entries), "tids": len(tids), "max_depth": max_depth,
              "version": version,
              "merged": {k: v for k, v in copies.items() if len(v) > 1}}
    return counts, detail


def xray_counts(llvm_xray, binary, log, timeout, max_depth_allowed):
    """`llvm-xray account` of one log -> ({function: calls}, detail dict)."""
    argv = [llvm_xray, "account", "-instr_map=" + binary, "-format=csv",
            "-sort=funcid", "-sortorder=asc", log]
    status, out, err, _ = run(argv, timeout, "llvm-xray account")
    if status != 0:
        raise CheckFailed("`%s` exited %d\n%s" % (" ".join(argv), status, err))
    rows = list(csv.reader(io.StringIO(out)))
    if not rows:
        raise CheckFailed("llvm-xray account printed nothing")
    head = rows[0]
    try:
        i_id, i_count, i_name = head.index("funcid"), head.index("count"), head.index("function")
    except ValueError:
        raise CheckFailed("llvm-xray account csv header lacks funcid/count/function: %r" % head)
    by_id = {}
    for row in rows[1:]:
        if not row:
            continue
        by_id[int(row[i_id])] = (row[i_name], int(row[i_count]))

    # account counts the calls it could pair (entry with exit) on each
    # thread's stack; the raw log says how many entries were written.  They
    # must agree, or account dropped or invented calls.
    entries, exits, tids, max_depth, version = decode_raw_log(log)
    problems = []
    for fid in sorted(set(entries) | set(by_id)):
        acc = by_id.get(fid, ("?", 0))
        if entries[fid] != acc[1] or exits[fid] != entries[fid]:
            problems.append("  funcid %d %s: raw log %d entries / %d exits, account %d"
                            % (fid, acc[0], entries[fid], exits[fid], acc[1]))
    if problems:
        raise CheckFailed("llvm-xray account disagrees with the raw basic-mode log:\n"
                          + "\n".join(problems))
    if max_depth >= max_depth_allowed:
        raise CheckFailed("nesting reached basic mode's max_stack_depth (%d): "
                          "deeper entries were dropped" % max_depth_allowed)

    counts = collections.Counter()
    copies = collections.defaultdict(list)
    for fid, (name, n) in sorted(by_id.items()):
        counts[name] += n
        copies[name].append("%d" % n)
    detail = {"functions": len(by_id), "tids": len(tids), "max_depth": max_depth,
              "version": version,
              "merged": {k: v for k, v in copies.items() if len(v) > 1}}
    return counts, detail


# ---- sledtrace -----------------------------------------------------------------

def sledtrace_counts(sledtrace, trace, timeout):
    argv = [sledtrace, "report", "--format=tsv", trace]
    status, out, err, _ = run(argv, timeout, "sledtrace report")
    if status != 0:
        raise CheckFailed("`%s` exited %d\n%s" % (" ".join(argv), status, err))
    lines = [l for l in out.splitlines() if not l.startswith("#")]  # "# stats:" closes it
    if not lines or lines[0].split("\t")[:5] != REPORT_HEADER.split("\t"):
        raise CheckFailed("report header is %r, expected it to start with %r"
                          % (lines[0] if lines else "<empty output>", REPORT_HEADER))
    counts = collections.Counter()
    for num, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) < 5 or fields[0] != "*":
            raise CheckFailed("report line %d is not `*<TAB>function<TAB>calls<TAB>"
                              "total<TAB>self`: %r" % (num, line))
        try:
            counts[DISAMBIGUATION.sub("", fields[1])] += int(fields[2])
        except ValueError:
            raise CheckFailed("report line %d: calls is not a number: %r" % (num, line))
    return counts


# ---- The comparison ------------------------------------------------------------

def compare(xray, traced):
    problems = []
    for name in sorted(set(xray) | set(traced)):
        if xray.get(name, 0) != traced.get(name, 0):
            problems.append("  %-40s xray-basic %-10d sledtrace %d"
                            % (name, xray.get(name, 0), traced.get(name, 0)))
    return problems


def same_file(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def run_step(args, tools, work, step, exit_modes):
    """One command of the program in every configuration; returns a summary
    dict."""
    name, prog_args, out_name = step
    binary = tools["program"]
    prog = args.program
    argv = [binary] + prog_args
    print("== %s: %s %s" % (name, prog, " ".join(prog_args)))
    result = {"name": name}

    def fresh_dir(tag):
        d = os.path.join(work, name, tag)
        os.makedirs(d)
        return d

    # Untraced reference.
    ref_dir = fresh_dir("untraced")
    ref_status, ref_out, ref_err, secs = run(argv, args.timeout, "untraced " + prog,
                                             cwd=ref_dir, env=clean_env())
    if ref_status != 0:
        raise CheckFailed("untraced %s exited %d\n%s" % (prog, ref_status, ref_err))
    ref_file = os.path.join(ref_dir, out_name)
    result["untraced_s"] = secs

    def check_same(tag, d, status, out):
        if status != ref_status:
            raise CheckFailed("%s: %s exited %d, untraced %d"
                              % (tag, prog, status, ref_status))
        if out != ref_out:
            raise CheckFailed("%s: %s's stdout differs from the untraced run's" % (tag, prog))
        produced = os.path.join(d, out_name)
        if not os.path.isfile(produced) or not same_file(produced, ref_file):
            raise CheckFailed("%s: %s is not byte-identical to the untraced run's"
                              % (tag, out_name))

    # LLVM XRay basic mode.
    xdir = fresh_dir("xray-basic")
    env = clean_env()
    env["XRAY_OPTIONS"] = ("patch_premain=true xray_mode=xray-basic xray_logfile_base=%s/xray-log."
                           % xdir)
    env["XRAY_BASIC_OPTIONS"] = xray_basic_options(prog)
    status, out, err, secs = run(argv, args.timeout, prog + " under XRay basic mode",
                                 cwd=xdir, env=env)
    check_same("XRay basic mode", xdir, status, out)
    logs = glob.glob(os.path.join(xdir, "xray-log.*"))
    if len(logs) != 1:
        raise CheckFailed("XRay basic mode left %d logs in %s, expected 1\n%s"
                          % (len(logs), xdir, err))
    counter = xray_entry_counts if prog == "lua" else xray_counts
    xray, detail = counter(tools["llvm-xray"], binary, logs[0], args.timeout,
                           XRAY_MAX_DEPTH[prog])
    if not xray:
        raise CheckFailed("XRay basic mode logged no calls (is the runtime linked?)")
    result["xray_s"] = secs
    result["xray"] = xray
    result["xray_detail"] = detail

    # sledtrace, once per exit mode.
    result["sled"] = {}
    for mode in exit_modes:
        tag = "sledtrace-" + (mode or "default")
        sdir = fresh_dir(tag)
        trace = os.path.join(sdir, "trace.pftrace")
        rec = [tools["sledtrace"], "record", "--quiet", "-o", trace]
        if mode:
            rec.append("--exit=" + mode)
        status, out, err, secs = run(rec + ["--"] + argv, args.timeout,
                                     "sledtrace record", cwd=sdir, env=clean_env())
        if err.strip():
            print("   (%s stderr: %s)" % (tag, err.strip().replace("\n", " | ")))
        check_same(tag, sdir, status, out)
        traced = sledtrace_counts(tools["sledtrace"], trace, args.timeout)
        problems = compare(xray, traced)
        if problems:
            raise CheckFailed("%s: %s: per-function calls differ (%d functions):\n%s"
                              % (name, tag, len(problems), "\n".join(problems)))
        result["sled"][mode or "default"] = secs
    return result, ref_file


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--build-dir", required=True,
                    help="where the program is fetched and built (kept between runs)")
    ap.add_argument("--program", choices=["zstd", "lua"], default="zstd")
    ap.add_argument("--exit", dest="exit_modes", action="append", default=None,
                    help="sledtrace --exit mode, or 'default' for no --exit option; "
                         "repeat for several (default: 'default' and 'sled')")
    ap.add_argument("--size-mb", type=float, default=3.0, help="input size (default 3)")
    ap.add_argument("--llvm-xray", default=None, help="llvm-xray binary")
    ap.add_argument("--timeout", type=float, default=600, help="per command, seconds")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    # "default" runs record without --exit (whatever sledtrace defaults to);
    # sled mode (exact exit sleds, ~12 us per exit here) adds ~15 s.
    exit_modes = [None if m == "default" else m
                  for m in args.exit_modes or ["default", "sled"]]

    try:
        tools = {"sledtrace": os.path.abspath(args.sledtrace)}
        if not os.access(tools["sledtrace"], os.X_OK):
            raise CheckFailed("sledtrace not executable: " + tools["sledtrace"])
        tools["llvm-xray"] = find_llvm_xray(args.llvm_xray)
        build_dir = os.path.abspath(args.build_dir)
        script = "build_%s.sh" % args.program
        status, _, err, secs = run([os.path.join(HERE, script), build_dir], 1200, script)
        if status != 0:
            raise CheckFailed("%s failed (%d):\n%s" % (script, status, err))
        if secs > 1:
            print("built %s in %.1f s" % (args.program, secs))
        tools["program"] = os.path.join(build_dir, args.program)

        work = tempfile.mkdtemp(prefix="sledtrace-real-")
        try:
            summary = {"zstd": check_zstd, "lua": check_lua}[args.program](
                args, tools, work, exit_modes)
        finally:
            if args.keep:
                print("work directory kept: " + work)
            else:
                shutil.rmtree(work, ignore_errors=True)
    except CheckFailed as e:
        print("FAIL: %s" % e, file=sys.stderr)
        return 1
    print(summary)
    print("PASS")
    return 0


def check_zstd(args, tools, work, exit_modes):
    size = int(args.size_mb * 1024 * 1024)
    data = os.path.join(work, "input.bin")
    make_input(data, size)
    # Level 19 is ~50x slower per byte than level 3: a slice keeps it short.
    small = os.path.join(work, "small.bin")
    with open(data, "rb") as f, open(small, "wb") as g:
        g.write(f.read(max(64 * 1024, size // 8)))

    steps = [
        ("compress-3", ["-q", "-f", "-3", data, "-o", "out.zst"], "out.zst"),
        ("compress-19", ["-q", "-f", "-19", small, "-o", "out.zst"], "out.zst"),
    ]
    results = []
    for step in steps:
        res, produced = run_step(args, tools, work, step, exit_modes)
        results.append(res)
        if step[0] == "compress-3":
            packed = os.path.join(work, "input.bin.zst")
            shutil.copyfile(produced, packed)
    res, produced = run_step(args, tools, work,
                             ("decompress", ["-q", "-d", "-f", packed, "-o", "out.bin"],
                              "out.bin"), exit_modes)
    results.append(res)
    if not same_file(produced, data):
        raise CheckFailed("decompressing the compressed input did not give the input back")

    return summarize(results)


def check_lua(args, tools, work, exit_modes):
    script = os.path.join(HERE, "workload.lua")
    res, _ = run_step(args, tools, work, ("workload", [script, "out.txt"], "out.txt"),
                      exit_modes)
    return summarize([res])


def summarize(results):
    lines = []
    all_funcs = set()
    total = 0
    for r in results:
        n = sum(r["xray"].values())
        total += n
        all_funcs |= {f for f, c in r["xray"].items() if c}
        times = ", ".join("sledtrace %s %.2f s" % (m, s) for m, s in r["sled"].items())
        lines.append("%-12s %4d functions %9d calls equal; untraced %.2f s, "
                     "XRay basic %.2f s, %s (max depth %d)"
                     % (r["name"], sum(1 for c in r["xray"].values() if c), n,
                        r["untraced_s"], r["xray_s"], times, r["xray_detail"]["max_depth"]))
        for name, per_copy in sorted(r["xray_detail"]["merged"].items()):
            lines.append("%-12s   %s: %d same-named functions called, compared as one "
                         "(XRay per copy: %s)" % ("", name, len(per_copy), " + ".join(per_copy)))
    lines.append("total: %d distinct functions, %d calls, every count equal to XRay basic mode's"
                 % (len(all_funcs), total))
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
