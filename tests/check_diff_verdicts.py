#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_diff_verdicts.py: the verdicts and the per-call-path rules of
`sledtrace diff`, with check_diff.py's recordings and helpers.

Cases (--case):
  verdicts   tests/fixtures/gatework.c (24 functions of steady work), 5 runs
             as base then 5 as head, not interleaved: the same build passes
             `self>10%`; w7 made three times as slow fires it and nothing
             else does, with a significant estimate near +200%, and with
             --function=^w7$ too, whose shift is still measured on every
             function; `self>0.5%` with no floor, which 5 runs of ~3% noise
             cannot clear, lists the functions it does not clear (none
             that it fired or hesitated on), alike in JSON, CSV, the table
             and the markdown;
             one run a side is inconclusive, and
             --inconclusive=fail exits 1.  At 99.9%
             confidence, so that a test run fails by chance (a false alarm
             in A/A, a miss in A/B) about once in a thousand, not once in
             twenty: bench/gate measures the default's rates
  paths      per-call-path rules (edge-calls) on diffwork: moved keeps its
             100 calls but 40 come from steady in the candidate, which only
             a path rule sees; path counts equal the fixture's own, in JSON
             and in the markdown's call-path table
  cpu        rules on on-CPU time (cpu, cpu-self) on diffwork but hot
             (below), 5 runs a side with the scheduler's switches (with the
             argument `nap` main sleeps 1 ms, so there are some at
             real-time priority): slow
             spins 20x longer on the CPU and fires `cpu-self>200%` alone,
             `cpu>200%` on slow, and on main (whose total holds slow) or is
             inconclusive there, nothing else; on-CPU medians are at most the wall ones, and main's
             self time less its cpu-self is at least its 1 ms of sleep
             (less 10%); the table and markdown have the on-CPU columns.
             Two base runs recorded --no-sched among them (their stats say
             no_sched=1, the others 0): a note counts the runs recorded so;
             every run --no-sched: no on-CPU columns, cpu-self is self time
             to the last digit (estimates too), each on-CPU rule judges
             every function as its wall-time twin does (self>200%,
             total>200%), and a note says so.  Runs without switches carry
             the machine's waits (under a loaded CI main's wall self time
             spread from 2 to 41 ms between runs), so there no firing is
             expected; only that no pass clears slow's 20x change
Python 3 standard library only (plus cmark-gfm for markdown).
"""

import csv
import io
import json
import sys

from check_diff import (GATE_FUNCS, CheckFailed, check_counts, expect_fired, fired, main,
                        markdown_tables, record_sides, rows, sides_args, tables_by_head)


def gate_sides(env, nbase, nhead, head_build):
    """Base runs, then head runs: not interleaved, so any drift is in."""
    base = [env.record("gbase", "gb-%d" % i) for i in range(nbase)]
    head = [env.record(head_build, "gh-%s-%d" % (head_build, i)) for i in range(nhead)]
    return base, head


SURE = "--confidence=99.9%"


def check_uncleared(env, base, same):
    """A rule finer than the runs' noise: a pass that does not clear.  (A
    burst of load in one phase may make it fire on some function, rightly:
    the functions it names are then the others.)"""
    args = sides_args(base, same) + ["--fail-on=self>0.5%", "--noise-floor=0%", SURE]
    doc, _ = env.diff_json(*args)
    named = [r for r in doc["functions"] if "self>0.5%" in r["uncleared"]]
    if not named or doc["rules"][0]["uncleared"] != len(named):
        raise CheckFailed("self>0.5%%: fired %s, not cleared %s, counted %s"
                          % (doc["fired"], [r["function"] for r in named], doc["rules"]))
    for r in named:
        est = r["self"]["estimate"]
        if r["fired"] or r["inconclusive"] or not est["tested"] or est["high_pct"] <= 0.5:
            raise CheckFailed("%s is not cleared, yet: %s" % (r["function"], r))
    text = env.diff("--format=csv", *args).stdout
    csv_named = {r["function"] for r in csv.DictReader(io.StringIO(text, newline=""))
                 if r["uncleared"] == "self>0.5%"}
    table = env.diff(*args).stdout
    markdown = env.diff(*args, "--format=markdown").stdout
    note = "self>0.5%%: a pass does not clear %d functions" % len(named)
    if len(named) == 1:
        note = "self>0.5%: a pass does not clear " + named[0]["function"]
    if csv_named != {r["function"] for r in named} or note not in table or note not in markdown:
        raise CheckFailed("not cleared: JSON %s, CSV %s; %r in the table: %s, the markdown: %s"
                          % ([r["function"] for r in named], sorted(csv_named), note,
                             note in table, note in markdown))
    if doc["verdict"] == "pass" and ("too noisy to clear" not in table or
                                     "too noisy to clear" not in markdown):
        raise CheckFailed("the pass does not say what it did not clear:\n" + table)
    print("self>0.5%% passes without clearing %d of %d functions"
          % (len(named), len(doc["functions"])))


def case_verdicts(env):
    base, same = gate_sides(env, 5, 5, "gbase")
    doc, _ = env.diff_json(*sides_args(base, same), "--fail-on=self>10%", "--fail-on=calls>0%",
                           SURE, expect=0)
    if doc["fired"] or doc["verdict"] == "fail" or not doc["shift"]["measured"]:
        raise CheckFailed("A/A: verdict %r, fired %s, shift %s" % (doc["verdict"], doc["fired"],
                                                                  doc["shift"]))
    check_uncleared(env, base, same)
    _, slow = gate_sides(env, 0, 5, "gslow")
    doc, _ = env.diff_json(*sides_args(base, slow), "--fail-on=self>10%", "--fail-on=calls>0%",
                           SURE, expect=1)
    expect_fired(doc, {("self>10%", "w7")}, "w7 three times as slow")
    w7 = rows(doc, GATE_FUNCS)["w7"]["self"]["estimate"]
    if not w7["significant"] or not 100 < w7["change_pct"] < 400 or w7["low_pct"] <= 10:
        raise CheckFailed("w7's estimate: %s" % w7)
    # --function shows and tests w7 alone; the machine's shift is still
    # the whole program's (24 functions), not one function's (none)
    doc, _ = env.diff_json(*sides_args(base, slow), "--fail-on=self>10%", "--function=^w7$",
                           SURE, expect=1)
    expect_fired(doc, {("self>10%", "w7")}, "w7 alone by --function")
    if [r["function"] for r in doc["functions"]] != ["w7"] or \
            not doc["shift"]["measured"] or doc["shift"]["functions"] < 20:
        raise CheckFailed("--function=^w7$: functions %s, shift %s"
                          % ([r["function"] for r in doc["functions"]], doc["shift"]))
    doc, p = env.diff_json(base[0], slow[0], "--fail-on=self>10%", expect=0)
    if doc["verdict"] != "inconclusive" or doc["fired"]:
        raise CheckFailed("one run a side: verdict %r, fired %s" % (doc["verdict"], doc["fired"]))
    env.diff(base[0], slow[0], "--fail-on=self>10%", "--inconclusive=fail", expect=1)
    table = env.diff(base[0], slow[0], "--fail-on=self>10%", expect=0).stdout
    if "INCONCLUSIVE: the runs cannot decide" not in table:
        raise CheckFailed("the table does not say inconclusive:\n" + table)
    print("A/A passes, a 3x slowdown of w7 fires alone (%+.1f%%), one run is inconclusive"
          % w7["change_pct"])


def case_paths(env):
    base, head = record_sides(env, 3, 3)
    doc, p = env.diff_json(*sides_args(base, head), "--fail-on=calls>0%", "--fail-on=calls<0%",
                           "--fail-on=edge-calls>0%", "--fail-on=edge-calls<0%:-> moved$",
                           expect=1)
    edges = {(e["caller"], e["callee"]): e for e in doc["edges"]}
    for side, build in (("base", "base"), ("head", "head")):
        want = env.edges[build]
        got = {k: e["calls"][side]["median"] for k, e in edges.items()
               if e["calls"][side]["median"]}
        if got != want:
            raise CheckFailed("%s call paths %s, the fixture counted %s" % (side, got, want))
    want = {("calls>0%", "hot"), ("edge-calls>0%", "main -> hot"),
            ("edge-calls>0%", "steady -> moved"), ("edge-calls<0%:-> moved$", "main -> moved")}
    got = {(f["rule"], f["target"]) for f in doc["fired"]}
    if got != want:
        raise CheckFailed("fired %s, expected %s" % (sorted(got), sorted(want)))
    if rows(doc)["moved"]["calls"]["change"] != 0:
        raise CheckFailed("moved's count changed: the path is the only difference")
    md = env.diff(*sides_args(base, head), "--format=markdown", expect=0).stdout
    paths = tables_by_head(markdown_tables(env, md)[0]).get(("caller", "callee"), [[]])[0]
    if ["steady", "moved", "0", "40", "new"] not in paths:
        raise CheckFailed("markdown call paths: %s" % paths)
    print("per-call-path rules see moved's calls move from main to steady")


# hot is left out: in head, where slow holds 94% of the run, hot holds
# about 0.1%, the share that makes a function one of those the shared shift
# is measured on; in some runs it is, and with four such functions slow
# alone sets the shift (by its weight) and nothing can fire.  That is
# check_diff.py's `self` rules' lot too, not the on-CPU metrics'.
CPU_FUNCS = {"main", "slow", "steady", "moved"}
CPU_RULES = ["--fail-on=cpu-self>200%", "--fail-on=cpu>200%", "--min-time=5ms",
             "--function=^(%s)$" % "|".join(sorted(CPU_FUNCS))]
CPU_FIRED = {("cpu-self>200%", "slow"), ("cpu>200%", "slow"), ("cpu>200%", "main")}


# The wall-time twins of CPU_RULES' first two: without switches they must
# judge alike, function by function.
WALL_RULES = ["--fail-on=self>200%", "--fail-on=total>200%"]


def expect_judged(doc, what):
    """With switches: slow fires both on-CPU rules, main's cpu (its total,
    which holds slow, and main's own time: a burst of load in one phase has
    left it inconclusive, p = 0.055) fires or is inconclusive, and nothing
    else fires."""
    findings = fired(doc) | {(f["rule"], f.get("function", f["target"]))
                             for f in doc["inconclusive"]}
    sure = {("cpu-self>200%", "slow"), ("cpu>200%", "slow")}
    if not fired(doc) <= CPU_FIRED or not CPU_FIRED <= findings or not sure <= fired(doc):
        raise CheckFailed("%s: fired %s, inconclusive %s; expected %s, main's cpu in either\n%s"
                          % (what, sorted(fired(doc)), doc["inconclusive"], sorted(CPU_FIRED),
                             json.dumps(doc, indent=1)))


def expect_not_cleared(doc, what):
    """Runs recorded --no-sched have wall times for on-CPU ones, with a
    loaded machine's waits in them: a burst of load in one phase has made
    main's wall self time fire `cpu-self>200%` (rightly: it did triple),
    and left slow's 20x change unconfirmed.  What holds whatever the load:
    slow's change is never cleared by a pass (it fires, is inconclusive,
    or is named as not cleared)."""
    slow = rows(doc, CPU_FUNCS)["slow"]
    if not any("cpu-self>200%" in slow[k] for k in ("fired", "inconclusive", "uncleared")):
        raise CheckFailed("%s: a pass cleared slow's 20x change: %s" % (what, slow))


def table_titles(table):
    head = table.splitlines()[0].split()
    return [w for w in head if w not in ("base", "head", "change", "FUNCTION")]


def case_cpu(env):
    base, head = record_sides(env, 5, 5, nap=True)
    args = sides_args(base, head) + CPU_RULES
    doc, _ = env.diff_json(*args, expect=1)
    runs = doc["runs"]["base"] + doc["runs"]["head"]
    if not all(r["stats"]["switches"] > 0 for r in runs):
        raise CheckFailed("default recordings without scheduler switches: %s"
                          % [r["stats"] for r in runs])
    if any(r["stats"]["no_sched"] for r in runs) or any("--no-sched" in n for n in doc["notes"]):
        raise CheckFailed("default recordings taken for --no-sched ones: %s, notes %s"
                          % ([r["stats"] for r in runs], doc["notes"]))
    expect_judged(doc, "on-CPU rules")
    check_counts(env, doc, names=CPU_FUNCS)
    est = rows(doc, CPU_FUNCS)["slow"]["cpu-self"]["estimate"]
    # Its interval is not held to 200%: of diffwork's four functions, slow
    # holds 94% of head, and a load burst in one phase widens the shared
    # shift's error enough to reach below 200% (192% seen, under two busy
    # loops started mid-test) while the one-sided test still fires.
    if not est["significant"] or est["change_pct"] <= 200 or est["low_pct"] <= 0:
        raise CheckFailed("slow's cpu-self estimate: %s" % est)
    # main's 1 ms sleep, in raw times: compensation takes every probe hit
    # of main's callees out of main's self time, and where the hits cost
    # more than main's own work between its calls (slow traps, a loaded
    # machine) the compensated figures clamp: cpu-self at 0, self below
    # the sleep (0.86 ms seen once in CI)
    raw, _ = env.diff_json(*args, "--times=raw")
    main_ = rows(raw, CPU_FUNCS)["main"]
    for side in ("base", "head"):
        waited = main_["self"][side]["median"] - main_["cpu-self"][side]["median"]
        if waited < 900e3:
            raise CheckFailed("main sleeps 1 ms in its own self time, yet %s's self less "
                              "cpu-self is %d ns: %s" % (side, waited, main_))
    table = env.diff(*args, expect=1).stdout
    if table_titles(table) != ["CALLS", "SELF", "CPU-SELF", "TOTAL", "CPU", "AVG"] or \
            "cpu-self>200% fired on slow: cpu-self " not in table:
        raise CheckFailed("the table with switches:\n" + table)
    md = env.diff("--format=markdown", *args, expect=1).stdout
    functions = tables_by_head(markdown_tables(env, md)[0]).get(("", "function"), [[[]]])[0]
    if functions[0][8:11] != ["cpu-self base", "cpu-self head", "Δ cpu-self"]:
        raise CheckFailed("markdown functions header: %s" % functions[0])

    # Runs without switches: their on-CPU times are wall times.  5 runs a
    # side, as everywhere in this case: with 2 or 3, one run the host
    # paused (steal time) could leave slow's change unconfirmed
    nosched = [env.record("base", "nosched-base-%d" % i, extra=["--no-sched"], nap=True)
               for i in range(5)]
    doc, _ = env.diff_json(*sides_args(nosched[:2] + base[:3], head), *CPU_RULES)
    expect_not_cleared(doc, "on-CPU rules, runs with and without switches")
    if [r["stats"]["no_sched"] for r in doc["runs"]["base"]] != [1, 1, 0, 0, 0]:
        raise CheckFailed("no_sched in the base runs' stats: %s" % doc["runs"]["base"])
    if not any("2 of the 10 runs were recorded with --no-sched" in n for n in doc["notes"]):
        raise CheckFailed("no note on the runs without switches: %s" % doc["notes"])
    heads = [env.record("head", "nosched-head-%d" % i, extra=["--no-sched"], nap=True)
             for i in range(5)]
    args = sides_args(nosched, heads) + CPU_RULES
    doc, _ = env.diff_json(*args, *WALL_RULES)
    expect_not_cleared(doc, "on-CPU rules without switches")
    for name, r in rows(doc, CPU_FUNCS).items():
        if r["cpu-self"] != r["self"] or r["cpu"] != r["total"]:
            raise CheckFailed("%s: without switches on-CPU is wall time: %s" % (name, r))
        for cpu_rule, wall_rule in zip(CPU_RULES, WALL_RULES):
            for verdict in ("fired", "inconclusive", "uncleared"):
                if (cpu_rule[10:] in r[verdict]) != (wall_rule[10:] in r[verdict]):
                    raise CheckFailed("%s: without switches %s judges unlike %s: %s"
                                      % (name, cpu_rule, wall_rule, r))
    if not any("every run was recorded with --no-sched" in n for n in doc["notes"]):
        raise CheckFailed("no note on runs without switches: %s" % doc["notes"])
    table = env.diff(*args).stdout
    if table_titles(table) != ["CALLS", "SELF", "TOTAL", "AVG"]:
        raise CheckFailed("the table without switches:\n" + table)
    print("cpu-self>200%% fires on slow alone (%+.0f%%), main waited %.2f ms; runs without "
          "switches are noted" % (est["change_pct"], waited / 1e6))


CASES = {"verdicts": case_verdicts, "paths": case_paths, "cpu": case_cpu}

if __name__ == "__main__":
    sys.exit(main(CASES, __doc__))
