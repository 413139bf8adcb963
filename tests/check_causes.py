#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_causes.py: causes across threads (docs/DESIGN.md, "Causes") on
fixtures whose causes are known by construction, read back through the
pola export by DuckDB (the self-join a user writes) and the Chrome export.

  pool      tests/fixtures/pool.c, --runs times: every work_item (as many as
            the fixture counted) is caused by a wakeup from submit on main,
            one submit each; every worker_main by a spawn from the one
            spawn_workers frame; child_work, in the forked child, by a spawn
            from fork_child in the parent.  The stats count the links; the
            Chrome export has one flow end per caused frame, each with its
            start, and each work_item's flow starts on main; folded stacks
            with --stitch put them all under their causes, calls exact.
            --stitch for chrome, or from standard input: exit 2.  Then once with
            --no-causes: no cause anywhere, and the stats say so.
  handoff   tests/fixtures/handoff.c with --flow='push_job:1=run_job:1': a
            worker that spins (never woken) runs each job main pushed; every
            run_job is caused by a hand-off from the push_job that passed
            the same job (the pola values file says which), stitched under
            it; without --flow none is.  Bad --flow specs (no function, no
            such argument, an argument that is not an integer): exit 2,
            one line.
  outwake   tests/fixtures/outwake.c: after_read, whose thread was woken last
            by this script (outside the trace) after nudge woke it, has no
            cause; reader_main has start_reader's spawn; the stats count
            wakeups from outside the trace.
  rayon     (--rayon FIXTURE: tests/fixtures/rayon, caller() maps work() over
            400 items with rayon's par_iter on 4 threads; --runs times)
            recorded with --flow=rayon: stitched, every work() call the
            fixture counted sits under caller(), and without --stitch none
            does (they ran on the pool's threads).
  waiter    (--waiter FIXTURE: tests/fixtures/waiter.c) report
            --critical-path=wait_result: main sleeps in wait_result until the
            other thread's produce (30 ms of CPU it times itself) and finish
            wake it.  The parts add up to the call's duration exactly, the
            largest function part is produce on the producer's thread,
            between the CPU time and the wall time the fixture measured
            (10% each way: time a VM's host takes from the vCPU is in no
            switch and in no thread's CPU clock).  Bad uses: exit 2 (or 1 when no
            call matches), one line.
  forker    (--forker FIXTURE --exec-target FIXTURE: tests/fixtures/forker.c)
            a forked child's first own frame is caused by the frame that
            forked it (spawner), and so is the first frame of the program a
            vforked child execs (vspawner): stitched, all of that program's
            calls sit under main;vspawner.
Python 3 standard library and node (tests/npm/read_parquet.mjs).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

import checklib
from checklib import CheckFailed, expect, verdict

COUNT_RE = re.compile(r"^COUNT (\d+) (\S+) (\d+)$")
TIMEOUT = 120
READER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "npm", "read_parquet.mjs")
SPAWN, WAKEUP, HANDOFF = 1, 2, 3


def run(argv):
    """The stdout of argv, which must exit 0."""
    return checklib.run(argv, timeout=TIMEOUT).stdout


def counts_of(out):
    """{function: total count} and {function: [tids]} from COUNT lines."""
    total, tids = {}, {}
    for m in filter(None, map(COUNT_RE.match, out.splitlines())):
        total[m.group(2)] = total.get(m.group(2), 0) + int(m.group(3))
        tids.setdefault(m.group(2), []).append(int(m.group(1)))
    return total, tids


def read_back(st, trace, tmp, values=None):
    """(causes, stats, chrome flows) of a trace, through its exports; values,
    a dict, gets {frame_id: [captured values as text]}."""
    pola = os.path.join(tmp, "t.pola")
    run([st, "convert", "--to=pola", "-o", pola, trace])
    got = json.loads(run(["node", READER, "duckdb", pola, pola + ".symtab", pola + ".values"]))
    for _, frame, _, text in got.get("values", []):
        (values if values is not None else {}).setdefault(frame, []).append(text)
    causes = [dict(zip(["fn", "tid", "frame", "kind", "cause_fn", "cause_tid", "cause_frame"],
                       r)) for r in got["causes"]]
    stats = json.loads(run([st, "report", "--format=json", trace]))["stats"]
    chrome = os.path.join(tmp, "t.json")
    run([st, "convert", "--to=chrome", "-o", chrome, trace])
    with open(chrome) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    flows = [e for e in events if e.get("cat") == "cause"]
    return causes, stats, flows


def of(causes, fn):
    return [c for c in causes if c["fn"] == fn]


def check_flows(causes, flows, main_tid, work_frames):
    starts = {e["id"]: e for e in flows if e["ph"] == "s"}
    ends = [e for e in flows if e["ph"] == "f"]
    expect(len(ends) == len(causes),
           "Chrome: %d flow ends for %d caused frames" % (len(ends), len(causes)))
    for e in ends:
        expect(e["id"] in starts, "Chrome: flow %s ends without a start" % e["id"])
        expect(starts[e["id"]]["name"] == e["name"], "Chrome: flow %s changes kind" % e["id"])
    work = [e for e in ends if e["name"] == "wakeup" and e["tid"] != main_tid]
    expect(sum(starts[e["id"]]["tid"] == main_tid for e in work) >= work_frames,
           "Chrome: work items' flows do not start on main")


def check_pool_run(st, fixture, tmp, i):
    trace = os.path.join(tmp, "pool%d.pftrace" % i)
    out = run([st, "record", "--quiet", "-o", trace, "--", fixture])
    total, tids = counts_of(out)
    main_tid = tids["spawn_workers"][0]
    causes, stats, flows = read_back(st, trace, tmp)
    work, workers, child = of(causes, "work_item"), of(causes, "worker_main"), of(causes,
                                                                                  "child_work")
    expect(len(work) == total["work_item"],
           "%d of %d work_item calls have a cause" % (len(work), total["work_item"]))
    bad = [c for c in work if (c["kind"], c["cause_fn"], c["cause_tid"]) !=
           (WAKEUP, "submit", main_tid)]
    expect(not bad, "work_item causes not a wakeup by submit on main: %s" % bad[:3])
    expect(len({c["cause_frame"] for c in work}) == total["submit"],
           "work items name %d submits of %d" % (len({c["cause_frame"] for c in work}),
                                                  total["submit"]))
    expect(len(workers) == total["worker_main"] and
           all((c["kind"], c["cause_fn"]) == (SPAWN, "spawn_workers") for c in workers) and
           len({c["cause_frame"] for c in workers}) == 1,
           "worker_main causes: %s" % workers)
    expect(len(child) == 1 and (child[0]["kind"], child[0]["cause_fn"], child[0]["cause_tid"])
           == (SPAWN, "fork_child", main_tid) and child[0]["tid"] != main_tid,
           "child_work causes: %s" % child)
    expect(stats.get("wakeups_linked", 0) >= total["work_item"] and
           stats.get("spawns_linked", 0) >= total["worker_main"] + 1,
           "stats: %s" % {k: v for k, v in stats.items() if "wake" in k or "spawn" in k})
    check_flows(causes, flows, main_tid, total["work_item"])
    check_stitched(st, trace, total)
    if i == 0:
        check_each_path(st, trace, total["work_item"])
    return len(work)


def check_each_path(st, trace, n):
    """--critical-path-calls beyond the calls: every call's path, slowest
    first, each adding up to its duration."""
    docs = [json.loads(ln) for ln in run([st, "report", "--critical-path=^work_item$",
                                           "--critical-path-calls=1000", "--format=json",
                                           trace]).splitlines()]
    expect(len(docs) == n and [d["rank"] for d in docs] == list(range(1, n + 1)) and
           all(a["duration_ns"] >= b["duration_ns"] for a, b in zip(docs, docs[1:])) and
           all(sum(p["ns"] for p in d["parts"]) == d["duration_ns"] for d in docs),
           "critical paths of each work_item: %d of %d, or out of order, or not adding up"
           % (len(docs), n))


def folded(st, trace, *extra):
    lines = run([st, "convert", "--to=folded", "--weight=calls"] + list(extra) + [trace])
    return {k: int(v) for k, v in (ln.rsplit(" ", 1) for ln in lines.splitlines())}


def check_stitched(st, trace, total):
    """convert --stitch draws each work item under its submit, each worker
    under spawn_workers and the child's work under fork_child; without it,
    where they ran."""
    got = folded(st, trace, "--stitch")
    calls = {}
    for path, n in got.items():
        fn = path.split(";")[-1]
        calls[fn] = calls.get(fn, 0) + n
    expect(got.get("main;submit;work_item") == total["work_item"],
           "stitched: %s work items under main;submit of %d: %s"
           % (got.get("main;submit;work_item"), total["work_item"], got))
    expect(got.get("main;spawn_workers;worker_main") == total["worker_main"],
           "stitched: workers not under spawn_workers: %s" % got)
    expect(sum(n for p, n in got.items() if p.endswith(";fork_child;child_work")) == 1,
           "stitched: child_work not under fork_child: %s" % got)
    plain = folded(st, trace)
    plain_calls = {}
    for path, n in plain.items():
        plain_calls[path.split(";")[-1]] = plain_calls.get(path.split(";")[-1], 0) + n
    expect(calls == plain_calls,
           "stitched: calls per function %s, unstitched %s" % (calls, plain_calls))
    expect(plain.get("worker_main;work_item") == total["work_item"],
           "unstitched: work items not under worker_main: %s" % plain)


def check_no_causes(st, fixture, tmp):
    trace = os.path.join(tmp, "none.pftrace")
    run([st, "record", "--quiet", "--no-causes", "-o", trace, "--", fixture])
    causes, stats, flows = read_back(st, trace, tmp)
    expect(not causes and not flows, "--no-causes: %d causes, %d flows" % (len(causes),
                                                                          len(flows)))
    expect(stats.get("no_causes") == 1 and not stats.get("wakeups"),
           "--no-causes: stats %s" % stats)


def check_bad_stitch(st, tmp):
    """--stitch where it means nothing, or from standard input: one line, exit 2."""
    trace = os.path.join(tmp, "pool0.pftrace")
    for argv, stdin in ([["--to=chrome", "--stitch", trace], None],
                        [["--to=folded", "--stitch", "-"], trace]):
        with open(stdin or os.devnull) as f:
            p = subprocess.run([st, "convert"] + argv, stdin=f, capture_output=True,
                               text=True, timeout=TIMEOUT)
        expect(p.returncode == 2 and len(p.stderr.splitlines()) == 1 and not p.stdout,
               "convert %s: exit %d, %r" % (" ".join(argv), p.returncode, p.stderr))


def check_handoff(st, fixture, tmp):
    trace = os.path.join(tmp, "handoff.pftrace")
    out = run([st, "record", "--quiet", "--flow=push_job:1=run_job:1", "-o", trace, "--",
               fixture])
    total, _ = counts_of(out)
    values = {}
    causes, stats, _ = read_back(st, trace, tmp, values)
    runs = of(causes, "run_job")
    expect(len(runs) == total["run_job"] and
           all((c["kind"], c["cause_fn"]) == (HANDOFF, "push_job") for c in runs),
           "run_job causes: %s" % runs[:3])
    expect(all(values.get(c["frame"]) == values.get(c["cause_frame"]) and values.get(c["frame"])
               for c in runs), "a run_job's job is not its cause's: %s"
           % [(values.get(c["frame"]), values.get(c["cause_frame"])) for c in runs][:3])
    expect(len({c["cause_frame"] for c in runs}) == total["push_job"] and
           stats.get("handoffs_linked") == total["run_job"],
           "hand-offs: %d distinct pushes of %d; stats %s" % (
               len({c["cause_frame"] for c in runs}), total["push_job"],
               {k: v for k, v in stats.items() if "hand" in k}))
    expect(folded(st, trace, "--stitch").get("main;push_job;run_job") == total["run_job"],
           "stitched: run_job not under push_job")
    plain = os.path.join(tmp, "plain.pftrace")
    run([st, "record", "--quiet", "-o", plain, "--", fixture])
    causes, _, _ = read_back(st, plain, tmp)
    expect(not [c for c in of(causes, "run_job") if c["kind"] == HANDOFF] and
           not folded(st, plain, "--stitch").get("main;push_job;run_job"),
           "without --flow, run_job is linked to push_job")
    for flow in ["nosuch:1=run_job:1", "push_job:7=run_job:1", "push_job:1=run_job:2",
                 "push_job:1=weigh:1", "push_job:1"]:
        p = subprocess.run([st, "record", "--quiet", "--flow=" + flow, "-o",
                            os.path.join(tmp, "bad.pftrace"), "--", fixture],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=TIMEOUT)
        expect(p.returncode == 2 and len(p.stderr.splitlines()) == 1 and not p.stdout and
               not os.path.exists(os.path.join(tmp, "bad.pftrace")),
               "--flow=%s: exit %d, %r" % (flow, p.returncode, p.stderr))


def check_rayon(st, fixture, tmp, runs):
    for i in range(runs):
        trace = os.path.join(tmp, "rayon%d.pftrace" % i)
        total, _ = counts_of(run([st, "record", "--quiet", "--flow=rayon", "-o", trace, "--",
                                  fixture]))
        expect(total.get("caller") == 1 and total.get("work") == 400,
               "rayon fixture counted %s" % total)
        for stitch, want in ((True, total["work"]), (False, 0)):
            got = folded(st, trace, *(["--stitch"] if stitch else []))
            under = sum(n for p, n in got.items() if p.endswith(";rayon_work::work")
                        and "rayon_work::caller" in p.split(";"))
            calls = sum(n for p, n in got.items() if p.endswith(";rayon_work::work"))
            expect(under == want and calls == total["work"],
                   "run %d%s: %d of %d work() calls under caller(), want %d"
                   % (i, " stitched" if stitch else "", under, calls, want))


def check_waiter(st, fixture, tmp):
    trace = os.path.join(tmp, "waiter.pftrace")
    out = run([st, "record", "--quiet", "-o", trace, "--", fixture])
    produced = int(re.search(r"^PRODUCE_NS (\d+)$", out, re.M).group(1))
    produced_wall = int(re.search(r"^PRODUCE_WALL_NS (\d+)$", out, re.M).group(1))
    _, tids = counts_of(out)
    doc = json.loads(run([st, "report", "--critical-path=^wait_result$", "--format=json",
                          trace]))
    parts = doc["parts"]
    expect(doc["function"] == "wait_result" and doc["calls"] == 1 and
           doc["tid"] == tids["wait_result"][0], "critical path of %s" % doc)
    expect(sum(p["ns"] for p in parts) == doc["duration_ns"],
           "parts add up to %d, the call lasted %d" % (sum(p["ns"] for p in parts),
                                                       doc["duration_ns"]))
    # on a busy machine the producer may wait for a CPU longer than it ran:
    # produce's part is its running time, wherever it ranks
    funcs = [p for p in parts if not p["what"].startswith("(")]
    top = funcs[0] if funcs else {}
    expect((top.get("what"), top.get("tid")) == ("produce", tids["produce"][0]),
           "largest function part %s, not produce on thread %s" % (top, tids["produce"][0]))
    # A switch the trace did not get (dropped, or a return to the CPU it
    # inferred from a later call: switch_drops, switches_inferred) leaves
    # on-CPU time short, and the stats say so: then produce's part may be
    # below its own CPU clock's.  It is at most its own wall time: on a VM
    # the time the host takes the vCPU away is in no switch (the thread
    # looks running) and in no thread's CPU clock (steal time is taken
    # out), so on-CPU time lies between the two (10% each way).
    stats = json.loads(run([st, "report", "--format=json", trace]))["stats"]
    short = stats.get("switch_drops", 0) or stats.get("switches_inferred", 0)
    low = 0 if short else produced - produced // 10
    expect(low <= top["ns"] <= produced_wall + produced_wall // 10,
           "produce's part %d ns, it ran %d ns of CPU in %d ns (its own clocks); switches "
           "%s, dropped %s, inferred %s; the parts: %s"
           % (top["ns"], produced, produced_wall, stats.get("switches"),
              stats.get("switch_drops"), stats.get("switches_inferred"),
              [(p["what"], p.get("tid"), p["ns"]) for p in parts]))
    for argv, code in ((["--critical-path=wait_result", "--by-thread", trace], 2),
                       (["--critical-path=(", trace], 2),
                       (["--critical-path=no_such_function", trace], 1)):
        p = subprocess.run([st, "report"] + argv, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=TIMEOUT)
        expect(p.returncode == code and len(p.stderr.splitlines()) == 1 and not p.stdout,
               "report %s: exit %d, %r" % (" ".join(argv), p.returncode, p.stderr))
    with open(trace) as f:
        p = subprocess.run([st, "report", "--critical-path=wait_result", "-"], stdin=f,
                           capture_output=True, text=True, timeout=TIMEOUT)
    expect(p.returncode == 2 and len(p.stderr.splitlines()) == 1,
           "report --critical-path from standard input: exit %d, %r" % (p.returncode,
                                                                        p.stderr))


def check_forker(st, fixture, target, tmp):
    trace = os.path.join(tmp, "forker.pftrace")
    run([st, "record", "--quiet", "-o", trace, "--", fixture, target])
    causes, _, _ = read_back(st, trace, tmp)
    # the spawns, by construction; a wakeup of the parent by its children
    # (their exits, their output) may link more, by the rules
    got = sorted((c["fn"], c["kind"], c["cause_fn"]) for c in causes if c["kind"] == SPAWN)
    name = os.path.basename(target)
    expect(got == sorted([("c_work", SPAWN, "spawner"), ("main [%s]" % name, SPAWN, "vspawner")]),
           "forker spawns: %s" % got)
    paths = folded(st, trace, "--stitch")
    bad = [p for p in paths if "[%s]" % name in p and ";vspawner;main [%s]" % name not in p]
    expect(not bad and any("[%s]" % name in p for p in paths),
           "stitched: the exec'd program's calls not under vspawner: %s" % bad[:3])


def check_outwake(st, fixture, tmp):
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    trace = os.path.join(tmp, "out.pftrace")
    p = subprocess.Popen([st, "record", "--quiet", "-o", trace, "--", fixture, fifo],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + TIMEOUT
    while not os.path.exists(fifo + ".ready"):
        if p.poll() is not None or time.monotonic() > deadline:
            p.kill()
            raise CheckFailed("outwake never got ready: %s" % p.communicate()[1])
        time.sleep(0.01)
    fd = os.open(fifo, os.O_WRONLY)  # the reader holds it open read-write
    os.write(fd, b"x")
    os.close(fd)
    out, err = p.communicate(timeout=TIMEOUT)
    expect(p.returncode == 0, "record exited %d:\n%s" % (p.returncode, err))
    total, _ = counts_of(out)
    expect(total.get("after_read") == 1, "outwake counted %s" % total)
    causes, stats, _ = read_back(st, trace, tmp)
    expect(not of(causes, "after_read"),
           "after_read has a cause, but an untraced process woke it: %s"
           % of(causes, "after_read"))
    reader = of(causes, "reader_main")
    expect(len(reader) == 1 and (reader[0]["kind"], reader[0]["cause_fn"]) ==
           (SPAWN, "start_reader"), "reader_main causes: %s" % reader)
    # main's naps end in a timer interrupt, or in ksoftirqd (a kernel thread:
    # outside) when the machine is busy; the test's write is outside
    expect(stats.get("wakeups_from_outside", 0) >= 1,
           "stats: %s" % {k: v for k, v in stats.items() if "wake" in k})


def check(a):
    with tempfile.TemporaryDirectory() as tmp:
        if a.pool:
            n = sum(check_pool_run(a.sledtrace, a.pool, tmp, i) for i in range(a.runs))
            print("ok: %d runs of the pool, %d work items each caused by their submit, "
                  "spawns by their creators" % (a.runs, n))
            check_no_causes(a.sledtrace, a.pool, tmp)
            check_bad_stitch(a.sledtrace, tmp)
            print("ok: --no-causes records none")
        if a.handoff:
            check_handoff(a.sledtrace, a.handoff, tmp)
            print("ok: hand-offs by value link every job to its push; bad --flow: exit 2")
        if a.outwake:
            check_outwake(a.sledtrace, a.outwake, tmp)
            print("ok: a wakeup from outside the trace leaves the next frame without cause")
        if a.waiter:
            for _ in range(a.runs):
                check_waiter(a.sledtrace, a.waiter, tmp)
            print("ok: the critical path of wait_result is the other thread's produce")
        if a.forker:
            check_forker(a.sledtrace, a.forker, a.exec_target, tmp)
            print("ok: a fork and an exec after a vfork are caused by the frames that "
                  "made them")
        if a.rayon:
            check_rayon(a.sledtrace, a.rayon, tmp, a.runs)
            print("ok: %d runs of rayon's par_iter, every work() under caller() when "
                  "stitched" % a.runs)
        if not (a.pool or a.handoff or a.outwake or a.rayon or a.waiter or a.forker):
            raise CheckFailed("nothing to check")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--pool")
    ap.add_argument("--outwake")
    ap.add_argument("--handoff")
    ap.add_argument("--rayon")
    ap.add_argument("--waiter")
    ap.add_argument("--forker")
    ap.add_argument("--exec-target")
    ap.add_argument("--runs", type=int, default=10)
    a = ap.parse_args()
    return verdict(check, a, errors=(subprocess.TimeoutExpired, KeyError, ValueError),
                   passed=None)


if __name__ == "__main__":
    sys.exit(main())
