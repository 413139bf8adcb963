#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""check_sudo.py: under sudo, `record -- CMD` runs CMD as the invoking user.

sledtrace runs as root with the environment sudo gives (SUDO_UID, SUDO_GID,
SUDO_USER) of an unprivileged user; the command must report that user's
uid, gid, supplementary groups, HOME, USER and LOGNAME, and an XRay
fixture it runs must still be traced.  With --as-root it stays root.
"""
import os
import pwd
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_counts  # noqa: E402

SHOW = 'id -u; id -g; id -G; echo "$HOME"; echo "$USER"; echo "$LOGNAME"; "$0"'


def main():
    sledtrace, fixture = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if os.geteuid() != 0:
        sys.exit("needs root")
    # A user with supplementary groups shows that they are set, if any.
    users = [p for p in pwd.getpwall() if p.pw_uid >= 1]
    users.sort(key=lambda p: -len(os.getgrouplist(p.pw_name, p.pw_gid)))
    user = users[0]
    env = dict(os.environ, SUDO_UID=str(user.pw_uid), SUDO_GID=str(user.pw_gid),
               SUDO_USER=user.pw_name, HOME="/root", USER="root", LOGNAME="root")
    groups = " ".join(str(g) for g in sorted(set(os.getgrouplist(user.pw_name, user.pw_gid))))
    want = [str(user.pw_uid), str(user.pw_gid), groups, user.pw_dir, user.pw_name,
            user.pw_name]
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, "t.pftrace")
        for opts, expect in (([], want), (["--as-root"], ["0", "0", None, "/root", "root",
                                                          "root"])):
            r = subprocess.run([sledtrace, "record", "-q", "-o", trace] + opts
                               + ["--", "sh", "-c", SHOW, fixture],
                               env=env, capture_output=True, text=True, timeout=120, cwd=tmp)
            lines = r.stdout.splitlines()
            got = lines[:6]
            if got[2:3]:
                got[2] = " ".join(sorted(set(got[2].split()), key=int))
            if r.returncode != 0:
                problems.append("%s: status %d: %s" % (opts, r.returncode, r.stderr))
            for i, (g, w) in enumerate(zip(got, expect)):
                if w is not None and g != w:
                    problems.append("%s: line %d is %r, expected %r" % (opts, i + 1, g, w))
            rows, _ = check_counts.get_report(sledtrace, trace, 60)
            if not rows:
                problems.append("%s: the fixture run by the user was not traced" % opts)
        print("ran as %s (uid %d, groups %s) and as root" % (user.pw_name, user.pw_uid, groups))
    for p in problems:
        print(p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
