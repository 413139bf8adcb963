# SPDX-License-Identifier: MIT
"""checklib.py: what the check_*.py checkers share.

Each checker used to carry its own copy of CheckFailed, expect(), a
subprocess wrapper and the PASS/FAIL ending of main(); the copies had
drifted apart in small ways (one quoted the command, one did not).  Held
here once, a fix to how a failing command is reported reaches every
checker.  Checkers run as `python3 tests/check_X.py`, so this file is
importable as a sibling (sys.path[0] is the script's folder).
Python 3 standard library only.
"""

import subprocess
import sys


class CheckFailed(Exception):
    """What a check found wrong; main() prints it after "FAIL: " and exits 1."""


def expect(cond, msg):
    if not cond:
        raise CheckFailed(msg)


def run(argv, ok=(0,), timeout=120, echo=0, stdin=subprocess.DEVNULL, **kw):
    """Run argv with stdout and stderr captured as text; returns the
    CompletedProcess.

    ok: the exit statuses that are no failure (None: any, the caller
    judges); another status raises CheckFailed naming the command and
    carrying its stderr, which is where sledtrace says what went wrong.
    timeout: seconds; past it subprocess.TimeoutExpired propagates.
    echo: print the command (at most that many characters) and its exit
    status, so a long case's log shows what ran; 0: quiet.
    stdin: /dev/null by default, so no command waits on the terminal.
    kw: more subprocess.run arguments (cwd, env, preexec_fn...)."""
    p = subprocess.run(argv, stdin=stdin, capture_output=True, text=True, timeout=timeout,
                       **kw)
    if echo:
        print("$ %s  -> exit %d" % (" ".join(argv)[:echo], p.returncode))
    if ok is not None and p.returncode not in ok:
        raise CheckFailed("`%s` exited %d:\n%s" % (" ".join(argv), p.returncode, p.stderr))
    return p


def verdict(check, *args, errors=(), fail_to=None, passed="PASS"):
    """main()'s ending: check(*args), then the exit status for sys.exit.

    CheckFailed, or one of errors (exceptions a checker counts as a
    failed check, e.g. subprocess.TimeoutExpired), prints "FAIL: <it>" on
    fail_to (default stderr) and gives 1; else passed is printed (None:
    nothing) and 0 returned."""
    try:
        check(*args)
    except (CheckFailed,) + tuple(errors) as e:
        print("FAIL: %s" % e, file=fail_to or sys.stderr)
        return 1
    if passed is not None:
        print(passed)
    return 0
