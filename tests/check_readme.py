#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_readme.py: the recipes of README.md, run as written.

Each recipe is a fenced shell block after a line `<!-- recipe: NAME -->`
(tests/doc_recipes.py).  Every one is run with bash (set -eu) in a fresh
temporary directory, with the build's sledtrace first on PATH, and with
only the substitutions the README's own words imply:
  trace   the block compiles examples/demo.c "in the checkout": the
          directory holds a copy of the checkout's examples/.
  attach  `PID` is the pid of tests/fixtures/attachee, which this test
          starts; once sledtrace says it attached, the test opens the
          fixture's call window (SIGUSR1) and closes it a second later
          (SIGUSR2), long before the block's --duration ends.
  pnpm    the block runs "in the workspace": a copy of tests/pnpm whose
          tests load the addon meson built (tests/check_pnpm.py).
  ci      base/bench and head/bench are tests/fixtures/diffwork.c built
          plainly and with -DDIFF_HEAD (by meson).
Then each recipe's effect is checked, against what the programs print:
  trace   every function `sledtrace list` shows is in the report, and
          parse_line and digest_line ran once per line the demo says it
          read; the report was printed; the flame graph is an SVG.
  attach  the trace holds exactly the calls the fixture counted in its
          window, per thread; the process runs on, its code equal to the
          file.
  pnpm    exactly the addon's own counts in each node process.
  ci      the block exits 1, and `calls>0%` fired on exactly the functions
          whose counts the two builds print differently, with those counts.
The README must mark exactly these recipes.

Usage: check_readme.py --sledtrace PATH --readme README.md --source-root DIR
         --attachee PATH --diff-base PATH --diff-head PATH
         [--pnpm PATH --addon PATH --workspace DIR] [--recipe NAME]
Python 3 standard library only.
"""

import argparse
import collections
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_attach  # noqa: E402
import check_counts  # noqa: E402
import check_pnpm  # noqa: E402
import check_targets  # noqa: E402
import doc_recipes  # noqa: E402

CheckFailed = check_counts.CheckFailed
WINDOW_S = 1.0


def ran(block, cwd, env):
    status, output = doc_recipes.run(block, cwd, env)
    if status != 0:
        raise CheckFailed("the recipe exited %d:\n%s" % (status, output[-6000:]))
    return output


def per_function(rows):
    calls = collections.Counter()
    for (_, func), (n, _, _) in rows.items():
        calls[func] += n
    return calls


def check_trace(a, block, tmp, env):
    shutil.copytree(os.path.join(a.source_root, "examples"), os.path.join(tmp, "examples"))
    output = ran(block, tmp, env)
    print(output[-3000:])
    m = re.search(r"^(\d+) lines, ", output, re.M)
    if not m:
        raise CheckFailed("the demo did not say how many lines it read")
    listed, _ = check_targets.listed_functions(a.sledtrace, os.path.join(tmp, "prog"))
    rows, _ = check_counts.get_report(a.sledtrace, os.path.join(tmp, "prog.pftrace"), 60)
    calls = per_function(rows)
    problems = ["%s has sleds but is not in the report" % f for f in sorted(listed - set(calls))]
    problems += ["%s ran %d times, the demo read %s lines" % (f, calls[f], m.group(1))
                 for f in ("parse_line", "digest_line") if calls[f] != int(m.group(1))]
    if not re.search(r"^ +CALLS .* FUNCTION$", output, re.M):
        problems.append("the recipe printed no report table")
    if ET.parse(os.path.join(tmp, "prog.svg")).getroot().tag != "{http://www.w3.org/2000/svg}svg":
        problems.append("prog.svg is not an SVG document")
    return problems


def check_attach_recipe(a, block, tmp, env):
    if len(re.findall(r"\bPID\b", block)) != 1:
        raise CheckFailed("the attach recipe should name PID once:\n" + block)
    target = check_attach.Target(a.attachee, False)
    try:
        rec = subprocess.Popen(doc_recipes.bash_argv(re.sub(r"\bPID\b", str(target.pid), block)),
                               cwd=tmp, env=env, stdin=subprocess.DEVNULL, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            check_attach.wait_attached(rec)
            target.proc.send_signal(signal.SIGUSR1)
            time.sleep(WINDOW_S)
            target.proc.send_signal(signal.SIGUSR2)
            expected = target.read_counts()
            out, err = rec.communicate(timeout=120)
        finally:
            if rec.poll() is None:
                rec.kill()
                rec.wait()
        if rec.returncode != 0:
            raise CheckFailed("the recipe exited %d:\n%s%s" % (rec.returncode, out, err))
        print(out)
        problems = [] if target.code_equals_file() else ["after detach the code differs"]
        target.finish()
    finally:
        target.kill()
    rows, _ = check_counts.get_report(a.sledtrace, os.path.join(tmp, "running.pftrace"), 60)
    if not expected:
        problems.append("the fixture made no calls in its window")
    return problems + check_counts.compare_counts(expected, rows)


def check_pnpm_recipe(a, block, tmp, env):
    if not (a.pnpm and a.addon and a.workspace):
        raise CheckFailed("pnpm or node-api-headers not installed: run scripts/bootstrap")
    ws, counts_dir, ws_env = check_pnpm.prepare(tmp, a.workspace, a.addon, a.pnpm, env)
    output = ran(block, ws, ws_env)
    print(output[-3000:])
    problems, summary, counts = check_pnpm.check_trace(
        a.sledtrace, os.path.join(ws, "pnpm.pftrace"), ws, counts_dir, output)
    print(summary)
    # What the user reads: the report's row of each node process and function.
    shown = {(int(m.group(1)), m.group(3), int(m.group(2))) for m in
             re.finditer(r"^ *(\d+) node +(\d+) .* (\S+)$", output, re.M)}
    return problems + ["the report shows no row `%d node %d ... %s`" % (pid, n, f)
                       for (pid, f), n in sorted(counts.items()) if (pid, f, n) not in shown]


def printed_counts(binary):
    status, out, err = check_counts.run([binary], 60, binary)
    if status != 0:
        raise CheckFailed("%s exited %d: %s" % (binary, status, err))
    counts = collections.Counter()
    for (_, func), n in check_counts.parse_counts(out, binary)[0].items():
        counts[func] += n
    return counts


def check_ci(a, block, tmp, env):
    sides = {}
    for side, build in (("base", a.diff_base), ("head", a.diff_head)):
        os.mkdir(os.path.join(tmp, side))
        shutil.copy(build, os.path.join(tmp, side, "bench"))
        sides[side] = printed_counts(build)
    want = {(f, sides["base"][f], sides["head"][f])
            for f in set(sides["base"]) | set(sides["head"]) if sides["base"][f] != sides["head"][f]}
    status, output = doc_recipes.run(block, tmp, env)
    print(output[-3000:])
    fired = {(m.group(1), int(m.group(2)), int(m.group(3))) for m in
             re.finditer(r"^  calls>0% fired on (.+): calls (\d+) -> (\d+),", output, re.M)}
    problems = []
    if not want:
        problems.append("the two builds print the same counts: nothing to compare")
    if status != 1:
        problems.append("the recipe exited %d, expected 1 (a rule fired)" % status)
    if fired != want:
        problems.append("calls>0%% fired on %s, expected %s" % (sorted(fired), sorted(want)))
    return problems


CHECKS = {"trace": check_trace, "attach": check_attach_recipe, "pnpm": check_pnpm_recipe,
          "ci": check_ci}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for opt in ("sledtrace", "readme", "source-root", "attachee", "diff-base", "diff-head"):
        ap.add_argument("--" + opt, required=True)
    for opt in ("pnpm", "addon", "workspace"):
        ap.add_argument("--" + opt, default="")
    ap.add_argument("--recipe", choices=sorted(CHECKS))
    a = ap.parse_args()
    for opt in ("sledtrace", "attachee", "diff_base", "diff_head", "pnpm", "addon", "workspace"):
        if getattr(a, opt):
            setattr(a, opt, os.path.abspath(getattr(a, opt)))
    recipes = doc_recipes.blocks(a.readme, "recipe")
    problems = []
    if set(recipes) != set(CHECKS):
        problems.append("%s marks the recipes %s, this test checks %s"
                        % (a.readme, sorted(recipes), sorted(CHECKS)))
    for name in [n for n in ([a.recipe] if a.recipe else sorted(CHECKS)) if n in recipes]:
        print("== recipe %s:\n%s" % (name, recipes[name]))
        with tempfile.TemporaryDirectory(prefix="sledtrace-readme-") as tmp:
            bindir = os.path.join(tmp, ".bin")
            os.mkdir(bindir)
            os.symlink(a.sledtrace, os.path.join(bindir, "sledtrace"))
            try:
                found = CHECKS[name](a, recipes[name], tmp, doc_recipes.env_with_path([bindir]))
            except (CheckFailed, subprocess.TimeoutExpired, OSError, ET.ParseError) as e:
                found = [str(e)]
        problems += ["%s: %s" % (name, p) for p in found]
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
