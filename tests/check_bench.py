#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_bench.py: `sledtrace bench`, and the CI jobs of docs/ci.md run as
they are written.

Cases (--case):
  bench      bench records a base and a candidate build of
             tests/fixtures/diffwork.c 3 times each, interleaved (base,
             head, head, base, base, head), into a directory, with each run's
             output in its log, diff.json, summary.md and --summary
             appended; exits 1 (calls>0% fires on hot); a command with shell
             syntax runs under sh -c; a directory that holds traces, a
             command that fails and a missing --head are exit 2, one line
  max-runs   --max-runs: a first look that cannot decide (one run a side),
             or passes without clearing every function, goes on to more
             rounds and judges them all at half the error rate; one that
             fires records no more; below -n is exit 2
  ci-github  the GitHub Actions job: a git repository whose base commit has
             diffwork.c and whose candidate defines DIFF_HEAD, checked out
             as actions/checkout would; the job's own `run:` steps then run
             with bash -e, with the job's env: the base worktree, the XRay
             build through the project's Makefile, and the gate; the gate
             fails the step (exit 1) and writes the summary into
             $GITHUB_STEP_SUMMARY, and traces/ holds what the artifact
             upload keeps
  ci-gitlab  the GitLab job: the same repository as a merge request; its
             before_script, script and after_script lines run in bash -e
             with the job's variables; the script fails (exit 1) and
             after_script posts traces/summary.md as a merge-request note
             to a local stand-in for GitLab's API, which checks the request
Left out, because this machine cannot or must not: the checkout action, the
package installs, fetching and building sledtrace (the built one is put where
the job builds it), the artifact upload, and `sudo` (a stand-in that runs its
command: the tests run as root).  Debian's clang 14 spells XRay's link flag
-fnoxray-link-deps, so the GitHub job's XRAY_CFLAGS (clang >= 17) is given
that spelling.  Python 3 standard library only.
"""

import argparse
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.parse

import checklib
from checklib import CheckFailed, verdict

# The cases judge each exit status themselves; the log shows every
# command.  The commands keep the test's own stdin, as they always have.
run = functools.partial(checklib.run, ok=None, timeout=240, echo=200, stdin=None)


def one_error_line(p, what, want):
    lines = p.stderr.splitlines()
    errors = [l for l in lines if l.startswith("sledtrace: ")]
    if p.returncode != 2 or len(errors) != 1 or want not in errors[0]:
        raise CheckFailed("%s: expected exit 2 and one `sledtrace: ` line with %r; got exit %d, "
                          "stderr %r" % (what, want, p.returncode, p.stderr))


def fixture_source(source):
    return (os.path.join(source, "tests", "fixtures", "diffwork.c"),
            os.path.join(source, "tests", "fixtures", "fixture.h"))


def build_fixture(source, out, head):
    c, h = fixture_source(source)
    argv = ["clang", "-O2", "-g", "-fxray-instrument", "-fxray-instruction-threshold=1",
            "-fnoxray-link-deps", "-D_GNU_SOURCE", "-pthread", "-I", os.path.dirname(h), c,
            "-o", out] + (["-DDIFF_HEAD"] if head else [])
    subprocess.run(argv, check=True)


# ---- bench ------------------------------------------------------------------

def bench_order(stderr):
    """[(side, run, of how many)] of the recorded runs, in bench's order."""
    return re.findall(r"^bench: (base|head) run (\d+) of (\d+)", stderr, re.M)


def case_bench(args, tmp):
    st = args.sledtrace
    for side in ("base", "head"):
        os.makedirs(os.path.join(tmp, side))
        build_fixture(args.source, os.path.join(tmp, side, "diffwork"), side == "head")
    out, summary = os.path.join(tmp, "out"), os.path.join(tmp, "summary.md")
    with open(summary, "w") as f:
        f.write("earlier steps' summary\n")
    base, head = os.path.join(tmp, "base", "diffwork"), os.path.join(tmp, "head", "diffwork")
    p = run([st, "bench", "--base", base, "--head", "cd %s/head && ./diffwork" % tmp, "-n", "3",
             "-o", out, "--fail-on=calls>0%", "--summary", summary])
    if p.returncode != 1 or "FAIL: 1 of 1 rules fired" not in p.stdout or \
            "calls>0% fired on hot: calls 1000 -> 1500" not in p.stdout:
        raise CheckFailed("bench: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
    order = bench_order(p.stderr)
    want = [(s, i, "3") for s, i in (("base", "1"), ("head", "1"), ("head", "2"),
                                      ("base", "2"), ("base", "3"), ("head", "3"))]
    if order != want:
        raise CheckFailed("runs in the order %s, expected %s" % (order, want))
    names = sorted(os.listdir(out))
    # --budget (5% by default): one run a side with every function probed
    want_names = sorted(["%s-%s.%s" % (s, i, e) for s in ("base", "head")
                         for i in ("1", "2", "3", "calls") for e in ("pftrace", "log")] +
                        ["diff.json", "summary.md"])
    if names != want_names:
        raise CheckFailed("the output directory holds %s" % names)
    with open(os.path.join(out, "head-2.log")) as f:
        if not re.search(r"^COUNT \d+ hot 1500$", f.read(), re.M):
            raise CheckFailed("head-2.log does not hold the run's output")
    doc = json.load(open(os.path.join(out, "diff.json")))
    if doc["verdict"] != "fail" or [r["path"] for r in doc["runs"]["head"]] != \
            [os.path.join(out, "head-%d.pftrace" % i) for i in (1, 2, 3)]:
        raise CheckFailed("diff.json: verdict %r, runs %s" % (doc["verdict"], doc["runs"]))
    # --budget: hot (1,500 calls) is left unprobed in the timed runs; its
    # calls, which fire the rule, come from the runs with every probe
    hot = [r for r in doc["functions"] if r["function"] == "hot"]
    if not hot or not hot[0]["unprobed"] or "calls and call paths from one run a side" \
            not in p.stdout:
        raise CheckFailed("bench --budget: hot not marked unprobed, or no note\n" + p.stdout)
    md = open(os.path.join(out, "summary.md")).read()
    if open(summary).read() != "earlier steps' summary\n" + md or "rules fired" not in md:
        raise CheckFailed("--summary is not the old content plus summary.md")
    one_error_line(run([st, "bench", "--base", base, "--head", base, "-n", "1", "-o", out]),
                   "a directory with traces", "already holds traces")
    one_error_line(run([st, "bench", "--base", base, "--head", "false", "-n", "1", "-o",
                        os.path.join(tmp, "out2")]), "a failing command",
                   "head warm-up 1 exited 1")
    one_error_line(run([st, "bench", "--base", base, "-o", os.path.join(tmp, "out3")]),
                   "no --head", "--base, --head and -o are needed")
    print("bench: interleaved runs, logs, diff.json, summary.md, --summary; bad input exit 2")


def case_max_runs(args, tmp):
    """--max-runs: one run a side cannot test a time rule, so the first
    look is inconclusive whenever slow's 20x change passes self>200%; bench
    records two more rounds, in the order it began, and judges the three
    (the rule fires, or is still inconclusive: either way the verdict is
    the second look's).  A first look that fires (a count rule: the job
    fails whatever the time rules would say) records no more; a pass that
    does not clear every function goes on."""
    st = args.sledtrace
    for side in ("base", "head"):
        os.makedirs(os.path.join(tmp, side))
        build_fixture(args.source, os.path.join(tmp, side, "diffwork"), side == "head")
    base, head = os.path.join(tmp, "base", "diffwork"), os.path.join(tmp, "head", "diffwork")
    out = os.path.join(tmp, "out")
    p = run([st, "bench", "--base", base, "--head", head, "-n", "1", "--max-runs", "3",
             "-o", out, "--fail-on=self>200%:^slow$"])
    want = [("base", "1", "1"), ("head", "1", "1"), ("head", "2", "3"), ("base", "2", "3"),
            ("base", "3", "3"), ("head", "3", "3")]
    if p.returncode not in (0, 1) or bench_order(p.stderr) != want or \
            "bench: inconclusive after 1 run a side; a test needs two runs a side: 3 a side" \
            not in p.stderr:
        raise CheckFailed("--max-runs=3 from 1 run: exit %d, runs %s\n%s"
                          % (p.returncode, bench_order(p.stderr), p.stderr))
    doc = json.load(open(os.path.join(out, "diff.json")))
    slow = [r for r in doc["functions"] if r["function"] == "slow"][0]
    if [len(doc["runs"][s]) for s in ("base", "head")] != [3, 3] or \
            doc["confidence"] != 0.975 or doc["first_look_runs"] != 1 or \
            doc["verdict"] != ("fail" if p.returncode else "inconclusive") or \
            (slow["fired"] or slow["inconclusive"]) != ["self>200%:^slow$"] or \
            not any("looked twice: 1 run a side could not decide" in n and
                    "so it recorded 3;" in n for n in doc["notes"]):
        raise CheckFailed("--max-runs=3 from 1 run: runs %s, confidence %s, first look %s, "
                          "fired %s, slow %s, notes %s"
                          % ({s: len(v) for s, v in doc["runs"].items()}, doc["confidence"],
                             doc["first_look_runs"], doc["fired"], slow, doc["notes"]))
    out2 = os.path.join(tmp, "out2")
    p = run([st, "bench", "--base", base, "--head", head, "-n", "2", "--max-runs", "4",
             "-o", out2, "--fail-on=calls>0%"])
    doc = json.load(open(os.path.join(out2, "diff.json")))
    if p.returncode != 1 or len(bench_order(p.stderr)) != 4 or "inconclusive" in p.stderr or \
            not any("decided at its first look, at 97.5% confidence" in n for n in doc["notes"]):
        raise CheckFailed("a first look that decides: exit %d, runs %s, notes %s\n%s"
                          % (p.returncode, bench_order(p.stderr), doc["notes"], p.stderr))
    # the same build a side: 2 runs of diffwork's noise (2-30%) leave some
    # function's interval reaching +20%, so the pass does not clear it and
    # bench goes on to 3; should the runs happen to clear every function,
    # there is nothing to record, and the pass must then clear them all
    out4 = os.path.join(tmp, "out4")
    p = run([st, "bench", "--base", base, "--head", base, "-n", "2", "--max-runs", "3",
             "-o", out4, "--fail-on=self>20%", "--confidence=99.9%"])
    doc = json.load(open(os.path.join(out4, "diff.json")))
    went_on = "bench: a pass that does not clear every function after 2 runs a side" in p.stderr
    uncleared = doc["rules"][0]["uncleared"]
    if p.returncode != 0 or len(doc["runs"]["base"]) != (3 if went_on else 2) or \
            (not went_on and (uncleared or doc["verdict"] != "pass")):
        raise CheckFailed("an A/A pass at 2 runs: exit %d, went on %s, runs %d, verdict %s, "
                          "uncleared %s\n%s" % (p.returncode, went_on, len(doc["runs"]["base"]),
                                                doc["verdict"], uncleared, p.stderr))
    one_error_line(run([st, "bench", "--base", base, "--head", head, "-n", "3", "--max-runs",
                        "2", "-o", os.path.join(tmp, "out3")]),
                   "--max-runs below -n", "--max-runs 2 is fewer than --runs 3")
    print("--max-runs: 1 run a side goes on to 3 and judges them at 97.5%%; a first look that "
          "fires records no more; an A/A pass %s; fewer than -n is exit 2"
          % ("that did not clear went on to 3" if went_on else "cleared every function"))


# ---- CI jobs ----------------------------------------------------------------

def doc_blocks(source):
    text = open(os.path.join(source, "docs", "ci.md")).read()
    return re.findall(r"```yaml\n(.*?)```", text, re.S)


def yaml_scalar(v):
    v = v.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        return v[1:-1]
    return v


def block_env(block, indent):
    """KEY: value lines of the env:/variables: mapping at this indent."""
    out = {}
    m = re.search(r"^%s(?:env|variables):\n((?:%s  .*\n)+)" % (" " * indent, " " * indent),
                  block, re.M)
    for line in m.group(1).splitlines() if m else []:
        line = line.split(" #")[0]
        k, _, v = line.strip().partition(":")
        out[k] = yaml_scalar(v)
    return out


def github_steps(block):
    """[(name, run script)] of the job's steps with a `run:`."""
    steps = []
    for m in re.finditer(r"^      - name: (.*)\n((?:        .*\n|\s*\n)*)", block, re.M):
        body = m.group(2)
        r = re.search(r"^        run: \|\n((?:          .*\n|\s*\n)*)", body, re.M)
        one = re.search(r"^        run: (.+)\n", body, re.M)
        if r:
            steps.append((m.group(1), "\n".join(l[10:] for l in r.group(1).splitlines())))
        elif one and one.group(1) != "|":
            steps.append((m.group(1), one.group(1)))
    return steps


def make_repo(source, tmp):
    """A project whose base commit has diffwork.c as bench.c and whose
    candidate calls hot more often (DIFF_HEAD); returns (path, base sha)."""
    repo = os.path.join(tmp, "repo")
    os.makedirs(repo)
    c, h = fixture_source(source)
    shutil.copy2(c, os.path.join(repo, "bench.c"))
    shutil.copy2(h, os.path.join(repo, "fixture.h"))
    with open(os.path.join(repo, "Makefile"), "w") as f:
        f.write("bench: bench.c fixture.h\n\t$(CC) $(CFLAGS) -D_GNU_SOURCE -pthread "
                "bench.c -o bench\n")
    git = ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", repo], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "base"], check=True)
    sha = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True,
                         check=True).stdout.strip()
    text = open(os.path.join(repo, "bench.c")).read()
    with open(os.path.join(repo, "bench.c"), "w") as f:
        f.write("#define DIFF_HEAD 1\n" + text)
    subprocess.run(git + ["commit", "-qam", "candidate"], check=True)
    return repo, sha


def tools(tmp):
    """A bin directory with the `sudo` stand-in."""
    bindir = os.path.join(tmp, "bin")
    os.makedirs(bindir)
    with open(os.path.join(bindir, "sudo"), "w") as f:
        f.write('#!/bin/sh\nexec "$@"\n')
    os.chmod(os.path.join(bindir, "sudo"), 0o755)
    return bindir


def place_sledtrace(args, path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(os.path.abspath(args.sledtrace), path)


def bash(script, cwd, env):
    p = subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=env, capture_output=True,
                       text=True, timeout=240)
    print("$ %s\n  -> exit %d" % (script.strip().replace("\n", "\n  "), p.returncode))
    if p.returncode not in (0, 1):
        print(p.stdout + p.stderr)
    return p


def check_traces(ws, runs):
    got = sorted(n for n in os.listdir(os.path.join(ws, "traces")) if n.endswith(".pftrace"))
    want = sorted("%s-%s.pftrace" % (s, i) for s in ("base", "head")
                  for i in [str(k) for k in range(1, runs + 1)] + ["calls"])
    if got != want:
        raise CheckFailed("traces/ holds %s, expected %s" % (got, want))


def case_ci_github(args, tmp):
    block = next(b for b in doc_blocks(args.source) if "runs-on: ubuntu-latest" in b)
    repo, sha = make_repo(args.source, tmp)
    ws = os.path.join(tmp, "ws")
    subprocess.run(["git", "clone", "-q", repo, os.path.join(ws, "head")], check=True)
    place_sledtrace(args, os.path.join(ws, "sledtrace", "build", "sledtrace"))
    summary = os.path.join(tmp, "step_summary.md")
    open(summary, "w").close()
    env = dict(os.environ, **block_env(block, 0), GITHUB_WORKSPACE=ws,
               GITHUB_STEP_SUMMARY=summary, PATH=tools(tmp) + ":" + os.environ["PATH"])
    env["XRAY_CFLAGS"] = env["XRAY_CFLAGS"].replace("-fno-xray-link-deps", "-fnoxray-link-deps")
    ran = []
    for name, script in github_steps(block):
        if name in ("Install build tools", "Build libbpf 1.4 and bpftool", "Build sledtrace"):
            continue
        script = script.replace("${{ github.event.pull_request.base.sha }}", sha)
        p = bash(script, ws, env)
        ran.append((name, p.returncode))
        if p.returncode:
            break
    if ran != [("Base worktree", 0), ("Build base and candidate with XRay", 0),
               ("Performance gate", 1)]:
        raise CheckFailed("the job's steps ran as %s" % ran)
    text = open(summary).read()
    if not re.search(r"^### ❌ sledtrace diff: \d of 2 rules fired$", text, re.M) or \
            "| `calls>0%` | `hot` |" not in text:
        raise CheckFailed("the job summary is:\n" + text)
    check_traces(ws, int(env["RUNS"]))
    print("the GitHub job builds both sides, fails on hot's calls, writes the job summary")


class NoteServer(http.server.BaseHTTPRequestHandler):
    seen = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        NoteServer.seen.append((self.path, self.headers.get("PRIVATE-TOKEN"),
                                urllib.parse.parse_qs(body)))
        self.send_response(201)
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *a):
        pass


def gitlab_lines(block, key):
    m = re.search(r"^  %s:\n((?:    .*\n)+)" % key, block, re.M)
    items, cur = [], None
    for line in m.group(1).splitlines():
        if line.startswith("    - "):
            cur = [line[6:]]
            items.append(cur)
        else:
            cur.append(line[6:] if line.startswith("      ") else line.strip())
    # a block scalar (|) keeps its lines; a plain one folds them into one
    return ["\n".join(i[1:]) if i[0] == "|" else " ".join(l.strip() for l in i) for i in items]


def case_ci_gitlab(args, tmp):
    block = next(b for b in doc_blocks(args.source) if "merge_request_event" in b)
    repo, sha = make_repo(args.source, tmp)
    srv = http.server.HTTPServer(("127.0.0.1", 0), NoteServer)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    env = dict(os.environ, CI_PROJECT_DIR=repo, CI_MERGE_REQUEST_DIFF_BASE_SHA=sha,
               CI_API_V4_URL="http://127.0.0.1:%d/api/v4" % srv.server_port,
               CI_PROJECT_ID="7", CI_MERGE_REQUEST_IID="42", SLEDTRACE_NOTE_TOKEN="t0ken",
               PATH=tools(tmp) + ":" + os.environ["PATH"])
    for k, v in block_env(block, 2).items():
        env[k] = os.path.expandvars(v.replace("$CI_PROJECT_DIR", repo))
    place_sledtrace(args, env["ST"])
    status = 0
    for key in ("before_script", "script"):
        for line in gitlab_lines(block, key):
            if re.search(r"git clone|meson (setup|compile)", line):
                continue  # sledtrace is already where the job builds it
            status = bash(line, repo, env).returncode
            if status:
                break
        if status:
            break
    for line in gitlab_lines(block, "after_script"):
        if bash(line, repo, env).returncode:
            raise CheckFailed("after_script failed")
    srv.shutdown()
    if status != 1:
        raise CheckFailed("the job's script exited %d, expected 1 (a rule fired)" % status)
    md = open(os.path.join(repo, "traces", "summary.md")).read()
    if NoteServer.seen != [("/api/v4/projects/7/merge_requests/42/notes", "t0ken",
                            {"body": [md]})]:
        raise CheckFailed("the merge-request note requests: %s" % NoteServer.seen)
    check_traces(repo, int(env["RUNS"]))
    print("the GitLab job fails on hot's calls and posts summary.md as a merge-request note")


CASES = {"bench": case_bench, "max-runs": case_max_runs, "ci-github": case_ci_github,
         "ci-gitlab": case_ci_gitlab}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sledtrace", required=True)
    ap.add_argument("--source", required=True, help="the source tree (docs/ci.md, fixtures)")
    ap.add_argument("--case", required=True, choices=sorted(CASES))
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    with tempfile.TemporaryDirectory(prefix="sledtrace-bench-") as tmp:
        return verdict(CASES[args.case], args, tmp,
                       errors=(subprocess.SubprocessError, OSError))


if __name__ == "__main__":
    sys.exit(main())
