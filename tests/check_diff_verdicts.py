#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_diff_verdicts.py: the verdicts and the per-call-path rules of
`sledtrace diff`, with check_diff.py's recordings and helpers.

Cases (--case):
  verdicts   tests/fixtures/gatework.c (24 functions of steady work), 5 runs
             as base then 5 as head, not interleaved: the same build passes
             `self>10%`; w7 made twice as slow fires it and nothing else
             does, with a significant estimate near +100%; one run a side
             is inconclusive, and --inconclusive=fail exits 1.  At 99.9%
             confidence, so that a test run fails by chance (a false alarm
             in A/A, a miss in A/B) about once in a thousand, not once in
             twenty: bench/gate measures the default's rates
  paths      per-call-path rules (edge-calls) on diffwork: moved keeps its
             100 calls but 40 come from steady in the candidate, which only
             a path rule sees; path counts equal the fixture's own, in JSON
             and in the markdown's call-path table
Python 3 standard library only (plus cmark-gfm for markdown).
"""

import sys

from check_diff import (GATE_FUNCS, CheckFailed, expect_fired, main, markdown_tables,
                        record_sides, rows, sides_args, tables_by_head)


def gate_sides(env, nbase, nhead, head_build):
    """Base runs, then head runs: not interleaved, so any drift is in."""
    base = [env.record("gbase", "gb-%d" % i) for i in range(nbase)]
    head = [env.record(head_build, "gh-%s-%d" % (head_build, i)) for i in range(nhead)]
    return base, head


SURE = "--confidence=99.9%"


def case_verdicts(env):
    base, same = gate_sides(env, 5, 5, "gbase")
    doc, _ = env.diff_json(*sides_args(base, same), "--fail-on=self>10%", "--fail-on=calls>0%",
                           SURE, expect=0)
    if doc["fired"] or doc["verdict"] == "fail" or not doc["shift"]["measured"]:
        raise CheckFailed("A/A: verdict %r, fired %s, shift %s" % (doc["verdict"], doc["fired"],
                                                                  doc["shift"]))
    _, slow = gate_sides(env, 0, 5, "gslow")
    doc, _ = env.diff_json(*sides_args(base, slow), "--fail-on=self>10%", "--fail-on=calls>0%",
                           SURE, expect=1)
    expect_fired(doc, {("self>10%", "w7")}, "w7 twice as slow")
    w7 = rows(doc, GATE_FUNCS)["w7"]["self"]["estimate"]
    if not w7["significant"] or not 50 < w7["change_pct"] < 200 or w7["low_pct"] <= 10:
        raise CheckFailed("w7's estimate: %s" % w7)
    doc, p = env.diff_json(base[0], slow[0], "--fail-on=self>10%", expect=0)
    if doc["verdict"] != "inconclusive" or doc["fired"]:
        raise CheckFailed("one run a side: verdict %r, fired %s" % (doc["verdict"], doc["fired"]))
    env.diff(base[0], slow[0], "--fail-on=self>10%", "--inconclusive=fail", expect=1)
    table = env.diff(base[0], slow[0], "--fail-on=self>10%", expect=0).stdout
    if "INCONCLUSIVE: the runs cannot decide" not in table:
        raise CheckFailed("the table does not say inconclusive:\n" + table)
    print("A/A passes, a 2x slowdown of w7 fires alone (%+.1f%%), one run is inconclusive"
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


CASES = {"verdicts": case_verdicts, "paths": case_paths}

if __name__ == "__main__":
    sys.exit(main(CASES, __doc__))
